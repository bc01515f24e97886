"""Sequential: modules applied one after another."""

from burn.nn.module import Module


class Sequential(Module):
    """Calls its modules in order, feeding each one's output to the next. Children are
    named "0", "1", ... so state_dict keys match PyTorch's ("0.weight")."""

    def __init__(self, *modules):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module):
        """Add `module` at the end; returns self."""
        self.add_module(str(len(self._child_names)), module)
        return self

    def _index(self, idx):
        n = len(self._child_names)
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError("Sequential: indices must be ints or slices, got " +
                            type(idx).__name__)
        if idx < -n or idx >= n:
            raise IndexError("Sequential: index " + str(idx) + " is out of range for " +
                             str(n) + " modules")
        return idx + n if idx < 0 else idx

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self._child_names))
            out = Sequential()
            for i in range(start, stop, step):
                name = self._child_names[i]
                out.add_module(name, getattr(self, name))
            return out
        return getattr(self, self._child_names[self._index(idx)])

    def __setitem__(self, idx, module):
        self.add_module(self._child_names[self._index(idx)], module)

    def __len__(self):
        return len(self._child_names)

    def __iter__(self):
        return self.children()

    def forward(self, x):
        """Run `x` through every module in order."""
        for m in self.children():
            x = m(x)
        return x

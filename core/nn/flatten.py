"""Flatten: merge a range of axes into one."""

from burn.nn.module import Module


class Flatten(Module):
    """Merge axes start_dim..end_dim (defaults keep the batch axis: 1..-1)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, x):
        """Flatten `x` over the layer's axis range."""
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim=" + str(self.start_dim) + ", end_dim=" + str(self.end_dim)

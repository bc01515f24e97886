"""Module and Parameter: the base of every layer.

A Module records its parameters, buffers and sub-modules in registration order (MicroPython
dicts are unordered, so order lives in three name lists), gives PyTorch-style dotted
`state_dict` keys ("0.weight", "features.3.running_mean") and loads them back atomically:
every key, shape and dtype is checked before the first tensor is replaced.

Assigning a Parameter or a Module to an attribute registers it (through `__setattr__`);
`register_parameter`, `register_buffer` and `add_module` do the same explicitly.
"""

import burn
from burn.dtype import DType
from burn.tensor import Tensor


class Parameter(Tensor):
    """A Tensor that a Module registers as trainable; `requires_grad` defaults to True.

    It shares the storage of `data` (no copy)."""

    def __init__(self, data, requires_grad=True):
        if not isinstance(data, Tensor):
            data = burn.tensor(data)
        Tensor.__init__(self, data.handle, data.shape, data.dtype, data.device)
        self.requires_grad = requires_grad

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)


def _loadable(key, value, like):
    """`value` (Tensor, nested list, number or anything with .tolist()) as a Tensor with the
    dtype and device of `like`, the model's tensor under `key`."""
    if not isinstance(value, Tensor):
        if hasattr(value, "tolist"):
            value = value.tolist()
        try:
            value = burn.tensor(value, dtype=like.dtype, device=like.device)
        except (TypeError, ValueError) as e:
            raise TypeError("load_state_dict: the value for " + key +
                            " is not tensor data (" + str(e) + ")") from None
    if tuple(value.shape) != tuple(like.shape):
        raise ValueError("load_state_dict: size mismatch for " + key + ": got shape " +
                         str(tuple(value.shape)) + ", expected " + str(tuple(like.shape)))
    return value.to(like.dtype, like.device)


def _indent(text):
    lines = text.split("\n")
    return "\n".join([lines[0]] + ["  " + ln for ln in lines[1:]])


class Module:
    """Base class of every layer: subclasses set attributes in `__init__` (after calling
    `super().__init__()`) and define `forward`."""

    def __init__(self):
        setter = object.__setattr__
        setter(self, "training", True)
        setter(self, "_param_names", [])
        setter(self, "_buffer_names", [])
        setter(self, "_child_names", [])

    # -- registration ------------------------------------------------------------------
    def _names(self):
        names = getattr(self, "_param_names", None)
        if names is None:
            raise AttributeError(type(self).__name__ +
                                 ": call super().__init__() before assigning attributes")
        return names, self._buffer_names, self._child_names

    def _record(self, kind, name, value):
        """Register `value` (or None) under `name` as a parameter (kind 0), buffer (1) or
        child (2), after checking its type."""
        if value is not None and not isinstance(value, _KINDS[kind]):
            raise TypeError(type(self).__name__ + ": cannot assign " + type(value).__name__ +
                            " as " + _KIND_NAMES[kind] + " '" + name + "' (" +
                            _KINDS[kind].__name__ + " or None expected)")
        lists = self._names()
        for other in lists:
            if other is not lists[kind] and name in other:
                other.remove(name)
        if name not in lists[kind]:
            lists[kind].append(name)
        object.__setattr__(self, name, value)

    def register_parameter(self, name, param):
        """Register `param` (a Parameter, or None for an absent optional one) as `name`."""
        self._record(0, name, param)

    def register_buffer(self, name, tensor):
        """Register a non-trainable tensor (such as a running mean) saved in state_dict."""
        self._record(1, name, tensor)

    def add_module(self, name, module):
        """Register `module` (or None) as the child `name`."""
        self._record(2, name, module)

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._record(0, name, value)
        elif isinstance(value, Module):
            self._record(2, name, value)
        else:
            # plain attributes may be set even before Module.__init__, as in PyTorch
            for kind in (0, 1, 2):
                names = getattr(self, _LIST_ATTRS[kind], ())
                if name in names:
                    self._record(kind, name, value)
                    return
            object.__setattr__(self, name, value)

    # -- traversal ---------------------------------------------------------------------
    def named_children(self):
        """(name, module) for each direct child, in registration order."""
        for name in self._child_names:
            child = getattr(self, name)
            if child is not None:
                yield name, child

    def children(self):
        """The direct child modules, in registration order."""
        for _, child in self.named_children():
            yield child

    def named_modules(self, prefix=""):
        """(dotted name, module) for this module ("") and every descendant, depth first."""
        seen = set()
        stack = [(prefix, self)]
        while stack:
            name, mod = stack.pop()
            if id(mod) in seen:
                continue
            seen.add(id(mod))
            yield name, mod
            kids = list(mod.named_children())
            for i in range(len(kids) - 1, -1, -1):
                kid_name, kid = kids[i]
                stack.append((name + "." + kid_name if name else kid_name, kid))

    def modules(self):
        """This module and every descendant, depth first."""
        for _, mod in self.named_modules():
            yield mod

    def _named_tensors(self, kind, prefix, recurse):
        seen = set()
        mods = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mod_name, mod in mods:
            for name in mod._names()[kind]:
                t = getattr(mod, name)
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (mod_name + "." + name if mod_name else name), t

    def named_parameters(self, prefix="", recurse=True):
        """(dotted name, Parameter) pairs in registration order, each parameter once."""
        return self._named_tensors(0, prefix, recurse)

    def parameters(self, recurse=True):
        """The Parameters of this module and its descendants, in registration order."""
        for _, p in self.named_parameters("", recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        """(dotted name, buffer) pairs in registration order."""
        return self._named_tensors(1, prefix, recurse)

    def buffers(self, recurse=True):
        """The buffers of this module and its descendants."""
        for _, b in self.named_buffers("", recurse):
            yield b

    def apply(self, fn):
        """Call `fn(module)` on every descendant, then on this module; returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # -- state -------------------------------------------------------------------------
    def _state_slots(self):
        """[(key, owner module, attribute name, tensor)] for every parameter and buffer."""
        slots = []
        for mod_name, mod in self.named_modules():
            pre = mod_name + "." if mod_name else ""
            names = mod._names()
            for kind in (0, 1):
                for name in names[kind]:
                    t = getattr(mod, name)
                    if t is not None:
                        slots.append((pre + name, mod, name, t))
        return slots

    def state_dict(self):
        """{dotted key: tensor} of every parameter and buffer (the tensors, not copies).

        Keys follow PyTorch, so a torch state_dict converted with `.tolist()` loads here."""
        state = {}
        for key, _, _, t in self._state_slots():
            state[key] = t
        return state

    def load_state_dict(self, state, strict=True):
        """Load tensors (or nested lists, or anything with `.tolist()`) from `state`.

        Checks every key, shape and dtype first and changes nothing on error. With
        `strict`, missing or unexpected keys are a ValueError; otherwise they are returned
        as `(missing_keys, unexpected_keys)`. Parameters are updated in place, so optimizers
        that hold them see the loaded values."""
        slots = self._state_slots()
        missing = []
        ready = []
        for key, _, _, t in slots:
            if key not in state:
                missing.append(key)
            else:
                ready.append((t, _loadable(key, state[key], t)))
        expected = [s[0] for s in slots]
        unexpected = [k for k in state if k not in expected]
        if strict and (missing or unexpected):
            msg = "load_state_dict: error(s) loading state_dict for " + type(self).__name__
            if missing:
                msg += "; missing keys: " + ", ".join(missing)
            if unexpected:
                msg += "; unexpected keys: " + ", ".join(sorted(unexpected))
            raise ValueError(msg)
        for old, new in ready:
            old.copy_(new)
        return missing, unexpected

    # -- mode, device, grads -----------------------------------------------------------
    def train(self, mode=True):
        """Set training mode on this module and every descendant; returns self."""
        for mod in self.modules():
            object.__setattr__(mod, "training", bool(mode))
        return self

    def eval(self):
        """Set evaluation mode (BatchNorm uses running stats, Dropout is off); returns self."""
        return self.train(False)

    def to(self, target):
        """Move every parameter and buffer to a device, or convert the float ones to a
        dtype (in place); returns self."""
        for _, mod, name, t in self._state_slots():
            if isinstance(target, DType) and not t.dtype.is_float:
                continue
            moved = t.to(target)
            if isinstance(t, Parameter):
                # re-point the Parameter itself, so optimizers holding it follow the move
                flag = t.requires_grad
                grad = t.grad
                Tensor.__init__(t, moved.handle, moved.shape, moved.dtype, moved.device)
                t.requires_grad = flag
                t.grad = None if grad is None else grad.to(target)
            else:
                object.__setattr__(mod, name, moved)
        return self

    def zero_grad(self):
        """Forget every parameter's gradient."""
        for p in self.parameters():
            p.grad = None

    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` on every parameter (False freezes the module); returns self."""
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    # -- calling and printing ----------------------------------------------------------
    def forward(self, *args):
        """The computation; every layer overrides it."""
        raise NotImplementedError(type(self).__name__ + ": forward is not implemented")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def extra_repr(self):
        """The layer's settings, shown inside the parentheses of its repr."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        kids = list(self.named_children())
        if not kids:
            return type(self).__name__ + "(" + extra + ")"
        lines = [type(self).__name__ + "("]
        if extra:
            lines.append("  " + _indent(extra))
        for name, kid in kids:
            lines.append("  (" + name + "): " + _indent(repr(kid)))
        lines.append(")")
        return "\n".join(lines)


_KINDS = (Parameter, Tensor, Module)
_KIND_NAMES = ("parameter", "buffer", "child module")
_LIST_ATTRS = ("_param_names", "_buffer_names", "_child_names")

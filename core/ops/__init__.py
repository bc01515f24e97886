"""Composite ops written once over the backend primitives.

Each module is imported on first use (see `burn.__getattr__` and `Tensor.__getattr__`).
A backend may replace a composite for speed by defining a method of the same name: it
receives the same (already checked and normalised) arguments as the function here, tensors
included, and returns a tensor.
"""


def override(x, name):
    """The backend's own implementation of composite `name` for tensor `x`, or None."""
    return getattr(x.backend, name, None)


def need_float(op, x):
    """TypeError naming `op` unless `x` is a float tensor."""
    if not x.dtype.is_float:
        raise TypeError(op + ": needs a float tensor, got " + repr(x.dtype) + "; use .float()")


def need_tensor(op, name, x):
    """TypeError naming `op` and the argument unless `x` is a Tensor."""
    from burn.tensor import Tensor
    if not isinstance(x, Tensor):
        raise TypeError(op + ": " + name + " must be a tensor, got " + type(x).__name__)

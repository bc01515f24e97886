"""Composite ops written once over the backend primitives.

Each module is imported on first use (see `burn.__getattr__` and `Tensor.__getattr__`).
A backend may replace a composite for speed by defining a method of the same name: it
receives the same (already checked and normalised) arguments as the function here, tensors
included, and returns a tensor.
"""

from burn import dtype as _dt


def override(x, name):
    """The backend's own implementation of composite `name` for tensor `x`, or None."""
    return getattr(x.backend, name, None)


def operand(op, t, ref):
    """`t` as a tensor: a number becomes a 0-d tensor of ref's dtype (float32 if it is a
    float and ref is not), a tensor passes through; TypeError naming `op` otherwise."""
    from burn.tensor import Tensor, filled, is_number
    if isinstance(t, Tensor):
        return t
    if not is_number(t):
        raise TypeError(op + ": expected a tensor or a number, got " + type(t).__name__)
    dtype = _dt.float32 if isinstance(t, float) and not ref.dtype.is_float else None
    return filled(ref, (), t, dtype)


def need_float(op, x):
    """TypeError naming `op` unless `x` is a float tensor."""
    if not x.dtype.is_float:
        raise TypeError(op + ": needs a float tensor, got " + repr(x.dtype) + "; use .float()")


def need_tensor(op, name, x):
    """TypeError naming `op` and the argument unless `x` is a Tensor."""
    from burn.tensor import Tensor
    if not isinstance(x, Tensor):
        raise TypeError(op + ": " + name + " must be a tensor, got " + type(x).__name__)

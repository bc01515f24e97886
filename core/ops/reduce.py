"""Reductions beyond sum and mean: max/min (with indices), amax/amin, argmax/argmin, prod."""

from burn.tensor import Tensor, is_int


def _extreme(op, x, dim, keepdim):
    if isinstance(dim, Tensor):
        return x._binary("maximum" if op == "max" else "minimum", dim)
    if dim is None:
        return x._reduce(op, None, keepdim)
    if not is_int(dim):
        raise TypeError(op + ": dim must be an int, got " + repr(dim))
    return (x._reduce(op, dim, keepdim), x._reduce("arg" + op, dim, keepdim))


def max(x, dim=None, keepdim=False):
    """Largest element; with an int `dim`, (values, indices) along it like torch; with a
    tensor, the elementwise maximum."""
    return _extreme("max", x, dim, keepdim)


def min(x, dim=None, keepdim=False):
    """Smallest element; with an int `dim`, (values, indices) along it like torch; with a
    tensor, the elementwise minimum."""
    return _extreme("min", x, dim, keepdim)


def amax(x, dim=None, keepdim=False):
    """Largest values over `dim` (an int, a tuple, or None for all)."""
    return x._reduce("max", dim, keepdim)


def amin(x, dim=None, keepdim=False):
    """Smallest values over `dim` (an int, a tuple, or None for all)."""
    return x._reduce("min", dim, keepdim)


def argmax(x, dim=None, keepdim=False):
    """int32 index of the largest element (of the flattened tensor when dim is None; the
    first one on ties)."""
    return x._reduce("argmax", dim if dim is None else (dim,), keepdim)


def argmin(x, dim=None, keepdim=False):
    """int32 index of the smallest element (of the flattened tensor when dim is None; the
    first one on ties)."""
    return x._reduce("argmin", dim if dim is None else (dim,), keepdim)


def prod(x, dim=None, keepdim=False):
    """Product over `dim` (an int, a tuple, or None for all)."""
    return x._reduce("prod", dim, keepdim)

"""Reductions: sum, mean, max/min (with indices), amax/amin, argmax/argmin, prod."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.tensor import Tensor, is_int

_EXTREMES = ("max", "min", "argmax", "argmin")


def reduce(op, x, dim, keepdim):
    """Reduce `x` with the backend primitive `op` over `dim` (an int, a tuple, or None for
    all, flattened)."""
    if op in ("sum", "prod") and not x.dtype.is_float and x.dtype is not _dt.int32:
        x = x.int()  # like torch, small ints accumulate in a wider type
    if dim is None:
        if op in _EXTREMES and x.numel() == 0:
            raise ValueError(op + ": cannot reduce an empty tensor")
        n = x.numel()
        h = x.backend.reduce(op, x.handle, (n,), 0, x.dtype)
        shape = (1,) * len(x.shape) if keepdim else ()
    else:
        dims = _sh.norm_dims(op, dim, len(x.shape))
        h = x.handle
        shape = x.shape
        for d in dims:
            if op in _EXTREMES and shape[d] == 0:
                raise ValueError(op + ": cannot reduce an empty dim " + repr(d))
            h = x.backend.reduce(op, h, shape, d, x.dtype)
            shape = shape[:d] + (1,) + shape[d + 1:]
        if not keepdim:
            shape = tuple(shape[i] for i in range(len(shape)) if i not in dims)
    dtype = _dt.int32 if op in ("argmax", "argmin") else x.dtype
    return x._new(h, shape, dtype)


def sum(x, dim=None, keepdim=False):
    """Sum over `dim` (an int, a tuple, or None for all)."""
    return reduce("sum", x, dim, keepdim)


def mean(x, dim=None, keepdim=False):
    """Mean over `dim` (an int, a tuple, or None for all); float tensors only."""
    if not x.dtype.is_float:
        raise TypeError("mean: needs a float tensor, got " + repr(x.dtype) + "; use .float()")
    count = 1
    for d in _sh.norm_dims("mean", dim, len(x.shape)):
        count *= x.shape[d]
    return reduce("sum", x, dim, keepdim) / count


def _extreme(op, x, dim, keepdim):
    if isinstance(dim, Tensor):
        return x._binary("maximum" if op == "max" else "minimum", dim)
    if dim is None:
        return reduce(op, x, None, keepdim)
    if not is_int(dim):
        raise TypeError(op + ": dim must be an int, got " + repr(dim))
    return (reduce(op, x, dim, keepdim), reduce("arg" + op, x, dim, keepdim))


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
    return reduce("max", x, dim, keepdim)


def amin(x, dim=None, keepdim=False):
    """Smallest values over `dim` (an int, a tuple, or None for all)."""
    return reduce("min", x, dim, keepdim)


def argmax(x, dim=None, keepdim=False):
    """int32 index of the largest element (of the flattened tensor when dim is None; the
    first one on ties)."""
    return reduce("argmax", x, dim if dim is None else (dim,), keepdim)


def argmin(x, dim=None, keepdim=False):
    """int32 index of the smallest element (of the flattened tensor when dim is None; the
    first one on ties)."""
    return reduce("argmin", x, dim if dim is None else (dim,), keepdim)


def prod(x, dim=None, keepdim=False):
    """Product over `dim` (an int, a tuple, or None for all)."""
    return reduce("prod", x, dim, keepdim)

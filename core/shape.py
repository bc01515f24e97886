"""Shape arithmetic: element counts, broadcasting, dim normalisation.

Every function that can fail takes the user-facing op name first and raises an error whose
message starts with it, so a bad call names the op the user wrote. The window geometry of
convolution and pooling (pair, conv_out, pool_out, same_padding) is in burn.ops.window,
loaded with those ops; its names still resolve here.
"""

import sys


def numel(shape):
    """Number of elements of a tensor of `shape`."""
    n = 1
    for s in shape:
        n *= s
    return n


def broadcast(op, a, b):
    """numpy-style broadcast of shapes `a` and `b`; ValueError naming `op` if impossible."""
    na = len(a)
    nb = len(b)
    n = na if na > nb else nb
    out = []
    for i in range(n):
        da = a[i - n + na] if i >= n - na else 1
        db = b[i - n + nb] if i >= n - nb else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ValueError(op + ": shapes " + repr(a) + " and " + repr(b) +
                             " do not broadcast")
    return tuple(out)


def norm_dim(op, dim, ndim):
    """`dim` as a non-negative axis of a rank-`ndim` tensor (negatives count from the end)."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(op + ": dim must be an int, got " + repr(dim))
    if dim < -ndim or dim >= ndim:
        lo = -ndim if ndim else -1
        hi = ndim - 1 if ndim else 0
        raise IndexError(op + ": dim " + repr(dim) + " is out of range [" + repr(lo) +
                         ", " + repr(hi) + "] for a tensor of " + repr(ndim) + " dims")
    return dim + ndim if dim < 0 else dim


def norm_dims(op, dims, ndim):
    """Sorted tuple of distinct axes from an int, a tuple/list of ints or None (all)."""
    if dims is None:
        return tuple(range(ndim))
    if not isinstance(dims, (tuple, list)):
        dims = (dims,)
    out = []
    for d in dims:
        d = norm_dim(op, d, ndim)
        if d in out:
            raise ValueError(op + ": dim " + repr(d) + " appears more than once")
        out.append(d)
    out.sort()
    return tuple(out)


def as_shape(op, shape):
    """A shape tuple from an int or a tuple/list of non-negative ints."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(op + ": shape must be an int or a tuple of ints, got " + repr(shape))
    for s in shape:
        if not isinstance(s, int) or isinstance(s, bool) or s < 0:
            raise ValueError(op + ": invalid shape " + repr(tuple(shape)))
    return tuple(shape)


def __getattr__(name):
    # burn.shape.pair etc.: the window geometry lives in burn.ops.window so that
    # `import burn` does not pay for it.
    __import__("burn.ops.window")
    try:
        return getattr(sys.modules["burn.ops.window"], name)
    except AttributeError:
        raise AttributeError("module 'burn.shape' has no attribute " + repr(name)) from None

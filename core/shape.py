"""Shape arithmetic: element counts, broadcasting, dim normalisation.

Every function that can fail takes the user-facing op name first and raises an error whose
message starts with it, so a bad call names the op the user wrote. The window geometry of
convolution and pooling (pair, conv_out, pool_out, same_padding) is in burn.ops.window,
loaded with those ops; its names still resolve here.

`error` builds the exceptions of the modules `import burn` loads from the messages in
burn.errors (see there why), and `const` is MicroPython's constant marker for their message
numbers.
"""

import sys

try:
    from micropython import const
except ImportError:  # CPython
    def const(value):
        """MicroPython's compile-time constant marker; the value itself on CPython."""
        return value

# Numbers of the messages in burn.errors.MESSAGES.
_E_MODULE_ATTR = const(1)
_E_NO_BROADCAST = const(18)
_E_DIM_TYPE = const(19)
_E_DIM_RANGE = const(20)
_E_DIM_REPEATED = const(21)
_E_SHAPE_TYPE = const(22)
_E_SHAPE_VALUE = const(23)


def error(number, a=None, b=None, c=None):
    """The exception of message `number` of burn.errors.MESSAGES with arguments a, b, c
    (the op name first, where the message starts with one)."""
    name = "burn.errors"
    __import__(name)
    return sys.modules[name].MESSAGES[number](a, b, c)


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
            raise error(_E_NO_BROADCAST, op, a, b)
    return tuple(out)


def norm_dim(op, dim, ndim):
    """`dim` as a non-negative axis of a rank-`ndim` tensor (negatives count from the end)."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise error(_E_DIM_TYPE, op, dim)
    if dim < -ndim or dim >= ndim:
        raise error(_E_DIM_RANGE, op, dim, ndim)
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
            raise error(_E_DIM_REPEATED, op, d)
        out.append(d)
    out.sort()
    return tuple(out)


def as_shape(op, shape):
    """A shape tuple from an int or a tuple/list of non-negative ints."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise error(_E_SHAPE_TYPE, op, shape)
    for s in shape:
        if not isinstance(s, int) or isinstance(s, bool) or s < 0:
            raise error(_E_SHAPE_VALUE, op, shape)
    return tuple(shape)


def __getattr__(name):
    # burn.shape.pair etc.: the window geometry lives in burn.ops.window so that
    # `import burn` does not pay for it.
    __import__("burn.ops.window")
    try:
        return getattr(sys.modules["burn.ops.window"], name)
    except AttributeError:
        raise error(_E_MODULE_ATTR, "burn.shape", name) from None

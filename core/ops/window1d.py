"""1-D windows as 2-D ones with H = 1: the 1-D layers of burn.nn (Conv1d, the 1-D pools,
BatchNorm1d) view [N, C, L] input as [N, C, 1, L] and run the 2-D ops, so every backend
and autodiff run them and the exporter lowers them as the 2-D ops."""

from burn.ops import need_tensor


def single(op, name, v):
    """An int from an int or a 1-tuple of ints; ValueError naming the argument otherwise."""
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise ValueError(op + ": " + name + " must be an int or a 1-tuple of ints, got " + repr(v))


def as_rows(op, x):
    """(x viewed as [N, C, 1, L], whether a batch dim was added): [C, L] input gets one;
    other ranks are a ValueError naming `op`."""
    need_tensor(op, "input", x)
    if len(x.shape) == 2:
        return x.reshape(1, x.shape[0], 1, x.shape[1]), True
    if len(x.shape) != 3:
        raise ValueError(op + ": input must be 2-D (C, L) or 3-D (N, C, L), got shape " +
                         repr(x.shape))
    n, c, length = x.shape
    return x.reshape(n, c, 1, length), False


def from_rows(y, unbatched):
    """The [N, C, 1, L] result `y` of a 2-D op as [N, C, L] (as [C, L] when `unbatched`)."""
    n, c, _one, length = y.shape
    return y.reshape(c, length) if unbatched else y.reshape(n, c, length)

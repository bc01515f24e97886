"""1-D windows as 2-D ones with H = 1: the 1-D layers of burn.nn (Conv1d, the 1-D pools,
BatchNorm1d) view [N, C, L] input as [N, C, 1, L] and run the 2-D ops, so every backend
and autodiff run them and the exporter lowers them as the 2-D ops. `conv1d` is the
functional form of Conv1d (torch.nn.functional.conv1d's arguments)."""

import burn
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


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of `x` [N, C, L] (or [C, L]) by `weight` [out, C / groups, k]:
    `stride`, `dilation` and `padding` are ints or 1-tuples, `padding` also 'same' or
    'valid'."""
    rows, unbatched = as_rows("conv1d", x)
    need_tensor("conv1d", "weight", weight)
    if len(weight.shape) != 3:
        raise ValueError("conv1d: weight must be 3-D (out, in / groups, k), got shape " +
                         repr(weight.shape))
    out, per_group, k = weight.shape
    if not isinstance(padding, str):
        padding = (0, single("conv1d", "padding", padding))
    y = burn.conv2d(rows, weight.reshape(out, per_group, 1, k), bias,
                    (1, single("conv1d", "stride", stride)), padding,
                    (1, single("conv1d", "dilation", dilation)), groups)
    return from_rows(y, unbatched)

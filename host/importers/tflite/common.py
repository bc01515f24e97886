"""The limits and small shape and scale rules that the TFLite converters share."""

import math

MAX_DIM = 1 << 24  # the largest dimension or window parameter a .bst may hold
INT32 = (-(1 << 31), (1 << 31) - 1)


def trailing(small, big):
    """Whether `small` broadcast over `big` repeats with its own period, as the runtime's
    binary kernels read it: `small` without its leading 1s is the tail of `big` (a scalar,
    or (1, 1, 1, C) per channel against (1, H, W, C))."""
    dims = list(small)
    while dims and dims[0] == 1:
        dims.pop(0)
    return not dims or tuple(big[len(big) - len(dims):]) == tuple(dims)


def sane_scale(scale):
    """A quantization scale the fixed-point parameters can represent."""
    return math.isfinite(scale) and 1e-30 < scale < 1e30

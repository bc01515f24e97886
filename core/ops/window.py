"""Window geometry of convolution and pooling: (a, b) pairs from int-or-pair arguments,
output sizes, 'same' padding, and the batch-dim handling both ops share."""

from burn.ops import need_tensor


def pair(op, name, v):
    """(a, b) from an int or a pair of ints; ValueError naming the argument otherwise."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    if isinstance(v, (tuple, list)) and len(v) == 2:
        a, b = v
        if isinstance(a, int) and isinstance(b, int):
            return (a, b)
    raise ValueError(op + ": " + name + " must be an int or a pair of ints, got " + repr(v))


def conv_out(size, k, stride, pad_before, pad_after, dilation):
    """Output length of a convolution window sweep along one axis (floor mode)."""
    return (size + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1


def pool_out(size, k, stride, pad, dilation, ceil_mode):
    """Output length of a pooling window sweep with symmetric padding, torch's rules:
    ceil mode rounds up but never starts a window in the right padding."""
    span = size + 2 * pad - dilation * (k - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    out = -(-span // stride) + 1
    if (out - 1) * stride >= size + pad:
        out -= 1
    return out


def same_padding(k, dilation):
    """(before, after) zero padding that keeps the size at stride 1; the odd one goes after."""
    total = dilation * (k - 1)
    return (total // 2, total - total // 2)


def batched(op, x):
    """(x as NCHW, whether a batch dim was added): CHW input gets one; other ranks are a
    ValueError naming `op`."""
    need_tensor(op, "input", x)
    if len(x.shape) == 3:
        return x.unsqueeze(0), True
    if len(x.shape) != 4:
        raise ValueError(op + ": input must be 3-D (C, H, W) or 4-D (N, C, H, W), got shape " +
                         repr(x.shape))
    return x, False


def positive_pair(op, name, v):
    """(a, b) of positive ints from an int or a pair; ValueError naming `op` otherwise."""
    p = pair(op, name, v)
    if p[0] < 1 or p[1] < 1:
        raise ValueError(op + ": " + name + " must be positive, got " + repr(v))
    return p


def check_window_out(op, x, kernel, oh, ow):
    """ValueError naming `op` when a window sweep over `x` leaves no output."""
    if oh < 1 or ow < 1:
        raise ValueError(op + ": input of shape " + repr(x.shape) + " is too small for a " +
                         repr(kernel) + " window (output would be " + repr((oh, ow)) + ")")

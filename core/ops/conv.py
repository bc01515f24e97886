"""conv2d: argument checks and normalisation around the conv2d primitive."""

from burn.ops import need_tensor
from burn.ops.window import (
    batched,
    check_window_out,
    conv_out,
    pair,
    positive_pair,
    same_padding,
)


def _conv_padding(padding, kh, kw, dh, dw, stride):
    # (top, bottom, left, right) from an int, a pair, 'same' or 'valid'.
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError("conv2d: padding='same' needs stride 1, got " + repr(stride))
        return same_padding(kh, dh) + same_padding(kw, dw)
    if isinstance(padding, str):
        raise ValueError("conv2d: padding must be 'same', 'valid', an int or a pair, got " +
                         repr(padding))
    ph, pw = pair("conv2d", "padding", padding)
    if ph < 0 or pw < 0:
        raise ValueError("conv2d: padding must not be negative, got " + repr(padding))
    return (ph, ph, pw, pw)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation of NCHW `x` with OIHW `weight` (torch.nn.functional.conv2d)."""
    x, unbatched = batched("conv2d", x)
    need_tensor("conv2d", "weight", weight)
    if len(weight.shape) != 4:
        raise ValueError("conv2d: weight must be 4-D (O, C/groups, kH, kW), got shape " +
                         repr(weight.shape))
    if weight.dtype is not x.dtype or (bias is not None and bias.dtype is not x.dtype):
        raise TypeError("conv2d: input, weight and bias must share a dtype")
    for t in (weight, bias):
        if t is not None and t.device != x.device:
            raise ValueError("conv2d: tensors are on different devices " +
                             repr(x.device.name) + " and " + repr(t.device.name))
    n, c, h, wd = x.shape
    o, cg, kh, kw = weight.shape
    if not isinstance(groups, int) or groups < 1 or c % groups or o % groups:
        raise ValueError("conv2d: groups=" + repr(groups) + " must divide in_channels " +
                         repr(c) + " and out_channels " + repr(o))
    if cg * groups != c:
        raise ValueError("conv2d: weight of shape " + repr(weight.shape) + " expects " +
                         repr(cg * groups) + " input channels, got input of shape " +
                         repr(x.shape))
    if bias is not None:
        need_tensor("conv2d", "bias", bias)
        if bias.shape != (o,):
            raise ValueError("conv2d: bias must have shape " + repr((o,)) + ", got " +
                             repr(bias.shape))
    stride = positive_pair("conv2d", "stride", stride)
    dh, dw = positive_pair("conv2d", "dilation", dilation)
    pads = _conv_padding(padding, kh, kw, dh, dw, stride)
    oh = conv_out(h, kh, stride[0], pads[0], pads[1], dh)
    ow = conv_out(wd, kw, stride[1], pads[2], pads[3], dw)
    check_window_out("conv2d", x, (kh, kw), oh, ow)
    out_shape = (n, o, oh, ow)
    h = x.backend.conv2d(x.handle, x.shape, weight.handle, weight.shape,
                         None if bias is None else bias.handle, stride, pads, (dh, dw), groups,
                         out_shape, x.dtype)
    out = x._new(h, out_shape)
    return out.squeeze(0) if unbatched else out

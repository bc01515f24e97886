"""conv_transpose2d, made of differentiable ops: zeros between the input's pixels (the
stride), then a stride-1 convolution with the flipped kernel, its in and out channels
swapped within each group. Every backend runs it and autodiff differentiates it without a
primitive of its own; it spends the stride's zero products, which is small at MCU scale."""

import burn
from burn.ops import need_tensor
from burn.ops.window import batched, pair, positive_pair


def _spread(x, sh, sw):
    # [N, C, H, W] -> [N, C, (H-1)*sh+1, (W-1)*sw+1] with sh-1 / sw-1 zeros between pixels
    if sh == sw == 1:
        return x
    n, c, h, w = x.shape
    x = burn.pad(x.reshape(n, c, h, 1, w, 1), (0, sw - 1, 0, 0, 0, sh - 1))
    x = x.reshape(n, c, h * sh, w * sw)
    return x[:, :, :(h - 1) * sh + 1, :(w - 1) * sw + 1]


def _crop_or_pad(x, top, bottom, left, right):
    # positive amounts pad with zeros, negative ones crop
    x = burn.pad(x, (max(left, 0), max(right, 0), max(top, 0), max(bottom, 0)))
    h, w = x.shape[2], x.shape[3]
    return x[:, :, max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv2d (torch.nn.functional.conv_transpose2d): NCHW `x`, `weight`
    of shape [C_in, C_out/groups, kH, kW]; the output is
    (H-1)*stride - 2*padding + dilation*(kH-1) + output_padding + 1 high, and as wide."""
    op = "conv_transpose2d"
    x, unbatched = batched(op, x)
    need_tensor(op, "weight", weight)
    if len(weight.shape) != 4:
        raise ValueError(op + ": weight must be 4-D (C_in, C_out/groups, kH, kW), got shape " +
                         repr(weight.shape))
    if weight.dtype is not x.dtype or (bias is not None and bias.dtype is not x.dtype):
        raise TypeError(op + ": input, weight and bias must share a dtype")
    _n, c, h, w = x.shape
    ci, og, kh, kw = weight.shape
    if not isinstance(groups, int) or groups < 1 or c % groups:
        raise ValueError(op + ": groups=" + repr(groups) + " must divide in_channels " +
                         repr(c))
    if ci != c:
        raise ValueError(op + ": weight of shape " + repr(weight.shape) + " expects " +
                         repr(ci) + " input channels, got input of shape " + repr(x.shape))
    sh, sw = positive_pair(op, "stride", stride)
    dh, dw = positive_pair(op, "dilation", dilation)
    ph, pw = pair(op, "padding", padding)
    oph, opw = pair(op, "output_padding", output_padding)
    if ph < 0 or pw < 0:
        raise ValueError(op + ": padding must not be negative, got " + repr(padding))
    if not (0 <= oph < max(sh, dh) and 0 <= opw < max(sw, dw)):
        raise ValueError(op + ": output_padding " + repr(output_padding) + " must be smaller "
                         "than the stride or the dilation")
    if (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1 < 1 or \
            (w - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1 < 1:
        raise ValueError(op + ": padding " + repr(padding) + " leaves no output for input " +
                         repr(x.shape))
    # [C_in, C_out/g, kH, kW] -> [C_out, C_in/g, kH, kW], flipped in both spatial dims
    k = weight.reshape(groups, c // groups, og, kh, kw).transpose(1, 2)
    k = k.reshape(groups * og, c // groups, kh, kw)[:, :, ::-1, ::-1]
    eh, ew = dh * (kh - 1) - ph, dw * (kw - 1) - pw
    x = _crop_or_pad(_spread(x, sh, sw), eh, eh + oph, ew, ew + opw)
    y = burn.conv2d(x, k.contiguous(), bias, 1, 0, (dh, dw), groups)
    return y.squeeze(0) if unbatched else y

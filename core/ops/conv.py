"""conv2d and 2-D pooling: argument checks and normalisation around the primitives."""

from burn import shape as _sh
from burn.ops import need_float, need_tensor


def _batched(op, x):
    # (x as NCHW, whether a batch dim was added); unbatched CHW input is accepted.
    need_tensor(op, "input", x)
    if len(x.shape) == 3:
        return x.unsqueeze(0), True
    if len(x.shape) != 4:
        raise ValueError(op + ": input must be 3-D (C, H, W) or 4-D (N, C, H, W), got shape " +
                         repr(x.shape))
    return x, False


def _positive_pair(op, name, v):
    p = _sh.pair(op, name, v)
    if p[0] < 1 or p[1] < 1:
        raise ValueError(op + ": " + name + " must be positive, got " + repr(v))
    return p


def _check_out(op, x, kernel, oh, ow):
    if oh < 1 or ow < 1:
        raise ValueError(op + ": input of shape " + repr(x.shape) + " is too small for a " +
                         repr(kernel) + " window (output would be " + repr((oh, ow)) + ")")


def _conv_padding(padding, kh, kw, dh, dw, stride):
    # (top, bottom, left, right) from an int, a pair, 'same' or 'valid'.
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError("conv2d: padding='same' needs stride 1, got " + repr(stride))
        return _sh.same_padding(kh, dh) + _sh.same_padding(kw, dw)
    if isinstance(padding, str):
        raise ValueError("conv2d: padding must be 'same', 'valid', an int or a pair, got " +
                         repr(padding))
    ph, pw = _sh.pair("conv2d", "padding", padding)
    if ph < 0 or pw < 0:
        raise ValueError("conv2d: padding must not be negative, got " + repr(padding))
    return (ph, ph, pw, pw)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation of NCHW `x` with OIHW `weight` (torch.nn.functional.conv2d)."""
    x, unbatched = _batched("conv2d", x)
    need_tensor("conv2d", "weight", weight)
    if len(weight.shape) != 4:
        raise ValueError("conv2d: weight must be 4-D (O, C/groups, kH, kW), got shape " +
                         repr(weight.shape))
    if weight.dtype is not x.dtype or (bias is not None and bias.dtype is not x.dtype):
        raise TypeError("conv2d: input, weight and bias must share a dtype")
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
    stride = _positive_pair("conv2d", "stride", stride)
    dh, dw = _positive_pair("conv2d", "dilation", dilation)
    pads = _conv_padding(padding, kh, kw, dh, dw, stride)
    oh = _sh.conv_out(h, kh, stride[0], pads[0], pads[1], dh)
    ow = _sh.conv_out(wd, kw, stride[1], pads[2], pads[3], dw)
    _check_out("conv2d", x, (kh, kw), oh, ow)
    out_shape = (n, o, oh, ow)
    h = x.backend.conv2d(x.handle, x.shape, weight.handle, weight.shape,
                         None if bias is None else bias.handle, stride, pads, (dh, dw), groups,
                         out_shape, x.dtype)
    out = x._new(h, out_shape)
    return out.squeeze(0) if unbatched else out


def _pool(op, name, x, kernel_size, stride, padding, dilation, ceil_mode, count_include_pad):
    x, unbatched = _batched(name, x)
    kh, kw = _positive_pair(name, "kernel_size", kernel_size)
    sh, sw = (kh, kw) if stride is None else _positive_pair(name, "stride", stride)
    ph, pw = _sh.pair(name, "padding", padding)
    dh, dw = _positive_pair(name, "dilation", dilation)
    if ph < 0 or pw < 0 or ph > kh // 2 or pw > kw // 2:
        raise ValueError(name + ": padding " + repr(padding) + " must be between 0 and half "
                         "the kernel size " + repr((kh, kw)))
    n, c, h, w = x.shape
    oh = _sh.pool_out(h, kh, sh, ph, dh, ceil_mode)
    ow = _sh.pool_out(w, kw, sw, pw, dw, ceil_mode)
    _check_out(name, x, (kh, kw), oh, ow)
    out_shape = (n, c, oh, ow)
    hd = x.backend.pool2d(op, x.handle, x.shape, (kh, kw), (sh, sw), (ph, ph, pw, pw),
                          (dh, dw), bool(ceil_mode), bool(count_include_pad), out_shape,
                          x.dtype)
    out = x._new(hd, out_shape)
    return out.squeeze(0) if unbatched else out


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max over k x k windows of NCHW `x` (torch.nn.functional.max_pool2d)."""
    need_tensor("max_pool2d", "input", x)
    if x.dtype.name == "bool":
        raise TypeError("max_pool2d: not supported for burn.bool tensors")
    return _pool("max", "max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode,
                 True)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over k x k windows of NCHW `x` (torch.nn.functional.avg_pool2d)."""
    need_tensor("avg_pool2d", "input", x)
    need_float("avg_pool2d", x)
    return _pool("avg", "avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode,
                 count_include_pad)


def adaptive_avg_pool2d(x, output_size):
    """Mean over the windows that split H and W into output_size cells, torch's rule:
    cell i spans [floor(i*H/oh), ceil((i+1)*H/oh))."""
    x, unbatched = _batched("adaptive_avg_pool2d", x)
    need_float("adaptive_avg_pool2d", x)
    if isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        oh, ow = output_size
    else:
        oh = ow = output_size
    h, w = x.shape[2], x.shape[3]
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if not isinstance(oh, int) or not isinstance(ow, int) or oh < 1 or ow < 1:
        raise ValueError("adaptive_avg_pool2d: output_size must be a positive int or pair, "
                         "got " + repr(output_size))
    if h % oh == 0 and w % ow == 0:
        out = avg_pool2d(x, (h // oh, w // ow))
    else:
        # A rectangle's mean is the mean over rows of the per-column means, so the two
        # axes are pooled one after the other.
        out = _adaptive_axis(_adaptive_axis(x, 2, oh), 3, ow)
    return out.squeeze(0) if unbatched else out


def _adaptive_axis(x, dim, cells):
    from burn.ops.index import narrow
    from burn.ops.join import cat
    size = x.shape[dim]
    if size == cells:
        return x
    parts = []
    for i in range(cells):
        lo = (i * size) // cells
        hi = -((-(i + 1) * size) // cells)
        parts.append(narrow(x, dim, lo, hi - lo).mean(dim, True))
    return cat(parts, dim)

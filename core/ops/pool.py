"""2-D pooling (max, average, adaptive average): argument checks around pool2d."""

from burn.ops import need_float, need_tensor
from burn.ops.window import batched, check_window_out, pair, pool_out, positive_pair


def _pool(op, name, x, kernel_size, stride, padding, dilation, ceil_mode, count_include_pad):
    x, unbatched = batched(name, x)
    kh, kw = positive_pair(name, "kernel_size", kernel_size)
    sh, sw = (kh, kw) if stride is None else positive_pair(name, "stride", stride)
    ph, pw = pair(name, "padding", padding)
    dh, dw = positive_pair(name, "dilation", dilation)
    if ph < 0 or pw < 0 or ph > kh // 2 or pw > kw // 2:
        raise ValueError(name + ": padding " + repr(padding) + " must be between 0 and half "
                         "the kernel size " + repr((kh, kw)))
    n, c, h, w = x.shape
    oh = pool_out(h, kh, sh, ph, dh, ceil_mode)
    ow = pool_out(w, kw, sw, pw, dw, ceil_mode)
    check_window_out(name, x, (kh, kw), oh, ow)
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
    x, unbatched = batched("adaptive_avg_pool2d", x)
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

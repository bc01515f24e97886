"""Pooling-window geometry shared by the backends and the Autodiff gradients."""


def pool_frame(x_shape, kernel, stride, padding, dilation, out_hw):
    """(top, bottom, left, right) padding that covers every window of an [n, c, h, w]
    input, ceil_mode's overhang included."""
    pt, pb, pl, pr = padding
    need_h = (out_hw[0] - 1) * stride[0] + (kernel[0] - 1) * dilation[0] + 1
    need_w = (out_hw[1] - 1) * stride[1] + (kernel[1] - 1) * dilation[1] + 1
    return (pt, max(pb, need_h - x_shape[2] - pt), pl, max(pr, need_w - x_shape[3] - pl))


def pool_divisors(x_shape, kernel, stride, padding, dilation, out_shape, count_include_pad):
    """Divisor of every average-pooling output position, row-major over [oh, ow].

    With count_include_pad the divisor is the window clipped to the explicitly padded input,
    otherwise the number of real input elements in the window.
    """
    h, w = x_shape[2], x_shape[3]
    pt, pb, pl, pr = padding
    if count_include_pad:
        lo_h, hi_h, lo_w, hi_w = -pt, h + pb, -pl, w + pr
    else:
        lo_h, hi_h, lo_w, hi_w = 0, h, 0, w
    rows = _window_counts(out_shape[2], kernel[0], stride[0], dilation[0], pt, lo_h, hi_h)
    cols = _window_counts(out_shape[3], kernel[1], stride[1], dilation[1], pl, lo_w, hi_w)
    return [float(r * c) for r in rows for c in cols]


def _window_counts(n_out, k, s, d, pad, lo, hi):
    counts = []
    for o in range(n_out):
        first = o * s - pad
        counts.append(sum(1 for i in range(k) if lo <= first + i * d < hi))
    return counts

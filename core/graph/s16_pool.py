"""int16 average and max pooling (NHWC), as TFLM's reference integer pooling for int16:
windows cover only in-bounds cells; the mean rounds half away from zero (the int8 kernels'
loop, burn.graph.s8_pool.pool_plain)."""

from .s8_pool import pool_plain


def avg_pool_s16(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                 pad_left, act_min, act_max):
    """The mean of each window's in-bounds cells, clamped."""
    pool_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
               act_min, act_max, False, -32768)


def max_pool_s16(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                 pad_left, act_min, act_max):
    """The largest of each window's in-bounds cells, clamped."""
    pool_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
               act_min, act_max, True, -32768)

"""int16 average and max pooling (NHWC), as TFLM's reference integer pooling for int16:
windows cover only in-bounds cells; the mean rounds half away from zero (the int8 kernels'
loop, burn.graph.s8_pool.pool_plain)."""

from burn import bst_ops
from burn.graph import s16_prepare as p

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


def prepare(step, ctx, variant):
    """Check and bind an int16 `avg_pool2d` or `max_pool2d` op (burn.graph.s16_prepare
    hands it here)."""
    bst_ops._arity(step, 1)
    (n, ih, iw, c), (oh, ow, oc) = bst_ops._nhwc(step, ctx, "int16")
    if oc != c:
        step.fail("input channels %d != output channels %d" % (c, oc))
    window = step.ps(bst_ops._POOL_WINDOW)
    kh, kw, sh, sw, pt, pl = window
    bst_ops._window(step, ih, iw, oh, ow, kh, kw, (sh, sw, 1, 1, pt, pl))
    step.a = (ctx.view(step.ins[0]), ctx.view(step.outs[0]), n, ih, iw, c, oh, ow) + \
        window + p.clamp16(step)
    bst_ops._bind(step, "s16_pool", step.kind[:3] + "_pool_s16", variant)

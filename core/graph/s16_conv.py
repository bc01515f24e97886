"""int16x8 convolution with groups (NHWC, OHWI int8 filters), as TFLM's reference
ConvPerChannel for int16: zero padding, no zero points (TFLM's int16 kernel has none),
per-output-channel multipliers; `wide` as in burn.graph.s16_fully_connected."""

from burn import bst_ops
from burn.graph import s16_prepare as p

from .s16_arith import clamp, requantize_acc, s8


def conv_s16(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
             stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, wide, act_min, act_max):
    """The convolution of an [n, ih, iw, ic] int16 input to [n, oh, ow, oc]."""
    gic = ic // groups
    per_group = oc // groups
    o = 0
    for b in range(n):
        for oy in range(oh):
            y0 = oy * stride_h - pad_top
            for ox in range(ow):
                x0 = ox * stride_w - pad_left
                for c in range(oc):
                    g0 = (c // per_group) * gic
                    acc = bias[c]
                    for ky in range(kh):
                        y = y0 + ky * dil_h
                        if y < 0 or y >= ih:
                            continue
                        for kx in range(kw):
                            x = x0 + kx * dil_w
                            if x < 0 or x >= iw:
                                continue
                            xi = ((b * ih + y) * iw + x) * ic + g0
                            wi = ((c * kh + ky) * kw + kx) * gic
                            for k in range(gic):
                                acc += s8(w[wi + k]) * inp[xi + k]
                    out[o] = clamp(requantize_acc(acc, mult[c], shift[c], wide), act_min,
                                   act_max)
                    o += 1


def prepare(step, ctx, variant):
    """Check and bind an int16 `conv2d` op (burn.graph.s16_prepare hands it here)."""
    bst_ops._arity(step, 1)
    (n, ih, iw, ic), (oh, ow, oc) = bst_ops._nhwc(step, ctx, "int16")
    groups = step.p("groups", 1, ic)
    w, (woc, kh, kw, wic) = bst_ops._const(step, ctx, "w", "int8", rank=4)
    if woc != oc or wic * groups != ic or oc % groups:
        step.fail("weights %s do not fit %d input / %d output channels in %d groups"
                  % ((woc, kh, kw, wic), ic, oc, groups))
    step.macs = n * oh * ow * oc * kh * kw * wic
    bst_ops._bind(step, "s16_conv", "conv_s16", variant)
    window = bst_ops._window(step, ih, iw, oh, ow, kh, kw, step.ps(bst_ops._WINDOW))
    step.a = (ctx.view(step.ins[0]), w) + bst_ops._weights_tail(step, ctx, "int8", oc) + (
        ctx.view(step.outs[0]), n, ih, iw, ic, oh, ow, oc, kh, kw, groups) + window
    step.a += p.tail(step, kh * kw * wic, oc)

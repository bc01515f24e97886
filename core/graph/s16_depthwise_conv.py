"""int16x8 depthwise convolution (NHWC, [1, kh, kw, ic * depth_mult] int8 filters), as
TFLM's reference DepthwiseConvPerChannel for int16: an int64 sum (TFLM reads the bias as
int64 whatever its type), TFLM's int64 multiply, no zero points."""

from burn import bst_ops
from burn.graph import s16_prepare as p

from .s16_arith import clamp, mbqm64, s8


def depthwise_conv_s16(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, depth_mult,
                       kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act_min,
                       act_max):
    """Output channel c of [n, oh, ow, ic * depth_mult] reads input channel c // depth_mult."""
    oc = ic * depth_mult
    o = 0
    for b in range(n):
        for oy in range(oh):
            y0 = oy * stride_h - pad_top
            for ox in range(ow):
                x0 = ox * stride_w - pad_left
                for c in range(oc):
                    acc = bias[c]
                    for ky in range(kh):
                        y = y0 + ky * dil_h
                        if y < 0 or y >= ih:
                            continue
                        for kx in range(kw):
                            x = x0 + kx * dil_w
                            if 0 <= x < iw:
                                acc += s8(w[(ky * kw + kx) * oc + c]) * \
                                    inp[((b * ih + y) * iw + x) * ic + c // depth_mult]
                    out[o] = clamp(mbqm64(acc, mult[c], shift[c]), act_min, act_max)
                    o += 1


def prepare(step, ctx, variant):
    """Check and bind an int16 `depthwise_conv2d` op (burn.graph.s16_prepare hands it here)."""
    bst_ops._arity(step, 1)
    (n, ih, iw, ic), (oh, ow, oc) = bst_ops._nhwc(step, ctx, "int16")
    mult = step.p("depth_mult", 1, bst_ops.MAX_DIM)
    w, (one, kh, kw, woc) = bst_ops._const(step, ctx, "w", "int8", rank=4)
    if one != 1 or woc != oc or ic * mult != oc:
        step.fail("weights %s do not fit %d input channels x depth multiplier %d"
                  % ((one, kh, kw, woc), ic, mult))
    if kh * kw > p.MAX_DEPTH:
        step.fail("a %dx%d window: more than %d products per output" % (kh, kw, p.MAX_DEPTH))
    step.macs = n * oh * ow * oc * kh * kw
    bst_ops._bind(step, "s16_depthwise_conv", "depthwise_conv_s16", variant)
    window = bst_ops._window(step, ih, iw, oh, ow, kh, kw, step.ps(bst_ops._WINDOW))
    step.a = (ctx.view(step.ins[0]), w) + bst_ops._weights_tail(step, ctx, "int8", oc) + (
        ctx.view(step.outs[0]), n, ih, iw, ic, oh, ow, mult, kh, kw) + window
    p.int64_shifts(step, oc)
    step.a += p.clamp16(step)

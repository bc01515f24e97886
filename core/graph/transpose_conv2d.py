"""Transposed 2-D convolution (TFLite TRANSPOSE_CONV; NHWC, OHWI weights), int8 and int16x8
(transpose_conv_s16: int16 activations, int8 weights, TFLM's int64 sums and requantization,
zero points 0) bit-exact with TFLM and float32, and its prepare step (an optional op:
burn.graph.ops.OPTIONAL).

TFLM scatters: input pixel (iy, ix) adds its weighted values into the output window whose
corner is (iy * stride_h - pad_top, ix * stride_w - pad_left). These kernels gather the
same sums output by output, so they need no scratch buffer: output (y, x) takes filter tap
(fy, fx) from input (y + pad_top - fy) / stride_h, where that divides evenly and lands in the
input. They visit the taps from the last to the first, which is the order TFLM adds them in,
so the float32 sums round as TFLM's do.
"""

import sys

from .f32_activation import apply_act
from .fixedpoint import multiplier_offsets, requantize_channel
from .s16_arith import clamp, mbqm64


def _source(o, k, stride, pad, size):
    """The input index that output `o` reads through tap `k`, or -1."""
    t = o + pad - k
    if t < 0 or t % stride:
        return -1
    t //= stride
    return t if t < size else -1


def _taps(b, y, x, ih, iw, ic, kh, kw, stride_h, stride_w, pad_top, pad_left):
    """[(input offset, tap index fy * kw + fx)] of the taps that output pixel (b, y, x)
    reads, in TFLM's order (the plain kernels' shared gather)."""
    taps = []
    for fy in range(kh - 1, -1, -1):
        iy = _source(y, fy, stride_h, pad_top, ih)
        if iy < 0:
            continue
        for fx in range(kw - 1, -1, -1):
            ix = _source(x, fx, stride_w, pad_left, iw)
            if ix >= 0:
                taps.append((((b * ih + iy) * iw + ix) * ic, fy * kw + fx))
    return taps


def transpose_conv_s8_plain(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh,
                            kw, stride_h, stride_w, pad_top, pad_left, in_zp, out_zp, act_min,
                            act_max, mult_off=None):
    """Reference int8 transposed convolution; see burn.graph for the argument table.
    mult_off: multiplier_offsets(mult), made once by the runtime (here when None)."""
    if mult_off is None:
        mult_off = multiplier_offsets(mult)
    o = 0
    for b in range(n):
        for y in range(oh):
            for x in range(ow):
                taps = _taps(b, y, x, ih, iw, ic, kh, kw, stride_h, stride_w, pad_top, pad_left)
                for c in range(oc):
                    acc = 0
                    for ib, tap in taps:
                        wb = (c * kh * kw + tap) * ic
                        for k in range(ic):
                            v = ((inp[ib + k] + 128) & 255) - 128
                            q = ((w[wb + k] + 128) & 255) - 128
                            acc += (v - in_zp) * q
                    out[o] = requantize_channel(acc, bias, mult_off, shift, c, out_zp, act_min,
                                                act_max)
                    o += 1


def transpose_conv_s16(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                       stride_h, stride_w, pad_top, pad_left, in_zp, out_zp, act_min,
                       act_max):
    """int16x8 transposed convolution (TFLM's: the int64 sum plus the bias, requantized by the
    int64 MultiplyByQuantizedMultiplier, clamped; in_zp and out_zp are 0)."""
    o = 0
    for b in range(n):
        for y in range(oh):
            for x in range(ow):
                taps = _taps(b, y, x, ih, iw, ic, kh, kw, stride_h, stride_w, pad_top, pad_left)
                for c in range(oc):
                    acc = bias[c]
                    for ib, tap in taps:
                        wb = (c * kh * kw + tap) * ic
                        for k in range(ic):
                            acc += inp[ib + k] * (((w[wb + k] + 128) & 255) - 128)
                    out[o] = clamp(mbqm64(acc, mult[c], shift[c]), act_min, act_max)
                    o += 1


transpose_conv_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .transpose_conv2d_viper import transpose_conv_s8_fast
    except SyntaxError:
        pass

transpose_conv_s8 = transpose_conv_s8_fast or transpose_conv_s8_plain


def transpose_conv_f32(inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw, stride_h,
                       stride_w, pad_top, pad_left, act):
    """float32 transposed convolution; bias may be None. See burn.graph."""
    o = 0
    for b in range(n):
        for y in range(oh):
            for x in range(ow):
                taps = _taps(b, y, x, ih, iw, ic, kh, kw, stride_h, stride_w, pad_top, pad_left)
                for c in range(oc):
                    acc = 0.0
                    for ib, tap in taps:
                        wb = (c * kh * kw + tap) * ic
                        for k in range(ic):
                            acc += inp[ib + k] * w[wb + k]
                    out[o] = apply_act(acc if bias is None else acc + bias[c], act)
                    o += 1


_STEP = (("stride_h", 1, 65536), ("stride_w", 1, 65536), ("pad_top", 0, 65536),
         ("pad_left", 0, 65536))


def prepare(step, ctx, variant):
    """Check a transpose_conv2d op and bind its kernel (burn.bst_ops.prepare). Every read is
    bounds-checked in the kernels, so any stride and padding in range is safe."""
    from burn import bst_ops as b

    b._arity(step, 1)
    dt = b._dtype(step, ctx)
    (n, ih, iw, ic), (oh, ow, oc) = b._nhwc(step, ctx, dt)
    w, (woc, kh, kw, wic) = b._const(step, ctx, "w", "int8" if dt == "int16" else dt, rank=4)
    if woc != oc or wic != ic or kh > 4096 or kw > 4096:
        step.fail("weights %s do not fit %d input / %d output channels"
                  % ((woc, kh, kw, wic), ic, oc))
    step.macs = n * ih * iw * ic * kh * kw * oc
    x, y = b._xy(step, ctx)
    b._bind(step, "transpose_conv2d", "transpose_conv_" + {"int8": "s8", "int16": "s16"}.get(
        dt, "f32"), variant)
    step.a = (x, w) + b._weights_tail(step, ctx, dt, oc) + (y, n, ih, iw, ic, oh, ow, oc, kh,
                                                             kw) + step.ps(_STEP)
    if dt == "int16":  # zero points 0, shifts within TFLM's int64 requantization
        from burn.graph import s16_prepare

        step.a += step.ps((("in_zp", 0, 0), ("out_zp", 0, 0))) + s16_prepare.clamp16(step)
        s16_prepare.int64_shifts(step, oc)
        return
    step.a += b._quant_tail(step, dt)
    b._plain_mult_off(step, dt)

"""int16x8 convolution with groups (NHWC, OHWI int8 filters), as TFLM's reference
ConvPerChannel for int16: zero padding, no zero points (TFLM's int16 kernel has none),
per-output-channel multipliers; `wide` as in burn.graph.s16_fully_connected."""

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

"""int8 2-D convolution (NHWC, OHWI weights, groups), bit-exact with TFLM ConvPerChannel."""

import sys

from .fixedpoint import multiplier_offsets, requantize_channel


def conv_s8_plain(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
                  stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, in_zp, out_zp,
                  act_min, act_max, mult_off=None):
    """Reference int8 conv; see burn.graph for the argument table.
    mult_off: multiplier_offsets(mult), made once by the runtime (here when None)."""
    if mult_off is None:
        mult_off = multiplier_offsets(mult)
    gic = ic // groups
    goc = oc // groups
    wstride = kh * kw * gic
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            for x in range(ow):
                x0 = x * stride_w - pad_left
                for c in range(oc):
                    cin0 = (c // goc) * gic
                    acc = 0
                    for fy in range(kh):
                        iy = y0 + fy * dil_h
                        if iy < 0 or iy >= ih:
                            continue
                        row = (b * ih + iy) * iw
                        for fx in range(kw):
                            ix = x0 + fx * dil_w
                            if ix < 0 or ix >= iw:
                                continue
                            ib = (row + ix) * ic + cin0
                            wb = c * wstride + (fy * kw + fx) * gic
                            for k in range(gic):
                                v = ((inp[ib + k] + 128) & 255) - 128
                                q = ((w[wb + k] + 128) & 255) - 128
                                acc += (v - in_zp) * q
                    out[o] = requantize_channel(acc, bias, mult_off, shift, c, out_zp, act_min,
                                                act_max)
                    o += 1


conv_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_conv_viper import conv_s8_fast
    except SyntaxError:
        pass

conv_s8 = conv_s8_fast or conv_s8_plain

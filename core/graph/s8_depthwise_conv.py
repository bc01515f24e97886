"""int8 depthwise convolution (NHWC, weights [1, kh, kw, ic * depth_mult]), bit-exact with
TFLM DepthwiseConvPerChannel."""

import sys

from .fixedpoint import multiplier_offsets, requantize_channel


def depthwise_conv_s8_plain(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow,
                            depth_mult, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
                            pad_left, in_zp, out_zp, act_min, act_max, mult_off=None):
    """Reference int8 depthwise conv; see burn.graph for the argument table.
    mult_off: multiplier_offsets(mult), made once by the runtime (here when None)."""
    if mult_off is None:
        mult_off = multiplier_offsets(mult)
    oc = ic * depth_mult
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            for x in range(ow):
                x0 = x * stride_w - pad_left
                for c in range(oc):
                    ci = c // depth_mult
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
                            v = ((inp[(row + ix) * ic + ci] + 128) & 255) - 128
                            q = ((w[(fy * kw + fx) * oc + c] + 128) & 255) - 128
                            acc += (v - in_zp) * q
                    out[o] = requantize_channel(acc, bias, mult_off, shift, c, out_zp, act_min,
                                                act_max)
                    o += 1


depthwise_conv_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_depthwise_conv_viper import depthwise_conv_s8_fast
    except SyntaxError:
        pass

depthwise_conv_s8 = depthwise_conv_s8_fast or depthwise_conv_s8_plain

"""int8 depthwise convolution (NHWC, weights [1, kh, kw, ic * depth_mult]), bit-exact with
TFLM DepthwiseConvPerChannel."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

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
    import micropython

    from .fixedpoint import load_s32_fast, mbqm_fast

    @micropython.viper
    def depthwise_conv_s8_fast(inp, w, bias, mult, shift, out, n: int, ih: int, iw: int,
                               ic: int, oh: int, ow: int, depth_mult: int, kh: int, kw: int,
                               stride_h: int, stride_w: int, dil_h: int, dil_w: int,
                               pad_top: int, pad_left: int, in_zp: int, out_zp: int,
                               act_min: int, act_max: int):
        """Viper twin of depthwise_conv_s8_plain."""
        pi = ptr8(inp)
        pw = ptr8(w)
        pm = ptr32(mult)
        po = ptr8(out)
        oc = ic * depth_mult
        o = 0
        b = 0
        while b < n:
            y = 0
            while y < oh:
                y0 = y * stride_h - pad_top
                x = 0
                while x < ow:
                    x0 = x * stride_w - pad_left
                    c = 0
                    while c < oc:
                        ci = c // depth_mult
                        acc = 0
                        fy = 0
                        while fy < kh:
                            iy = y0 + fy * dil_h
                            if 0 <= iy < ih:
                                row = (b * ih + iy) * iw
                                fx = 0
                                while fx < kw:
                                    ix = x0 + fx * dil_w
                                    if 0 <= ix < iw:
                                        v = ((int(pi[(row + ix) * ic + ci]) ^ 0x80) - 0x80)
                                        q = (int(pw[(fy * kw + fx) * oc + c]) ^ 0x80) - 0x80
                                        acc += (v - in_zp) * q
                                    fx += 1
                            fy += 1
                        acc += int(load_s32_fast(bias, c))
                        acc = int(mbqm_fast(acc, int(pm[c]) - 0x3FFFFFFF - 1,
                                            load_s32_fast(shift, c))) + out_zp
                        if acc < act_min:
                            acc = act_min
                        elif acc > act_max:
                            acc = act_max
                        po[o] = acc
                        o += 1
                        c += 1
                    x += 1
                y += 1
            b += 1

depthwise_conv_s8 = depthwise_conv_s8_fast or depthwise_conv_s8_plain

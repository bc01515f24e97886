"""Viper twins of burn.graph.s8_depthwise_conv, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

import micropython

from .fixedpoint_viper import load_s32_fast, mbqm_fast


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

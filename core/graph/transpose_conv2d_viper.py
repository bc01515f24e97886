"""Viper twins of burn.graph.transpose_conv2d, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

import micropython

from .fixedpoint_viper import load_s32_fast, mbqm_fast


@micropython.viper
def transpose_conv_s8_fast(inp, w, bias, mult, shift, out, n: int, ih: int, iw: int,
                           ic: int, oh: int, ow: int, oc: int, kh: int, kw: int,
                           stride_h: int, stride_w: int, pad_top: int, pad_left: int,
                           in_zp: int, out_zp: int, act_min: int, act_max: int):
    """Viper twin of transpose_conv_s8_plain."""
    pi = ptr8(inp)
    pw = ptr8(w)
    pm = ptr32(mult)
    po = ptr8(out)
    o = 0
    b = 0
    while b < n:
        y = 0
        while y < oh:
            x = 0
            while x < ow:
                c = 0
                while c < oc:
                    acc = 0
                    fy = kh - 1
                    while fy >= 0:
                        ty = y + pad_top - fy
                        if ty >= 0 and ty % stride_h == 0 and ty // stride_h < ih:
                            row = (b * ih + ty // stride_h) * iw
                            fx = kw - 1
                            while fx >= 0:
                                tx = x + pad_left - fx
                                if tx >= 0 and tx % stride_w == 0 and tx // stride_w < iw:
                                    ib = (row + tx // stride_w) * ic
                                    wb = ((c * kh + fy) * kw + fx) * ic
                                    k = 0
                                    while k < ic:
                                        v = ((int(pi[ib + k]) ^ 0x80) - 0x80) - in_zp
                                        acc += v * ((int(pw[wb + k]) ^ 0x80) - 0x80)
                                        k += 1
                                fx -= 1
                        fy -= 1
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

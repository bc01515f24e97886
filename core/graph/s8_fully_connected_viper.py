"""Viper twins of burn.graph.s8_fully_connected, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

import micropython

from .fixedpoint_viper import load_s32_fast, mbqm_fast


@micropython.viper
def fully_connected_s8_fast(inp, w, bias, mult, shift, out, batches: int,
                            in_features: int, out_features: int, in_zp: int,
                            out_zp: int, act_min: int, act_max: int):
    """Viper twin of fully_connected_s8_plain."""
    pi = ptr8(inp)
    pw = ptr8(w)
    pm = ptr32(mult)
    po = ptr8(out)
    o = 0
    b = 0
    while b < batches:
        ib = b * in_features
        c = 0
        while c < out_features:
            wb = c * in_features
            acc = 0
            k = 0
            while k < in_features:
                v = ((int(pi[ib + k]) ^ 0x80) - 0x80) - in_zp
                acc += v * ((int(pw[wb + k]) ^ 0x80) - 0x80)
                k += 1
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
        b += 1

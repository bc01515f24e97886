"""Viper twins of burn.graph.s8_mul, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def mul_s8_fast(a, b, out, size: int, b_size: int, a_zp: int, b_zp: int, out_zp: int,
                mult: int, shift: int, act_min: int, act_max: int):
    """Viper twin of mul_s8_plain."""
    pa = ptr8(a)
    pb = ptr8(b)
    po = ptr8(out)
    m = mult - 0x3FFFFFFF - 1
    j = 0
    i = 0
    while i < size:
        x = ((int(pa[i]) ^ 0x80) - 0x80) - a_zp
        y = ((int(pb[j]) ^ 0x80) - 0x80) - b_zp
        j += 1
        if j == b_size:
            j = 0
        r = int(mbqm_fast(x * y, m, shift)) + out_zp
        if r < act_min:
            r = act_min
        elif r > act_max:
            r = act_max
        po[i] = r
        i += 1

"""Viper twins of burn.graph.s8_add, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def arith_fast(a, b, out, size: int, b_size: int, a_zp: int, a_mult: int, a_shift: int,
               b_zp: int, b_mult: int, b_shift: int, out_zp: int, out_mult: int,
               out_shift: int, left_shift: int, act_min: int, act_max: int, op: int):
    """Viper twin of arith_plain."""
    pa = ptr8(a)
    pb = ptr8(b)
    po = ptr8(out)
    # Multipliers travel to mbqm_fast offset by -2**30, as small ints (see fixedpoint).
    am = a_mult - 0x3FFFFFFF - 1
    bm = b_mult - 0x3FFFFFFF - 1
    om = out_mult - 0x3FFFFFFF - 1
    j = 0
    i = 0
    while i < size:
        x = int(mbqm_fast((((int(pa[i]) ^ 0x80) - 0x80) - a_zp) << left_shift, am,
                          a_shift))
        y = int(mbqm_fast((((int(pb[j]) ^ 0x80) - 0x80) - b_zp) << left_shift, bm,
                          b_shift))
        j += 1
        if j == b_size:
            j = 0
        if op == 3:  # ADD
            d = x + y
        elif op == 1:
            d = y - x
        else:
            d = x - y
            if op == 2:  # SQUARE
                d = d * d
        r = int(mbqm_fast(d, om, out_shift)) + out_zp
        if r < act_min:
            r = act_min
        elif r > act_max:
            r = act_max
        po[i] = r
        i += 1


def add_s8_fast(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max):
    """Viper twin of add_s8_plain."""
    arith_fast(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max, 3)  # s8_add.ADD

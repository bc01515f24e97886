"""Viper twins of burn.graph.s8_arith, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .s8_add_viper import arith_fast


def sub_s8_fast(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap):
    """Viper twin of sub_s8_plain."""
    arith_fast(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap)


def squared_difference_s8_fast(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp,
                               b_mult, b_shift, out_zp, out_mult, out_shift, left_shift,
                               act_min, act_max):
    """Viper twin of squared_difference_s8_plain."""
    arith_fast(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max, 2)  # s8_add.SQUARE


@micropython.viper
def _extreme_fast(a, b, out, size: int, b_size: int, minimum: int):
    pa = ptr8(a)
    pb = ptr8(b)
    po = ptr8(out)
    j = 0
    i = 0
    while i < size:
        x = (int(pa[i]) ^ 0x80) - 0x80
        y = (int(pb[j]) ^ 0x80) - 0x80
        j += 1
        if j == b_size:
            j = 0
        if minimum:
            if y < x:
                x = y
        elif y > x:
            x = y
        po[i] = x
        i += 1


def maximum_s8_fast(a, b, out, size, b_size):
    """Viper twin of maximum_s8_plain."""
    _extreme_fast(a, b, out, size, b_size, 0)


def minimum_s8_fast(a, b, out, size, b_size):
    """Viper twin of minimum_s8_plain."""
    _extreme_fast(a, b, out, size, b_size, 1)

"""int8 elementwise add with different input scales, bit-exact with TFLM (left shift 20),
and the loop it shares with burn.graph.s8_arith's SUB and SQUARED_DIFFERENCE."""

import sys

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets

# The `op` of arith_plain / arith_fast: 0 a - b, 1 b - a (SUB's `swap`), 2 (a - b)**2, 3 a + b.
SQUARE = 2
ADD = 3


def arith_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, op, mult_off):
    """out[i] = `op` of a[i] and b[i % b_size], each input taken to its offset, shifted left
    and scaled first, the result requantized and clamped. mult_off: the three multipliers as
    offsets, from mult_offsets (here when None)."""
    if mult_off is None:
        mult_off = mult_offsets(a_mult, b_mult, out_mult)
    a_mult, b_mult, out_mult = mult_off
    j = 0
    for i in range(size):
        x = _mbqm((((a[i] + 128) & 255) - 128 - a_zp) << left_shift, a_mult, a_shift)
        y = _mbqm((((b[j] + 128) & 255) - 128 - b_zp) << left_shift, b_mult, b_shift)
        j += 1
        if j == b_size:
            j = 0
        if op == ADD:
            d = x + y
        elif op == 1:
            d = y - x
        else:
            d = x - y
            if op == SQUARE:
                d *= d
        r = _mbqm(d, out_mult, out_shift) + out_zp
        if r < act_min:
            r = act_min
        elif r > act_max:
            r = act_max
        out[i] = r


def add_s8_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                 out_zp, out_mult, out_shift, left_shift, act_min, act_max, mult_off=None):
    """Reference int8 add: out[i] = a[i] + b[i % b_size] in real values, requantized.
    mult_off: the three multipliers as offsets, from mult_offsets (here when None)."""
    arith_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, ADD, mult_off)


add_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_add_viper import add_s8_fast
    except SyntaxError:
        pass

add_s8 = add_s8_fast or add_s8_plain

"""int8 elementwise add with different input scales, bit-exact with TFLM (left shift 20),
and the loop it shares with burn.graph.s8_arith's SUB and SQUARED_DIFFERENCE."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

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


arith_fast = add_s8_fast = None
if sys.implementation.name == "micropython":
    import micropython

    from .fixedpoint import mbqm_fast

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
                   out_zp, out_mult, out_shift, left_shift, act_min, act_max, ADD)

add_s8 = add_s8_fast or add_s8_plain

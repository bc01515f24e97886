"""int8 elementwise add with different input scales, bit-exact with TFLM (left shift 20)."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import sys

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets


def add_s8_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                 out_zp, out_mult, out_shift, left_shift, act_min, act_max, mult_off=None):
    """Reference int8 add: out[i] = a[i] + b[i % b_size] in real values, requantized.
    mult_off: the three multipliers as offsets, from mult_offsets (here when None)."""
    if mult_off is None:
        mult_off = mult_offsets(a_mult, b_mult, out_mult)
    a_mult, b_mult, out_mult = mult_off
    j = 0
    for i in range(size):
        x = (((a[i] + 128) & 255) - 128 - a_zp) << left_shift
        y = (((b[j] + 128) & 255) - 128 - b_zp) << left_shift
        j += 1
        if j == b_size:
            j = 0
        r = _mbqm(_mbqm(x, a_mult, a_shift) + _mbqm(y, b_mult, b_shift), out_mult,
                  out_shift) + out_zp
        if r < act_min:
            r = act_min
        elif r > act_max:
            r = act_max
        out[i] = r


add_s8_fast = None
if sys.implementation.name == "micropython":
    import micropython

    from .fixedpoint import mbqm_fast

    @micropython.viper
    def add_s8_fast(a, b, out, size: int, b_size: int, a_zp: int, a_mult: int, a_shift: int,
                    b_zp: int, b_mult: int, b_shift: int, out_zp: int, out_mult: int,
                    out_shift: int, left_shift: int, act_min: int, act_max: int):
        """Viper twin of add_s8_plain."""
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
            x = (((int(pa[i]) ^ 0x80) - 0x80) - a_zp) << left_shift
            y = (((int(pb[j]) ^ 0x80) - 0x80) - b_zp) << left_shift
            j += 1
            if j == b_size:
                j = 0
            s = int(mbqm_fast(x, am, a_shift)) + int(mbqm_fast(y, bm, b_shift))
            r = int(mbqm_fast(s, om, out_shift)) + out_zp
            if r < act_min:
                r = act_min
            elif r > act_max:
                r = act_max
            po[i] = r
            i += 1

add_s8 = add_s8_fast or add_s8_plain

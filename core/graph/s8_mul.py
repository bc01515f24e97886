"""int8 elementwise multiply, bit-exact with TFLM MulElementwise."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import sys

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets


def binary_s8_plain(a, b, out, size, b_size, a_zp, b_zp, out_zp, act_min, act_max, f, mult,
                    shift, swap):
    """The loop of int8 MUL and DIV: out[i] = f(x, y, mult, shift) + out_zp, clamped, of the
    offset values x = a[i] - a_zp and y = b[i % b_size] - b_zp (f(y, x, ..) when swap)."""
    j = 0
    for i in range(size):
        x = ((a[i] + 128) & 255) - 128 - a_zp
        y = ((b[j] + 128) & 255) - 128 - b_zp
        j += 1
        if j == b_size:
            j = 0
        r = (f(y, x, mult, shift) if swap else f(x, y, mult, shift)) + out_zp
        out[i] = act_min if r < act_min else (act_max if r > act_max else r)


def _product(x, y, mult_off, shift):
    return _mbqm(x * y, mult_off, shift)


def mul_s8_plain(a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min, act_max,
                 mult_off=None):
    """Reference int8 mul: out[i] = a[i] * b[i % b_size] in real values, requantized.
    mult_off: mult_offsets(mult) (here when None)."""
    mult = mult_offsets(mult)[0] if mult_off is None else mult_off[0]
    binary_s8_plain(a, b, out, size, b_size, a_zp, b_zp, out_zp, act_min, act_max, _product,
                    mult, shift, 0)


mul_s8_fast = None
if sys.implementation.name == "micropython":
    import micropython

    from .fixedpoint import mbqm_fast

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

mul_s8 = mul_s8_fast or mul_s8_plain

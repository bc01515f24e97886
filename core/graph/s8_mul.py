"""int8 elementwise multiply, bit-exact with TFLM MulElementwise."""

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
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_mul_viper import mul_s8_fast
    except SyntaxError:
        pass

mul_s8 = mul_s8_fast or mul_s8_plain

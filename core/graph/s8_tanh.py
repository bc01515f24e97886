"""int8 tanh, bit-exact with TFLM reference_integer_ops::Tanh (gemmlowp, Q4.27)."""

from .fixedpoint import multiply_by_quantized_multiplier as _mbqm
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint_math import tanh as _tanh
from .s8_lookup import lookup_s8_fast, make_table


def tanh_s8_plain(inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
    """Reference int8 tanh; output scale 1/128, zero point 0. Parameters from
    fixedpoint.tanh_params."""
    for i in range(size):
        x = ((inp[i] + 128) & 255) - 128 - in_zp
        if x <= -range_radius:
            v = -128
        elif x >= range_radius:
            v = 127
        else:
            v = _rdbp(_tanh(_mbqm(x, in_mult, in_left_shift), 4), 24)
            v = -128 if v < -128 else (127 if v > 127 else v)
        out[i] = v


def tanh_table(in_zp, in_mult, in_left_shift, range_radius):
    """The 256-entry int8 table of tanh_s8_plain for these parameters (s8_lookup)."""
    return make_table(tanh_s8_plain, in_zp, in_mult, in_left_shift, range_radius)


tanh_s8_fast = None
if lookup_s8_fast is not None:

    def tanh_s8_fast(inp, out, size, in_zp, in_mult, in_left_shift, range_radius,
                     table=None):
        """Viper twin of tanh_s8_plain: a lookup in `table`, tanh_table of the same
        parameters (made once by the runtime; here when None)."""
        if table is None:
            table = tanh_table(in_zp, in_mult, in_left_shift, range_radius)
        lookup_s8_fast(inp, out, size, table)

tanh_s8 = tanh_s8_fast or tanh_s8_plain

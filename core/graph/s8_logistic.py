"""int8 logistic, bit-exact with TFLM reference_integer_ops::Logistic (gemmlowp, Q4.27)."""

from .fixedpoint import multiply_by_quantized_multiplier as _mbqm
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint_math import logistic as _logistic
from .s8_lookup import lookup_s8_fast, make_table


def logistic_s8_plain(inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
    """Reference int8 logistic; output scale 1/256, zero point -128. Parameters from
    fixedpoint.logistic_params."""
    for i in range(size):
        x = ((inp[i] + 128) & 255) - 128 - in_zp
        if x <= -range_radius:
            v = -128
        elif x >= range_radius:
            v = 127
        else:
            v = _rdbp(_logistic(_mbqm(x, in_mult, in_left_shift), 4), 23) - 128
            v = -128 if v < -128 else (127 if v > 127 else v)
        out[i] = v


def logistic_table(in_zp, in_mult, in_left_shift, range_radius):
    """The 256-entry int8 table of logistic_s8_plain for these parameters (s8_lookup)."""
    return make_table(logistic_s8_plain, in_zp, in_mult, in_left_shift, range_radius)


logistic_s8_fast = None
if lookup_s8_fast is not None:

    def logistic_s8_fast(inp, out, size, in_zp, in_mult, in_left_shift, range_radius,
                     table=None):
        """Viper twin of logistic_s8_plain: a lookup in `table`, logistic_table of the same
        parameters (made once by the runtime; here when None)."""
        if table is None:
            table = logistic_table(in_zp, in_mult, in_left_shift, range_radius)
        lookup_s8_fast(inp, out, size, table)

logistic_s8 = logistic_s8_fast or logistic_s8_plain

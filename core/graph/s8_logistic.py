"""int8 logistic, bit-exact with TFLM reference_integer_ops::Logistic (gemmlowp, Q4.27).
Tanh (s8_tanh) is the same loop with another function, output shift and offset."""

from .fixedpoint import multiply_by_quantized_multiplier as _mbqm
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint_math import logistic as _logistic
from .s8_lookup import make_table, table_twin


def q4_activation(inp, out, size, in_zp, in_mult, in_left_shift, range_radius, fn, shift,
                  offset):
    """TFLM's int8 logistic / tanh loop: the input rescaled to Q4.27, `fn` (gemmlowp's
    logistic or tanh, Q0.31 out), divided by 2**shift, plus `offset`, saturated."""
    for i in range(size):
        x = ((inp[i] + 128) & 255) - 128 - in_zp
        if x <= -range_radius:
            v = -128
        elif x >= range_radius:
            v = 127
        else:
            v = _rdbp(fn(_mbqm(x, in_mult, in_left_shift), 4), shift) + offset
            v = -128 if v < -128 else (127 if v > 127 else v)
        out[i] = v


def logistic_s8_plain(inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
    """Reference int8 logistic; output scale 1/256, zero point -128. Parameters from
    quant_params.logistic_params."""
    q4_activation(inp, out, size, in_zp, in_mult, in_left_shift, range_radius, _logistic, 23,
                  -128)


def logistic_table(in_zp, in_mult, in_left_shift, range_radius):
    """The 256-entry int8 table of logistic_s8_plain for these parameters (s8_lookup)."""
    return make_table(logistic_s8_plain, in_zp, in_mult, in_left_shift, range_radius)


logistic_s8_fast = table_twin(logistic_table)
logistic_s8 = logistic_s8_fast or logistic_s8_plain

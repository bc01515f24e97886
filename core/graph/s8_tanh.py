"""int8 tanh, bit-exact with TFLM reference_integer_ops::Tanh (gemmlowp, Q4.27)."""

from .fixedpoint_math import tanh as _tanh
from .s8_logistic import q4_activation
from .s8_lookup import make_table, table_twin


def tanh_s8_plain(inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
    """Reference int8 tanh; output scale 1/128, zero point 0. Parameters from
    quant_params.tanh_params."""
    q4_activation(inp, out, size, in_zp, in_mult, in_left_shift, range_radius, _tanh, 24, 0)


def tanh_table(in_zp, in_mult, in_left_shift, range_radius):
    """The 256-entry int8 table of tanh_s8_plain for these parameters (s8_lookup)."""
    return make_table(tanh_s8_plain, in_zp, in_mult, in_left_shift, range_radius)


tanh_s8_fast = table_twin(tanh_table)
tanh_s8 = tanh_s8_fast or tanh_s8_plain

"""The int8 parameters TFLM's Prepare() computes for SUB and SQUARED_DIFFERENCE, from the
tensor scales: (left_shift, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift); and
BATCH_MATMUL's (mult, shift).

SUB's Prepare divides in single precision (ADD's, `burn.graph.quant_params.add_params`, in
double); SQUARED_DIFFERENCE's divides in double, shifts by 7 and quantizes the output
multiplier without the smaller-than-one rule."""

from burn.graph.fixedpoint import to_f32
from burn.graph.quant_params import add_params, quantize_multiplier


def sub_params(a_scale, b_scale, out_scale):
    """TFLM SUB Prepare (int8): left shift 20, the scales' ratios rounded to float32."""
    left_shift = 20
    twice_max = to_f32(2.0 * max(a_scale, b_scale))
    a = quantize_multiplier(to_f32(to_f32(a_scale) / twice_max))
    b = quantize_multiplier(to_f32(to_f32(b_scale) / twice_max))
    out = quantize_multiplier(to_f32(twice_max / to_f32((1 << left_shift) * out_scale)))
    return (left_shift,) + a + b + out


def squared_difference_params(a_scale, b_scale, out_scale, left_shift=7):
    """TFLM SQUARED_DIFFERENCE Prepare: left shift 7 (int8; 0 for int16), double precision."""
    twice_max = 2.0 * max(a_scale, b_scale)
    a = quantize_multiplier(a_scale / twice_max)
    b = quantize_multiplier(b_scale / twice_max)
    out = quantize_multiplier(twice_max * twice_max /
                              to_f32((1 << (2 * left_shift)) * out_scale))
    return (left_shift,) + a + b + out


def sub16_params(a_scale, b_scale, out_scale):
    """TFLM SUB Prepare (int16): ADD's parameters, the ratios in double precision and left
    shift 15 (what the installed TFLM computes for int16, unlike int8 SUB's float32)."""
    return add_params(a_scale, b_scale, out_scale, 15)


PARAMS = {"sub": sub_params, "squared_difference": squared_difference_params}
def squared_difference16_params(a_scale, b_scale, out_scale):
    """TFLM SQUARED_DIFFERENCE Prepare (int16): the int8 parameters with left shift 0."""
    return squared_difference_params(a_scale, b_scale, out_scale, 0)


# the int16 ops of the same converter
PARAMS16 = {"sub": sub16_params, "squared_difference": squared_difference16_params}


def batch_matmul_params(a_scale, b_scale, out_scale):
    """TFLM BATCH_MATMUL Prepare (int8): (mult, shift) of a_scale * b_scale / out_scale, the
    product rounded to float32 first."""
    return quantize_multiplier(to_f32(a_scale * b_scale) / out_scale)

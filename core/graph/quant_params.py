"""TFLite Micro's Prepare() arithmetic: the Q31 multipliers, shifts and ranges each int8 or
int16 op computes from its tensor scales.

They use double precision; on a board whose floats are single precision they would differ,
so the host computes them and stores the integers in the model file. No kernel imports this
module, so a firmware does not freeze it; it stays MicroPython-safe for the kernel tests
that run on the MicroPython unix port and on a board.
"""

import math

from burn.graph.fixedpoint import (
    ACT_NONE,
    ACT_RELU,
    ACT_RELU6,
    ACT_RELU_N1_TO_1,
    round_half_away,
    to_f32,
)


def quantize_multiplier(real):
    """TFLM QuantizeMultiplier: real ~= mult * 2**(shift - 31), mult in [2**30, 2**31)."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = round_half_away(q * 2147483648.0)
    if q_fixed == 2147483648:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def _frexp_multiplier(real):
    # TFLM's logistic/tanh Prepare: frexp + round, without QuantizeMultiplier's fix-ups.
    q, shift = math.frexp(real)
    return round_half_away(q * 2147483648.0), shift


def calculate_input_radius(integer_bits, left_shift, total_signed_bits=31):
    """TFLM CalculateInputRadius: largest input difference that does not saturate."""
    top = ((1 << integer_bits) - 1) * (1 << (total_signed_bits - integer_bits))
    return math.floor(top / (1 << left_shift))


def quant_activation_range(act, scale, zp, lo=-128, hi=127):
    """TFLM CalculateActivationRangeQuantized for an output of range [lo, hi] (int8 by
    default): (act_min, act_max)."""
    scale = to_f32(scale)

    def quantize(f):
        return zp + round_half_away(to_f32(f / scale))

    if act == ACT_RELU:
        return max(lo, quantize(0.0)), hi
    if act == ACT_RELU6:
        return max(lo, quantize(0.0)), min(hi, quantize(6.0))
    if act == ACT_RELU_N1_TO_1:
        return max(lo, quantize(-1.0)), min(hi, quantize(1.0))
    if act == ACT_NONE:
        return lo, hi
    raise ValueError("quant_activation_range: unknown activation code " + str(act))


def conv_output_multipliers(in_scale, w_scales, out_scale):
    """Per-output-channel (mult, shift) arrays of conv/depthwise/fc, as TFLM's Prepare."""
    from array import array

    mult = array("i", [0] * len(w_scales))
    shift = array("i", [0] * len(w_scales))
    for c in range(len(w_scales)):
        mult[c], shift[c] = quantize_multiplier(in_scale * w_scales[c] / out_scale)
    return mult, shift


def add_params(a_scale, b_scale, out_scale, left_shift=20):
    """TFLM add Prepare (left_shift 20 for int8, 15 for int16): (left_shift, a_mult,
    a_shift, b_mult, b_shift, out_mult, out_shift)."""
    twice_max = 2.0 * max(a_scale, b_scale)
    a_mult, a_shift = quantize_multiplier(a_scale / twice_max)
    b_mult, b_shift = quantize_multiplier(b_scale / twice_max)
    out_mult, out_shift = quantize_multiplier(twice_max / ((1 << left_shift) * out_scale))
    return left_shift, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift


def mul_params(a_scale, b_scale, out_scale):
    """TFLM mul Prepare (int8): (mult, shift) of a_scale * b_scale / out_scale."""
    return quantize_multiplier(a_scale * b_scale / out_scale)


def div_params(a_scale, b_scale, out_scale):
    """TFLM div Prepare (int8): (mult, shift) of a_scale / (b_scale * out_scale), the float32
    scales divided in double precision (what the installed TFLM computes: the float32
    quotient misses its rounding ties)."""
    return quantize_multiplier(to_f32(a_scale) / (to_f32(b_scale) * to_f32(out_scale)))


def mean_params(in_scale, out_scale, count):
    """TFLM int8 mean over `count` elements: (mult, shift) with 1/count folded in."""
    mult, shift = quantize_multiplier(in_scale / out_scale)
    s = 0
    while (2 << s) <= count:
        s += 1
    s = min(s, 32, 31 + shift)
    return ((mult << s) // count), shift - s


def requantize_params(in_scale, out_scale):
    """TFLM quantize op, int8 -> int8: (mult, shift) of in_scale / out_scale."""
    return quantize_multiplier(in_scale / out_scale)


def softmax_params(beta, in_scale):
    """TFLM softmax Prepare (int8 in/out): (in_mult, in_left_shift, diff_min)."""
    real = min(beta * in_scale * (1 << 26), 2147483647.0)
    mult, left_shift = quantize_multiplier(real)
    return mult, left_shift, -calculate_input_radius(5, left_shift)


def logistic_params(in_scale):
    """TFLM logistic Prepare (int8): (in_mult, in_left_shift, range_radius)."""
    mult, left_shift = _frexp_multiplier(in_scale * (1 << 27))
    return mult, left_shift, calculate_input_radius(4, left_shift)


def tanh_params(in_scale):
    """TFLM tanh Prepare (int8): (in_mult, in_left_shift, range_radius)."""
    return logistic_params(in_scale)


def sigmoid_params(kind, in_q, out_q):
    """TFLM's int8 LOGISTIC or TANH Prepare (kind "logistic" or "tanh") from the input's and
    the output's (scale, zero point): the op's parameters in_zp, in_mult, in_left_shift and
    range_radius. ValueError unless the output has the one quantization TFLM allows."""
    want = (1.0 / 256, -128) if kind == "logistic" else (1.0 / 128, 0)
    if tuple(out_q) != want:
        raise ValueError("int8 output must have scale %r and zero point %d" % want)
    in_scale, in_zp = in_q
    m, ls, radius = logistic_params(in_scale) if kind == "logistic" else \
        tanh_params(in_scale)
    return {"in_zp": in_zp, "in_mult": m, "in_left_shift": ls, "range_radius": radius}

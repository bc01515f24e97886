"""int8 softmax over the last axis, bit-exact with TFLM's reference (gemmlowp exp)."""

from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _mul
from .fixedpoint_math import count_leading_zeros32, exp_on_negative_values
from .fixedpoint_math import one_over_one_plus_x_for_x_in_0_1 as _recip


def _scaled_exp(diff, in_mult, in_left_shift):
    # exp(beta * in_scale * diff) in Q0.31; diff is in Q5.26 after the rescale.
    return exp_on_negative_values(_mul(diff * (1 << in_left_shift), in_mult), 5)


def softmax_s8_plain(inp, out, rows, depth, in_mult, in_left_shift, diff_min):
    """Reference int8 softmax of [rows, depth]; output scale 1/256, zero point -128.
    in_mult, in_left_shift, diff_min come from fixedpoint.softmax_params."""
    for r in range(rows):
        base = r * depth
        top = -128
        for c in range(depth):
            v = ((inp[base + c] + 128) & 255) - 128
            if v > top:
                top = v
        total = 0
        for c in range(depth):
            diff = ((inp[base + c] + 128) & 255) - 128 - top
            if diff >= diff_min:
                total += _rdbp(_scaled_exp(diff, in_mult, in_left_shift), 12)
        # TFLM's GetReciprocal, inlined so that no tuple is allocated per row.
        headroom = count_leading_zeros32(total)
        scale = _recip((total << headroom) - (1 << 31))
        exponent = 12 - headroom + 23
        for c in range(depth):
            diff = ((inp[base + c] + 128) & 255) - 128 - top
            v = -128
            if diff >= diff_min:
                e = _scaled_exp(diff, in_mult, in_left_shift)
                v = _rdbp(_mul(scale, e), exponent) - 128
                v = -128 if v < -128 else (127 if v > 127 else v)
            out[base + c] = v


softmax_s8_fast = None
softmax_s8 = softmax_s8_plain

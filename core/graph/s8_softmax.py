"""int8 softmax over the last axis, bit-exact with TFLM's reference (gemmlowp exp).

The viper twin reads exp of each input's difference to its row maximum from a table of the
256 possible differences (`softmax_table`, made with the plain arithmetic) and computes the
per-row reciprocal and the output scaling in 32-bit machine words.
"""

import sys
from array import array

from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _mul
from .fixedpoint_math import count_leading_zeros32, exp_on_negative_values
from .fixedpoint_math import one_over_one_plus_x_for_x_in_0_1 as _recip


def _scaled_exp(diff, in_mult, in_left_shift):
    # exp(beta * in_scale * diff) in Q0.31; diff is in Q5.26 after the rescale.
    return exp_on_negative_values(_mul(diff * (1 << in_left_shift), in_mult), 5)


def row_max_s8(inp, base, depth):
    """The largest of the `depth` int8 values from inp[base] (raw bytes read as int8)."""
    top = -128
    for c in range(depth):
        v = ((inp[base + c] + 128) & 255) - 128
        if v > top:
            top = v
    return top


def exp_sum_s8(inp, base, depth, top, in_mult, in_left_shift, diff_min):
    """The row's sum of exp(x - top) (top: its maximum) over the differences at or above
    diff_min, each Q0.31 exp rounded to Q12.19: softmax's and log softmax's denominator
    (below 2**31 for the 4095 values a row may hold)."""
    total = 0
    for c in range(depth):
        diff = ((inp[base + c] + 128) & 255) - 128 - top
        if diff >= diff_min:
            total += _rdbp(_scaled_exp(diff, in_mult, in_left_shift), 12)
    return total


def softmax_s8_plain(inp, out, rows, depth, in_mult, in_left_shift, diff_min):
    """Reference int8 softmax of [rows, depth]; output scale 1/256, zero point -128.
    in_mult, in_left_shift, diff_min come from quant_params.softmax_params."""
    softmax_s8_bits(inp, out, rows, depth, in_mult, in_left_shift, diff_min, 8)


def softmax_s8_bits(inp, out, rows, depth, in_mult, in_left_shift, diff_min, out_bits):
    """softmax_s8_plain with outputs of `out_bits` bits (8, or 16 for int8 SOFTMAX to int16:
    scale 1/65536, zero point -32768), as TFLM's Softmax<int8_t, OutputT>."""
    lo, hi = -(1 << (out_bits - 1)), (1 << (out_bits - 1)) - 1
    for r in range(rows):
        base = r * depth
        top = row_max_s8(inp, base, depth)
        total = exp_sum_s8(inp, base, depth, top, in_mult, in_left_shift, diff_min)
        # TFLM's GetReciprocal, inlined so that no tuple is allocated per row.
        headroom = count_leading_zeros32(total)
        scale = _recip((total << headroom) - (1 << 31))
        exponent = 12 - headroom + 31 - out_bits
        for c in range(depth):
            diff = ((inp[base + c] + 128) & 255) - 128 - top
            v = lo
            if diff >= diff_min:
                e = _scaled_exp(diff, in_mult, in_left_shift)
                v = _rdbp(_mul(scale, e), exponent) + lo
                v = lo if v < lo else (hi if v > hi else v)
            out[base + c] = v


def softmax_table(in_mult, in_left_shift, diff_min):
    """array('i') of the Q0.31 exp of the differences 0, -1, .. -255 to the row maximum
    (entry k is diff -k), 0 where the difference is below diff_min (it then adds nothing
    to the row's sum and its output is -128, as when the plain kernel skips it)."""
    table = array("i", bytes(1024))
    for k in range(256):
        if -k >= diff_min:
            table[k] = _scaled_exp(-k, in_mult, in_left_shift)
    return table


softmax_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_softmax_viper import softmax_s8_fast
    except SyntaxError:
        pass

softmax_s8 = softmax_s8_fast or softmax_s8_plain

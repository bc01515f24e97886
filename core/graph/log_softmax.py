"""The optional op `log_softmax` (burn.graph.ops.OPTIONAL): TFLite LOG_SOFTMAX over the last
axis of [rows, depth]. int8 is bit-exact with TFLM's LogSoftmaxQuantized (gemmlowp's
exp and log in fixed point; output scale 16/256, zero point 127); float32 is
x - max - log(sum(exp(x - max))).

The int8 viper twin reads each row element's exp term and scaled difference to the row
maximum from a table of the 256 possible differences (`log_softmax_table`, made with the
plain arithmetic); the per-row log stays plain Python (once per row).
"""

import math
import sys
from array import array

from burn.bst_ops import _bind, _dtype, _table, _unary

from .fixedpoint import INT32_MIN
from .fixedpoint import multiply_by_quantized_multiplier as _mbqm
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _mul
from .fixedpoint_math import (
    _rounding_half_sum,
    count_leading_zeros32,
    exp_on_negative_values,
    one_over_one_plus_x_for_x_in_0_1,
    saturating_mul_pot,
)
from .s8_softmax import exp_sum_s8, row_max_s8

_MAX_DEPTH = 4095  # flex_c's softmax limit: a row's sum of exps stays within Q12


def _wrap(x):
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _sat(x):
    return -0x80000000 if x < -0x80000000 else (0x7FFFFFFF if x > 0x7FFFFFFF else x)


def log_q5(x):
    """gemmlowp-style log(x) of a Q12.19 raw x >= 1.0, as TFLM's
    log_x_for_x_greater_than_or_equal_to_1<5>: a Q5.26 raw."""
    quarter = 1 << 23  # 1/4 with 6 integer bits
    sqrt_half, sqrt_sqrt_half = 1518500250, 1805811301
    head_a = count_leading_zeros32(x)
    r_a = saturating_mul_pot(_mul(saturating_mul_pot(x, head_a - 1), sqrt_half), 1)
    pow_a = _sat(saturating_mul_pot(12 - head_a, 25) + quarter)
    head_b = count_leading_zeros32(_mul(x, sqrt_half)) - 1
    r_b = saturating_mul_pot(x, head_b)
    pow_b = _sat(saturating_mul_pot(12 - head_b, 25) - quarter)
    r = min(r_a, r_b)
    p = _rounding_half_sum(r, sqrt_sqrt_half)
    q = _wrap(2 * _wrap(r - sqrt_sqrt_half))
    sq = _mul(q, q)
    num = _wrap(_mul(q, r) + _mul(_mul(q, sq), 117049297))
    denom = _wrap(_mul(p, _wrap(1057819769 + q + _mul(127690142, sq))) + _mul(638450708, q))
    total = _wrap(_mul(max(pow_a, pow_b), 1488522236) +
                  _mul(_rdbp(num, 6), one_over_one_plus_x_for_x_in_0_1(denom)))
    return saturating_mul_pot(total, 1)


def _low(log_sum, diff_min, reverse_mult, reverse_shift):
    # the smallest difference whose output is not -128: TFLM's adjusted diff_min
    return max(diff_min - 1, _mbqm(_wrap(log_sum + INT32_MIN), reverse_mult, reverse_shift))


def log_softmax_s8_plain(inp, out, rows, depth, in_mult, in_left_shift, reverse_mult,
                         reverse_shift, diff_min):
    """int8 log softmax of each row (TFLM LogSoftmaxQuantized). Parameters from
    quant_params.softmax_params and the reverse scaling quantize_multiplier(2**(31 -
    in_left_shift) / in_mult)."""
    for row in range(rows):
        base = row * depth
        top = row_max_s8(inp, base, depth)
        log_sum = log_q5(exp_sum_s8(inp, base, depth, top, in_mult, in_left_shift, diff_min))
        low = _low(log_sum, diff_min, reverse_mult, reverse_shift)
        for c in range(depth):
            d = ((inp[base + c] + 128) & 255) - 128 - top
            v = -128
            if d > low:
                v = _rdbp(_wrap(_mbqm(d, in_mult, in_left_shift) - log_sum), 22) + 127
                v = -128 if v < -128 else (127 if v > 127 else v)
            out[base + c] = v


def log_softmax_table(in_mult, in_left_shift, diff_min):
    """array('i') of 512: entry k < 256 is the Q0.31 exp of the difference -k to the row
    maximum, divided by 2**12 as the row sum adds it (0 below diff_min); entry 256 + k is
    that difference scaled to Q5.26."""
    table = array("i", bytes(2048))
    for k in range(256):
        scaled = _mbqm(-k, in_mult, in_left_shift)
        table[256 + k] = scaled
        if -k >= diff_min:
            table[k] = _rdbp(exp_on_negative_values(scaled, 5), 12)
    return table


log_softmax_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .log_softmax_viper import log_softmax_s8_fast
    except SyntaxError:
        pass

log_softmax_s8 = log_softmax_s8_fast or log_softmax_s8_plain


def log_softmax_f32(inp, out, rows, depth):
    """float32 log softmax of each row of [rows, depth]."""
    for row in range(rows):
        base = row * depth
        top = inp[base]
        for c in range(1, depth):
            top = inp[base + c] if inp[base + c] > top else top
        total = 0.0
        for c in range(depth):
            total += math.exp(inp[base + c] - top)
        log_sum = math.log(total)
        for c in range(depth):
            out[base + c] = inp[base + c] - top - log_sum


def prepare(step, ctx, variant):
    """Check and bind a `log_softmax` op (burn.bst_ops.prepare): rows of the input's last
    dim; int8 takes softmax's input scaling, its reverse and diff_min."""
    dt = _dtype(step, ctx)
    if dt not in ("int8", "float32"):
        step.fail("tensors must be int8 or float32")
    x, y, size = _unary(step, ctx, dt, dt)
    depth = ctx.tensors[step.ins[0]][0][-1]
    if depth > _MAX_DEPTH:
        step.fail("depth %d: more than %d classes" % (depth, _MAX_DEPTH))
    step.a = (x, y, size // depth, depth)
    if dt == "float32":
        _bind(step, "log_softmax", "log_softmax_f32", variant)
        return
    q = step.ps((("in_mult", 0, 0x7FFFFFFF), ("in_left_shift", 0, 31),
                 ("reverse_mult", 0, 0x7FFFFFFF), ("reverse_shift", -31, 0),
                 ("diff_min", -0x7FFFFFFF, 0)))
    step.a += q
    _bind(step, "log_softmax", "log_softmax_s8", variant)
    _table(step, "log_softmax", "log_softmax_table", (q[0], q[1], q[4]))

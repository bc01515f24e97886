"""int8 SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM, bit-exact with TFLM, and the prepare
step of these optional ops (burn.graph.ops.OPTIONAL) for int8 and float32 alike.

SUB and SQUARED_DIFFERENCE scale each input as ADD does (burn.graph.s8_add: the input's
offset, a left shift, then its multiplier) and subtract the scaled values; SQUARED_DIFFERENCE
squares the difference (left shift 7 instead of 20). `swap` 1 makes SUB compute b - a: the
second input is always the one that repeats, so a TFLite SUB whose first operand repeats is
imported with its operands swapped. MAXIMUM and MINIMUM compare the stored int8 values, as
TFLM does whatever the scales.
"""

import sys

from burn.bst_ops import _ACT, _ADD_Q, _bind, _clamp, _plain_mult_off, binary_head

from .s8_add import SQUARE, arith_plain

_SWAP = (("swap", 0, 1),)
# the input multipliers stay at most one half, so the square of the difference of two
# scaled int8 values (left shift at most 7) fits int32
_SQUARED_Q = _ADD_Q[:-1] + (("left_shift", 0, 7),)
_HALF = 1 << 30


def sub_s8_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                 out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap,
                 mult_off=None):
    """Reference int8 SUB: out[i] = a[i] - b[i % b_size] in real values (b - a when swap
    is 1), requantized. mult_off: the three multipliers as offsets (see s8_add)."""
    arith_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap, mult_off)


def squared_difference_s8_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult,
                                b_shift, out_zp, out_mult, out_shift, left_shift, act_min,
                                act_max, mult_off=None):
    """Reference int8 SQUARED_DIFFERENCE: out[i] = (a[i] - b[i % b_size])**2 in real
    values, requantized."""
    arith_plain(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, SQUARE, mult_off)


def _extreme_plain(a, b, out, size, b_size, minimum):
    j = 0
    for i in range(size):
        x = ((a[i] + 128) & 255) - 128
        y = ((b[j] + 128) & 255) - 128
        j += 1
        if j == b_size:
            j = 0
        out[i] = x if (x < y if minimum else x > y) else y


def maximum_s8_plain(a, b, out, size, b_size):
    """out[i] = max(a[i], b[i % b_size]) of the stored int8 values."""
    _extreme_plain(a, b, out, size, b_size, False)


def minimum_s8_plain(a, b, out, size, b_size):
    """out[i] = min(a[i], b[i % b_size]) of the stored int8 values."""
    _extreme_plain(a, b, out, size, b_size, True)


sub_s8_fast = squared_difference_s8_fast = maximum_s8_fast = minimum_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_arith_viper import (
            maximum_s8_fast,
            minimum_s8_fast,
            squared_difference_s8_fast,
            sub_s8_fast,
        )
    except SyntaxError:
        pass

sub_s8 = sub_s8_fast or sub_s8_plain
squared_difference_s8 = squared_difference_s8_fast or squared_difference_s8_plain
maximum_s8 = maximum_s8_fast or maximum_s8_plain
minimum_s8 = minimum_s8_fast or minimum_s8_plain


def prepare(step, ctx, variant):
    """Check and bind a sub, squared_difference, maximum or minimum op (burn.bst_ops)."""
    dt, head = binary_head(step, ctx)
    kind = step.kind
    if dt == "float32":
        _bind(step, "f32_arith", kind + "_f32", variant)
        step.a = head + (step.ps(_ACT + _SWAP) if kind == "sub" else ())
        return
    _bind(step, "s8_arith", kind + "_s8", variant)
    if kind in ("maximum", "minimum"):
        step.a = head
        return
    q = step.ps(_ADD_Q if kind == "sub" else _SQUARED_Q) + _clamp(step)
    if kind != "sub" and ((q[2] == 0 and q[1] > _HALF) or (q[5] == 0 and q[4] > _HALF)):
        step.fail("an input multiplier above one half: the squared difference overflows int32")
    step.a = head + q + (step.ps(_SWAP) if kind == "sub" else ())
    _plain_mult_off(step, dt, q[1], q[4], q[7])

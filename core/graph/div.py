"""The optional op `div` (burn.graph.ops.OPTIONAL): TFLite's float32 DIV, FLOOR_DIV and
FLOOR_MOD (`op` 0, 1, 2), b broadcast as b[i % b_size], as TFLM's reference kernels compute
them; DIV applies its fused activation `act`. `swap` 1 computes b op a: the second input is
always the one that repeats, so an op whose first operand repeats is imported with its
operands swapped (as SUB is).

FLOOR_DIV floors the float32 quotient; FLOOR_MOD is C's fmod moved to the divisor's sign
(TFLM's FloorMod). A zero divisor gives what C's float division gives (inf or NaN), which
DIV clamps to the largest float32 as TFLM's activation range does.

int8 DIV (`div_s8`) is TFLM's DivElementwise: the divisor's offset value y made positive
(both signs flipped), its reciprocal in fixed point (GetReciprocal), the dividend's offset
value x shifted left by its headroom and multiplied by it, then the output multiplier with a
right shift of e = reciprocal shift + headroom - shift. TFLM computes that shift with
x86-64's semantics where e exceeds 31 (a zero dividend, or large output scales): the rounding
mask is all ones, the shift is e - 32, so a non-negative value gains 1. A zero divisor takes
the reciprocal TFLM's wrapping arithmetic gives it, with shift -1. burn computes the same,
with no undefined behaviour; the prepare step keeps `shift` where e stays in [0, 63].
"""

import math

from burn.bst_ops import _ACT, _bind, _clamp, binary_head

from .f32_activation import apply_act
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _srdhm
from .fixedpoint import to_f32
from .fixedpoint_math import one_over_one_plus_x_for_x_in_0_1 as _recip
from .s8_mul import binary_s8_plain

DIV, FLOOR_DIV, FLOOR_MOD = 0, 1, 2
_INF = float("inf")  # a call, not a constant: frozen bytecode cannot hold inf in C
_NAN = _INF - _INF
_FLT_MAX = 3.4028234663852886e38
# TFLM's reciprocal of a zero divisor: its Newton steps on -1.0, int32 sums wrapping
_ZERO_INV = -1515870788
# the output shifts for which TFLM's final right shift stays in [0, 63] (|x|, |y| <= 255)
SHIFT_MIN, SHIFT_MAX = -25, 22
_TWO31 = 1 << 31


def _quotient(x, y):
    """x / y with C's float results for a zero divisor."""
    if y != 0:
        return x / y
    if x != x or x == 0:
        return _NAN
    return _INF if (x > 0) == (math.copysign(1.0, y) > 0) else -_INF


def _floor_mod(x, y):
    if y == 0 or x != x or y != y or x in (_INF, -_INF):
        return _NAN
    r = math.fmod(x, y)
    return r + y if r != 0 and (y < 0) != (r < 0) else r


def _one(op, x, y):
    if op == DIV:  # TFLM clamps to its activation range, finite even for NONE
        return min(max(_quotient(x, y), -_FLT_MAX), _FLT_MAX)
    if op == FLOOR_DIV:
        q = to_f32(_quotient(x, y))
        return float(math.floor(q)) if q - q == 0 else q
    return _floor_mod(x, y)


def div_f32(a, b, out, size, b_size, op, swap, act):
    """out[i] = act(a[i] op b[i % b_size]), or act(b[i % b_size] op a[i]) when swap is 1:
    op 0 a / b, 1 floor(a / b), 2 the remainder of a / b with the divisor's sign."""
    for i in range(size):
        x, y = a[i], b[i % b_size]
        out[i] = apply_act(_one(op, y, x) if swap else _one(op, x, y), act)


def _quotient_s8(x, y, mult, shift):
    # TFLM's DivElementwise on the offset values x (dividend) and y (divisor)
    if y < 0:
        x, y = -x, -y
    if y == 0:
        inv, e = _ZERO_INV, -1 - shift
    else:
        lz = 0
        while (y << lz) < _TWO31:
            lz += 1
        inv, e = _recip((y << lz) - _TWO31), 31 - lz - shift
    v = ~x if x < 0 else x
    h = 31
    while v:
        v >>= 1
        h -= 1
    e += h
    p = _srdhm(_srdhm(x << h, inv), mult)
    if e < 32:
        return _rdbp(p, e)
    return (p >> (e - 32)) + (1 if p >= 0 else 0)


def div_s8_plain(a, b, out, size, b_size, swap, a_zp, b_zp, out_zp, mult, shift, act_min,
                 act_max):
    """Reference int8 DIV: out[i] = a[i] / b[i % b_size] in real values (b / a when swap
    is 1), requantized as TFLM does."""
    binary_s8_plain(a, b, out, size, b_size, a_zp, b_zp, out_zp, act_min, act_max,
                    _quotient_s8, mult, shift, swap)


div_s8 = div_s8_plain

_DIV_S8_Q = (("swap", 0, 1), ("a_zp", -128, 127), ("b_zp", -128, 127), ("out_zp", -128, 127),
             ("mult", 0, 0x7FFFFFFF), ("shift", SHIFT_MIN, SHIFT_MAX))


def prepare(step, ctx, variant):
    """Check and bind a `div` op (burn.bst_ops.prepare): float32 tensors with op 0..2, swap
    0 or 1 and a fused activation code; int8 tensors (DIV) with swap, zero points, the
    output multiplier and shift and the clamp range."""
    dt, head = binary_head(step, ctx)
    if dt == "int8":
        step.a = head + step.ps(_DIV_S8_Q) + _clamp(step)
        _bind(step, "div", "div_s8", variant)
        return
    if dt != "float32":
        step.fail("tensors must be int8 or float32")
    step.a = head + step.ps((("op", DIV, FLOOR_MOD), ("swap", 0, 1)) + _ACT)
    _bind(step, "div", "div_f32", variant)

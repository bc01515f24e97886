"""The optional op `div` (burn.graph.ops.OPTIONAL): TFLite's float32 DIV, FLOOR_DIV and
FLOOR_MOD (`op` 0, 1, 2), b broadcast as b[i % b_size], as TFLM's reference kernels compute
them; DIV applies its fused activation `act`. `swap` 1 computes b op a: the second input is
always the one that repeats, so an op whose first operand repeats is imported with its
operands swapped (as SUB is).

FLOOR_DIV floors the float32 quotient; FLOOR_MOD is C's fmod moved to the divisor's sign
(TFLM's FloorMod). A zero divisor gives what C's float division gives (inf or NaN), which
DIV clamps to the largest float32 as TFLM's activation range does.
"""

import math

from burn.bst_ops import _ACT, _bind, binary_head

from .f32_activation import apply_act
from .fixedpoint import to_f32

DIV, FLOOR_DIV, FLOOR_MOD = 0, 1, 2
_INF = 1e308 * 10.0  # also inf where floats are single precision
_NAN = _INF - _INF
_FLT_MAX = 3.4028234663852886e38


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


def prepare(step, ctx, variant):
    """Check and bind a `div` op (burn.bst_ops.prepare): float32 tensors, op 0..2, swap 0 or
    1 and a fused activation code."""
    dt, head = binary_head(step, ctx)
    if dt != "float32":
        step.fail("tensors must be float32")
    step.a = head + step.ps((("op", DIV, FLOOR_MOD), ("swap", 0, 1)) + _ACT)
    _bind(step, "div", "div_f32", variant)

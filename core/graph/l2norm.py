"""L2 normalization over the last axis (TFLite L2_NORMALIZATION), int8 and float32, as TFLM's
reference kernels compute it.

int8: each row's sum of squares (input minus its zero point) gets its inverse square root
as a Q31 multiplier and shift from TFLM's GetInvSqrtQuantizedMultiplierExp (a fixed-point
Newton iteration, `inv_sqrt`); the output is in 1/128 steps with zero point 0. float32:
x / max(sqrt(sum of squares), 1e-6).

An optional op (burn.graph.ops.OPTIONAL): its prepare step lives here, and a default firmware
leaves this module out.
"""

import math
import sys

from burn import bst_ops
from burn.bst import MAX_DIM

from .fixedpoint import INT32_MAX
from .fixedpoint import multiply_by_quantized_multiplier as _mbqm
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _mul
from .fixedpoint_math import count_leading_zeros32, saturating_mul_pot

MAX_DEPTH = 32768  # the int32 sum of squares stays exact (flex_c's limit)


def _wrap(v):
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def inv_sqrt(acc):
    """TFLM GetInvSqrtQuantizedMultiplierExp(acc, -1): (mult, shift) of 1 / sqrt(acc)."""
    if acc <= 1:
        return INT32_MAX, 0
    shift = 11
    while acc >= 1 << 29:
        acc //= 4
        shift += 1
    pairs = (count_leading_zeros32(acc) - 1) // 2 - 1
    shift -= pairs
    acc <<= 2 * pairs
    half_input = _rdbp(acc >> 1, 1)  # values with 3 integer bits from here
    x = 1 << 28  # 1.0
    for _ in range(5):
        x3 = saturating_mul_pot(_mul(_mul(x, x), x), 6)
        x = saturating_mul_pot(_wrap(_mul((1 << 28) + (1 << 27), x) - _mul(half_input, x3)),
                               3)
    x = _mul(x, 1518500250)  # sqrt(2) / 2
    if shift < 0:
        x = _wrap(x << -shift)
        shift = 0
    return x, -shift


def l2norm_s8_plain(inp, out, rows, depth, in_zp):
    """Reference int8 L2 normalization of [rows, depth] rows (see the module docstring)."""
    for r in range(rows):
        base = r * depth
        acc = 0
        for k in range(depth):
            v = (((inp[base + k] + 128) & 255) - 128) - in_zp
            acc += v * v
        mult, shift = inv_sqrt(acc)
        for k in range(depth):
            v = _mbqm((((inp[base + k] + 128) & 255) - 128) - in_zp, mult, shift + 7)
            out[base + k] = -128 if v < -128 else (127 if v > 127 else v)


l2norm_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .l2norm_viper import l2norm_s8_fast
    except SyntaxError:
        pass

l2norm_s8 = l2norm_s8_fast or l2norm_s8_plain


def l2norm_f32(inp, out, rows, depth):
    """float32 L2 normalization of [rows, depth] rows."""
    for r in range(rows):
        base = r * depth
        acc = 0.0
        for k in range(depth):
            acc += inp[base + k] * inp[base + k]
        norm = max(math.sqrt(acc), 1e-6)
        for k in range(depth):
            out[base + k] = inp[base + k] / norm


def prepare(step, ctx, variant):
    """Check and bind an l2norm op (burn.bst_ops.prepare)."""
    dt = bst_ops._dtype(step, ctx)
    x, y, size = bst_ops._unary(step, ctx, dt, dt)
    shape = ctx.tensors[step.ins[0]][0]
    depth = shape[-1] if shape else 1
    limit = MAX_DEPTH if dt == "int8" else MAX_DIM
    if not 1 <= depth <= limit or size % depth:
        step.fail("depth %d: not a row length of at most %d" % (depth, limit))
    step.a = (x, y, size // depth, depth)
    if dt == "int8":
        step.a += (step.p("in_zp", -128, 127),)
    bst_ops._bind(step, "l2norm", "l2norm_s8" if dt == "int8" else "l2norm_f32", variant)

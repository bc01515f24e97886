"""Batched matrix products (TFLite BATCH_MATMUL), int8, int16 and float32, as TFLM's reference
kernel computes them: out[b] = a[b] @ b[b] for each of `batches` products of an [m, k] by a
[k, n] matrix. adj_x / adj_y: a is stored [k, m] / b is stored [n, k] (TFLite's
transposes). a_step and b_step are the elements between one product's operand and the next
(0: one operand broadcast to every product). int8: the int32 sum of (a - a_zp) * (b - b_zp)
is requantized by (mult, shift) (a_scale * b_scale / out_scale) and clamped to int8. int16
(batch_matmul_s16; TFLM's zero points are 0): the sum in int64, requantized by TFLM's int64
MultiplyByQuantizedMultiplier (shift at most 7) and clamped to int16.

`b` is an activation or a constant of the op. An optional op (burn.graph.ops.OPTIONAL): its
prepare step lives here, and a default firmware leaves this module out.
"""

import sys

from burn import bst_ops
from burn.bst import MAX_DIM
from burn.shape import numel

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets
from .s16_arith import clamp, mbqm64

MAX_DEPTH = 1 << 15  # k: the int32 sum of 255 * 255 products stays exact (flex_c's limit)


def _strides(m, k, n, adj_x, adj_y):
    """(a's step per row, per k; b's step per k, per column) of the stored operands."""
    a_row, a_k = (1, m) if adj_x else (k, 1)
    b_k, b_col = (1, k) if adj_y else (n, 1)
    return a_row, a_k, b_k, b_col


def _outputs(batches, m, k, n, a_step, b_step, adj_x, adj_y):
    """(output index, a's first element, b's first element, a's step, b's step) of every
    output's dot product, in output order."""
    a_row, a_k, b_k, b_col = _strides(m, k, n, adj_x, adj_y)
    o = 0
    for p in range(batches):
        for i in range(m):
            for j in range(n):
                yield o, p * a_step + i * a_row, p * b_step + j * b_col, a_k, b_k
                o += 1


def batch_matmul_s8_plain(a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y, a_zp,
                          b_zp, out_zp, mult, shift, mult_off=None):
    """Reference int8 batched product (see the module docstring); mult_off:
    mult_offsets(mult) (here when None)."""
    m_off = mult_offsets(mult)[0] if mult_off is None else mult_off[0]
    for o, ia, ib, a_k, b_k in _outputs(batches, m, k, n, a_step, b_step, adj_x, adj_y):
        acc = 0
        for _ in range(k):
            acc += ((((a[ia] + 128) & 255) - 128) - a_zp) * ((((b[ib] + 128) & 255) - 128) - b_zp)
            ia += a_k
            ib += b_k
        v = _mbqm(acc, m_off, shift) + out_zp
        out[o] = -128 if v < -128 else (127 if v > 127 else v)


batch_matmul_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .batch_matmul_viper import batch_matmul_s8_fast
    except SyntaxError:
        pass

batch_matmul_s8 = batch_matmul_s8_fast or batch_matmul_s8_plain


def batch_matmul_s16(a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y, a_zp, b_zp,
                     out_zp, mult, shift):
    """int16 batched product (see the module docstring)."""
    for o, ia, ib, a_k, b_k in _outputs(batches, m, k, n, a_step, b_step, adj_x, adj_y):
        acc = 0
        for _ in range(k):
            acc += (a[ia] - a_zp) * (b[ib] - b_zp)
            ia += a_k
            ib += b_k
        out[o] = clamp(mbqm64(acc, mult, shift) + out_zp, -32768, 32767)


def batch_matmul_f32(a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y):
    """float32 batched product (see the module docstring)."""
    for o, ia, ib, a_k, b_k in _outputs(batches, m, k, n, a_step, b_step, adj_x, adj_y):
        acc = 0.0
        for _ in range(k):
            acc += a[ia] * b[ib]
            ia += a_k
            ib += b_k
        out[o] = acc


def _operand(step, ctx, dt, count):
    """The op's second operand: input 1, or its constant `b`; it must hold `count`."""
    if len(step.ins) == 2:
        if numel(bst_ops._shape(step, ctx, step.ins[1], dt)) != count:
            step.fail("operand b does not hold %d elements" % count)
        return ctx.view(step.ins[1])
    return bst_ops._const(step, ctx, "b", dt, count=count)[0]


def prepare(step, ctx, variant):
    """Check and bind a batch_matmul op (burn.bst_ops.prepare; burn.graph.s16_prepare hands
    it an int16 one)."""
    if len(step.ins) not in (1, 2) or len(step.outs) != 1:
        step.fail("expected 1 or 2 inputs and one output")
    dt = bst_ops._dtype(step, ctx)
    dims = step.ps((("batches", 1, MAX_DIM), ("m", 1, MAX_DIM), ("k", 1, MAX_DEPTH),
                    ("n", 1, MAX_DIM)))
    batches, m, k, n = dims
    steps = step.ps((("a_step", 0, MAX_DIM * MAX_DIM), ("b_step", 0, MAX_DIM * MAX_DIM),
                     ("adj_x", 0, 1), ("adj_y", 0, 1)))
    a_step, b_step = steps[:2]
    for name, s, size in (("a_step", a_step, m * k), ("b_step", b_step, k * n)):
        if s not in (0, size):
            step.fail("%s %d: 0 (broadcast) or %d" % (name, s, size))
    a_count = (batches - 1) * a_step + m * k
    if numel(bst_ops._shape(step, ctx, step.ins[0], dt)) != a_count or \
            numel(bst_ops._shape(step, ctx, step.outs[0], dt)) != batches * m * n:
        step.fail("tensor sizes do not match %d products of [%d, %d] by [%d, %d]"
                  % (batches, m, k, k, n))
    step.macs = batches * m * n * k
    b = _operand(step, ctx, dt, (batches - 1) * b_step + k * n)
    step.a = (ctx.view(step.ins[0]), b, ctx.view(step.outs[0])) + dims + steps
    bst_ops._bind(step, "batch_matmul", {"int8": "batch_matmul_s8", "int16": "batch_matmul_s16"}
                  .get(dt, "batch_matmul_f32"), variant)
    if dt == "int16":  # TFLM's zero points are 0; its int64 requantization's shift <= 7
        step.a += step.ps((("a_zp", 0, 0), ("b_zp", 0, 0), ("out_zp", 0, 0),
                           ("mult", 0, bst_ops._I32), ("shift", -31, 7)))
    if dt == "int8":
        step.a += step.ps((("a_zp", -128, 127), ("b_zp", -128, 127), ("out_zp", -128, 127),
                           ("mult", 0, bst_ops._I32), ("shift", -31, 31)))
        bst_ops._plain_mult_off(step, dt, step.a[14])

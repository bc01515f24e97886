"""Reductions over any set of axes (TFLite SUM, REDUCE_MAX, REDUCE_MIN, and MEAN over axes
that are not one block), int8 and float32, as TFLM's reference kernels compute them.

The importer folds the input's axes into [outer, reduce, mid, reduce2, inner] (axes that are
kept or reduced together merge): the output [outer, mid, inner] reduces axes 1 and 3. Every
output element visits its inputs in the input's row-major order, as TFLM does. `op`: 0 sum
(int8: requantized with mult, shift; SUM, and MEAN with 1/count folded in by
quant_params.mean_params), 1 mean (float32 only), 2 max, 3 min. int8 max and min keep the
input's scale.

An optional op (burn.graph.ops.OPTIONAL): its prepare step lives here, and a default firmware
leaves this module out.
"""

import sys

from burn import bst_ops
from burn.bst import MAX_DIM
from burn.shape import numel

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets

OP_SUM, OP_MEAN, OP_MAX, OP_MIN = 0, 1, 2, 3  # flex.h FLEX_REDUCE_*
_MAX_SUM = 1 << 23  # elements per int8 sum: the int32 sum stays exact (flex_c's limit)


def reduce_s8_plain(inp, out, outer, reduce, mid, reduce2, inner, op, in_zp, out_zp, mult,
                    shift, mult_off=None):
    """Reference int8 reduction (see the module docstring); mult_off: mult_offsets(mult)
    (here when None)."""
    m_off = mult_offsets(mult)[0] if mult_off is None else mult_off[0]
    count = reduce * reduce2
    o = 0
    for a in range(outer):
        for m in range(mid):
            for k in range(inner):
                acc = 0 if op == OP_SUM else (127 if op == OP_MIN else -128)
                for r in range(reduce):
                    base = ((a * reduce + r) * mid + m) * reduce2 * inner + k
                    for r2 in range(reduce2):
                        v = ((inp[base + r2 * inner] + 128) & 255) - 128
                        if op == OP_SUM:
                            acc += v
                        elif (v < acc) if op == OP_MIN else (v > acc):
                            acc = v
                if op == OP_SUM:
                    acc = _mbqm(acc - in_zp * count, m_off, shift) + out_zp
                    acc = -128 if acc < -128 else (127 if acc > 127 else acc)
                out[o] = acc
                o += 1


reduce_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .reduce_viper import reduce_s8_fast
    except SyntaxError:
        pass

reduce_s8 = reduce_s8_fast or reduce_s8_plain


def reduce_f32(inp, out, outer, reduce, mid, reduce2, inner, op):
    """float32 reduction (see the module docstring)."""
    o = 0
    for a in range(outer):
        for m in range(mid):
            for k in range(inner):
                acc = None
                for r in range(reduce):
                    base = ((a * reduce + r) * mid + m) * reduce2 * inner + k
                    for r2 in range(reduce2):
                        v = inp[base + r2 * inner]
                        if acc is None:
                            acc = 0.0 + v if op <= OP_MEAN else v
                        elif op <= OP_MEAN:
                            acc += v
                        elif (v < acc) if op == OP_MIN else (v > acc):
                            acc = v
                out[o] = acc / (reduce * reduce2) if op == OP_MEAN else acc
                o += 1


def folded(step, ctx, dt):
    """The op's (outer, reduce, mid, reduce2, inner), checked against its input and output
    of type `dt` (after bst_ops._arity); also for burn.graph.s16_reduce."""
    dims = step.ps((("outer", 1, MAX_DIM), ("reduce", 1, MAX_DIM), ("mid", 1, MAX_DIM),
                    ("reduce2", 1, MAX_DIM), ("inner", 1, MAX_DIM)))
    outer, reduce, mid, reduce2, inner = dims
    if numel(bst_ops._shape(step, ctx, step.ins[0], dt)) != outer * reduce * mid * reduce2 * \
            inner or numel(bst_ops._shape(step, ctx, step.outs[0], dt)) != outer * mid * inner:
        step.fail("tensor sizes do not match [%d, %d, %d, %d, %d] reduced over axes 1 and 3"
                  % dims)
    return dims


def prepare(step, ctx, variant):
    """Check and bind a reduce op (burn.bst_ops.prepare)."""
    bst_ops._arity(step, 1)
    dt = bst_ops._dtype(step, ctx)
    dims = folded(step, ctx, dt)
    reduce, reduce2 = dims[1], dims[3]
    op = step.p("op", OP_SUM, OP_MIN)
    if op == OP_MEAN and dt == "int8":
        step.fail("int8 mean is a sum with 1/count in its multiplier (op %d)" % OP_SUM)
    step.a = bst_ops._xy(step, ctx) + dims + (op,)
    bst_ops._bind(step, "reduce", "reduce_s8" if dt == "int8" else "reduce_f32", variant)
    if dt == "int8":
        if op == OP_SUM and reduce * reduce2 > _MAX_SUM:
            step.fail("sum of %d elements: more than %d" % (reduce * reduce2, _MAX_SUM))
        step.a += step.ps((("in_zp", -128, 127), ("out_zp", -128, 127),
                           ("mult", 0, bst_ops._I32), ("shift", -31, 31)))
        bst_ops._plain_mult_off(step, dt, step.a[10])

"""Index of the largest or smallest element along one axis (TFLite ARG_MAX, ARG_MIN), of
int8 and float32 inputs, as TFLM's kernel picks it: the first index on ties; an element
wins only when it compares greater (less) than the best so far, so a NaN never wins, and
none wins over a NaN in first place.

The input is viewed as [outer, reduce, inner], the output [outer, inner]; `op` 0 is arg
max, 1 arg min, plus 2 for an int32 output (TFLite's). Files made before the .bst had int32
tensors hold the indices in a float32 tensor, exactly (reduce <= 2**24): there the viper
twin writes each index's float32 bits with integer arithmetic, as the C kernel does, so no
float conversion runs on a board.

An optional op (burn.graph.ops.OPTIONAL): its prepare step lives here, and a default firmware
leaves this module out.
"""

import sys

from burn import bst_ops
from burn.bst import MAX_DIM
from burn.shape import numel

MAX_REDUCE = 1 << 24  # float32 holds every index exactly


def arg_s8_plain(inp, out, outer, reduce, inner, op):
    """Reference int8 arg max (op 0) / arg min (op 1): out [outer, inner] float32, or
    int32 for op + 2."""
    o = 0
    for a in range(outer):
        for k in range(inner):
            base = a * reduce * inner + k
            best = ((inp[base] + 128) & 255) - 128
            index = 0
            for r in range(1, reduce):
                v = ((inp[base + r * inner] + 128) & 255) - 128
                if (v < best) if op & 1 else (v > best):
                    best = v
                    index = r
            out[o] = index
            o += 1


arg_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .arg_viper import arg_s8_fast
    except SyntaxError:
        pass

arg_s8 = arg_s8_fast or arg_s8_plain


def arg_f32(inp, out, outer, reduce, inner, op):
    """float32 arg max (op 0) / arg min (op 1), int32 out for op + 2."""
    o = 0
    for a in range(outer):
        for k in range(inner):
            base = a * reduce * inner + k
            best = inp[base]
            index = 0
            for r in range(1, reduce):
                v = inp[base + r * inner]
                if (v < best) if op & 1 else (v > best):
                    best = v
                    index = r
            out[o] = index
            o += 1


def prepare(step, ctx, variant):
    """Check and bind an arg op (burn.bst_ops.prepare)."""
    bst_ops._arity(step, 1)
    dt = bst_ops._dtype(step, ctx)
    dims = step.ps((("outer", 1, MAX_DIM), ("reduce", 1, MAX_REDUCE), ("inner", 1, MAX_DIM),
                    ("op", 0, 1)))
    outer, reduce, inner = dims[:3]
    out_dt = ctx.tensors[step.outs[0]][1]
    if dt not in ("int8", "float32") or out_dt not in ("float32", "int32"):
        step.fail("%s input, %s output: expected int8 or float32 in, int32 or float32 out"
                  % (dt, out_dt))
    if numel(bst_ops._shape(step, ctx, step.ins[0], dt)) != outer * reduce * inner or \
            numel(bst_ops._shape(step, ctx, step.outs[0], out_dt)) != outer * inner:
        step.fail("tensor sizes do not match outer %d x reduce %d x inner %d" % dims[:3])
    step.a = bst_ops._xy(step, ctx) + dims[:3] + (dims[3] + (2 if out_dt == "int32" else 0),)
    bst_ops._bind(step, "arg", "arg_s8" if dt == "int8" else "arg_f32", variant)

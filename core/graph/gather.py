"""Rows picked by int32 positions computed at run time (TFLite GATHER with computed
positions, EMBEDDING_LOOKUP), of int8 and float32 data.

The data is viewed as [outer, size, inner] and the output [outer, count, inner]: output row
(a, i) is data row (a, pos[i]). A position outside [0, size) is a ValueError at run time,
raised before anything is written (TFLM's GATHER and EMBEDDING_LOOKUP fail the same way);
no kernel reads outside the data. The data is an activation, or a constant of the op
(`params`), as an embedding table is.

An optional op (burn.graph.ops.OPTIONAL): its prepare step lives here, and a default firmware
leaves this module out.
"""

from burn import bst_ops
from burn.bst import MAX_DIM
from burn.shape import numel


def _gather(inp, pos, out, outer, size, inner, count, s8):
    """Rows of inp [outer, size, inner] at positions pos [count] into out, each position
    checked before anything is written; s8: the values are int8, read from raw bytes too."""
    for i in range(count):
        if not 0 <= pos[i] < size:
            raise ValueError("gather: position %d is outside [0, %d)" % (pos[i], size))
    o = 0
    for a in range(outer):
        for i in range(count):
            s = (a * size + pos[i]) * inner
            for k in range(inner):
                v = inp[s + k]
                out[o] = ((v + 128) & 255) - 128 if s8 else v  # the table may be raw bytes
                o += 1


def gather_s8(inp, pos, out, outer, size, inner, count):
    """int8 rows of inp [outer, size, inner] at positions pos [count] into out."""
    _gather(inp, pos, out, outer, size, inner, count, True)


def gather_f32(inp, pos, out, outer, size, inner, count):
    """float32 rows of inp [outer, size, inner] at positions pos [count] into out."""
    _gather(inp, pos, out, outer, size, inner, count, False)


def prepare(step, ctx, variant):
    """Check and bind a gather op (burn.bst_ops.prepare): inputs [data, positions], or
    [positions] with the data the constant `params`."""
    const = "params" in step.consts
    bst_ops._arity(step, 1 if const else 2)
    dims = step.ps((("outer", 1, MAX_DIM), ("size", 1, MAX_DIM), ("inner", 1, MAX_DIM),
                    ("count", 1, MAX_DIM)))
    outer, size, inner, count = dims
    if const:
        data, dt, shape = ctx.const(step, "params")
    else:
        shape, dt = ctx.tensors[step.ins[0]][:2]
        data = ctx.view(step.ins[0])
    if dt not in ("int8", "float32"):
        step.fail("data is %s: expected int8 or float32" % dt)
    if numel(shape) != outer * size * inner or \
            numel(bst_ops._shape(step, ctx, step.ins[-1], "int32")) != count or \
            numel(bst_ops._shape(step, ctx, step.outs[0], dt)) != outer * count * inner:
        step.fail("tensor sizes do not match outer %d x size %d x inner %d, %d positions"
                  % dims)
    step.a = (data, ctx.view(step.ins[-1]), ctx.view(step.outs[0])) + dims
    bst_ops._bind(step, "gather", "gather_s8" if dt == "int8" else "gather_f32", variant)

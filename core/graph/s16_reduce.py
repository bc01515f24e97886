"""int16 SUM and MEAN (the `reduce` op on int16 tensors), as TFLM's QuantizedMeanOrSum for
int16: the kernel reduce_s16 sums over axes 1 and 3 of [outer, reduce, mid, reduce2, inner]
(burn.graph.reduce's fold), takes the input zero point off once per summed element,
requantizes by the int32 multiply (MEAN's 1/count folded into mult and shift, as
quant_params.mean_params does for int8), adds the output zero point and clamps to int16."""

from burn import bst_ops
from burn.graph import s16_prepare as p
from burn.graph.reduce import folded

from .s16_arith import clamp, mbqm32

MAX_SUM = 1 << 15  # inputs per sum: the sum less the zero points stays within int32


def reduce_s16(inp, out, outer, reduce, mid, reduce2, inner, in_zp, out_zp, mult, shift):
    """out [outer, mid, inner]: each output's inputs summed in the input's row-major order,
    requantized."""
    row = reduce2 * inner
    zero = in_zp * reduce * reduce2
    o = 0
    for a in range(outer):
        for m in range(mid):
            for k in range(inner):
                acc = 0
                for r in range(reduce):
                    start = ((a * reduce + r) * mid + m) * row + k
                    for i in range(start, start + row, inner):
                        acc += inp[i]
                out[o] = clamp(mbqm32(acc - zero, mult, shift) + out_zp, -32768, 32767)
                o += 1


def prepare(step, ctx, variant):
    """Check and bind an int16 `reduce` op (burn.graph.s16_prepare hands it here): a sum,
    at most MAX_SUM inputs per output."""
    bst_ops._arity(step, 1)
    dims = folded(step, ctx, "int16")
    if step.p("op", 0, 3):
        step.fail("an int16 reduction is a sum (op 0): TFLM's int16 SUM and MEAN")
    if dims[1] * dims[3] > MAX_SUM:
        step.fail("sum of %d elements: more than %d" % (dims[1] * dims[3], MAX_SUM))
    step.a = bst_ops._xy(step, ctx) + dims + step.ps(
        (("in_zp",) + p.I16, ("out_zp",) + p.I16, ("mult", 0, bst_ops._I32),
         ("shift", -31, 31)))
    bst_ops._bind(step, "s16_reduce", "reduce_s16", variant)

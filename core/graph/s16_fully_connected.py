"""int16x8 fully connected (int16 activations, int8 weights), as TFLM's reference
FullyConnected / FullyConnectedPerChannel for int16 input: per-output-channel multipliers,
an int32 sum requantized by the int32 multiply (int32 bias) or an int64 sum by the int64
one (`wide`: an int64 bias in the TFLite file)."""

from burn import bst_ops
from burn.graph import s16_prepare as p
from burn.shape import numel

from .s16_arith import clamp, requantize_acc, s8


def fully_connected_s16(inp, w, bias, mult, shift, out, batches, in_features, out_features,
                        wide, in_zp, out_zp, act_min, act_max):
    """out[b, c] = clamp(requantize(sum_d w[c, d] * (x[b, d] - in_zp) + bias[c]) + out_zp)."""
    for b in range(batches):
        xo = b * in_features
        for c in range(out_features):
            wo = c * in_features
            acc = bias[c]
            for d in range(in_features):
                acc += s8(w[wo + d]) * (inp[xo + d] - in_zp)
            v = requantize_acc(acc, mult[c], shift[c], wide) + out_zp
            out[b * out_features + c] = clamp(v, act_min, act_max)


def prepare(step, ctx, variant):
    """Check and bind an int16 `fully_connected` op (burn.graph.s16_prepare hands it here)."""
    bst_ops._arity(step, 1)
    xs = bst_ops._shape(step, ctx, step.ins[0], "int16")
    ys = bst_ops._shape(step, ctx, step.outs[0], "int16")
    w, (out_f, in_f) = bst_ops._const(step, ctx, "w", "int8", rank=2)
    batches = numel(xs) // in_f
    if numel(xs) != batches * in_f or numel(ys) != batches * out_f:
        step.fail("input %s and output %s do not fit weights %s" % (xs, ys, (out_f, in_f)))
    step.macs = batches * in_f * out_f
    bst_ops._bind(step, "s16_fully_connected", "fully_connected_s16", variant)
    step.a = (ctx.view(step.ins[0]), w) + bst_ops._weights_tail(step, ctx, "int8", out_f) + (
        ctx.view(step.outs[0]), batches, in_f, out_f)
    wide, lo, hi = p.tail(step, in_f, out_f)
    step.a += (wide,) + step.ps((("in_zp",) + p.I16, ("out_zp",) + p.I16)) + (lo, hi)

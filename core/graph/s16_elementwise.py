"""int16 ADD, SUB, SQUARED_DIFFERENCE, MUL, MAXIMUM and MINIMUM (the kernels add_s16,
sub_s16, squared_difference_s16, mul_s16, maximum_s16 and minimum_s16), as TFLM's reference
kernels compute them for int16 tensors (ADD's and SUB's general-scale path with left_shift
15, SQUARED_DIFFERENCE's with left_shift 0 and the difference squared, MUL's int32 product,
MAXIMUM's and MINIMUM's comparison of the stored values, whatever the scales), b broadcast
along the innermost dims: out[i] = a[i] (op) b[i % b_size]; sub_s16's `swap` 1 makes it
b - a. int32 overflow wraps, as in C."""

from burn import bst_ops
from burn.graph import s16_prepare as p
from burn.shape import numel

from .s16_arith import clamp, mbqm32, wrap32


def _scaled_sum(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, a_sign, b_sign,
                square=False):
    """Both inputs scaled to a common scale (2**left_shift, then their multipliers), summed
    with the signs a_sign and b_sign (1 or -1), squared where `square`, then requantized to
    the output's."""
    for i in range(size):
        x = mbqm32(wrap32((a[i] - a_zp) << left_shift), a_mult, a_shift)
        y = mbqm32(wrap32((b[i % b_size] - b_zp) << left_shift), b_mult, b_shift)
        d = wrap32(a_sign * x + b_sign * y)
        v = mbqm32(wrap32(d * d) if square else d, out_mult, out_shift)
        out[i] = clamp(wrap32(v + out_zp), act_min, act_max)


def add_s16(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift, out_zp,
            out_mult, out_shift, left_shift, act_min, act_max):
    """out[i] = a[i] + b[i % b_size] in real values, requantized."""
    _scaled_sum(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, 1, 1)


def sub_s16(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift, out_zp,
            out_mult, out_shift, left_shift, act_min, act_max, swap):
    """out[i] = a[i] - b[i % b_size] in real values (b - a when swap is 1), requantized."""
    _scaled_sum(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max,
                -1 if swap else 1, 1 if swap else -1)


def squared_difference_s16(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult,
                           b_shift, out_zp, out_mult, out_shift, left_shift, act_min, act_max):
    """out[i] = (a[i] - b[i % b_size])**2 in real values, requantized."""
    _scaled_sum(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max, 1, -1, True)


def mul_s16(a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min, act_max):
    """The product of the inputs less their zero points, requantized."""
    for i in range(size):
        v = mbqm32(wrap32((a[i] - a_zp) * (b[i % b_size] - b_zp)), mult, shift)
        out[i] = clamp(wrap32(v + out_zp), act_min, act_max)


def _extreme(a, b, out, size, b_size, minimum):
    for i in range(size):
        x, y = a[i], b[i % b_size]
        out[i] = x if (x < y if minimum else x > y) else y


def maximum_s16(a, b, out, size, b_size):
    """out[i] = max(a[i], b[i % b_size]) of the stored int16 values."""
    _extreme(a, b, out, size, b_size, False)


def minimum_s16(a, b, out, size, b_size):
    """out[i] = min(a[i], b[i % b_size]) of the stored int16 values."""
    _extreme(a, b, out, size, b_size, True)


def prepare(step, ctx, variant):
    """Check and bind an int16 add, sub, squared_difference, mul, maximum or minimum op
    (burn.graph.s16_prepare hands it here)."""
    bst_ops._arity(step, 2)
    a = numel(bst_ops._shape(step, ctx, step.ins[0], "int16"))
    bs = numel(bst_ops._shape(step, ctx, step.ins[1], "int16"))
    size = numel(bst_ops._shape(step, ctx, step.outs[0], "int16"))
    if a != size or size % bs:
        step.fail("operand sizes %d and %d do not broadcast to the output size %d"
                  % (a, bs, size))
    step.a = (ctx.view(step.ins[0]), ctx.view(step.ins[1]), ctx.view(step.outs[0]), size, bs)
    bst_ops._bind(step, "s16_elementwise", step.kind + "_s16", variant)
    if step.kind in ("maximum", "minimum"):  # the stored values compared: no parameters
        return
    zp = (("a_zp",) + p.I16, ("b_zp",) + p.I16, ("out_zp",) + p.I16)
    i32, shift = bst_ops._I32, bst_ops._SHIFT
    if step.kind in ("add", "sub", "squared_difference"):
        # TFLM's multipliers are below one; left_shift is 15 for int16 (0 for the squares)
        q = step.ps(zp[:1] + (("a_mult", 0, i32), ("a_shift", -shift, 0)) + zp[1:2] +
                    (("b_mult", 0, i32), ("b_shift", -shift, 0)) + zp[2:] +
                    (("out_mult", 0, i32), ("out_shift", -shift, 0), ("left_shift", 0, 15)))
    else:
        q = step.ps(zp + (("mult", 0, i32), ("shift", -shift, shift)))
    step.a += q + p.clamp16(step)
    if step.kind == "sub":
        step.a += (step.p("swap", 0, 1),)

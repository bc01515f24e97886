"""The `unary` op on int16 tensors (int16x8 graphs): LEAKY_RELU, as TFLM's reference
QuantizeLeakyRelu, the kernel leaky_relu_s16(inp, out, size, in_zp, out_zp, pos_mult,
pos_shift, neg_mult, neg_shift). Each input less its zero point is rescaled by the identity
multiplier (pos_mult, pos_shift: in_scale / out_scale) when it is at least zero, by the
alpha one (neg_mult, neg_shift: in_scale * alpha / out_scale) when it is below, then offset
by the output zero point and clamped to int16. Shifts are at most 14, so that the rescaled
input (17 bits) and the sum stay within int32 on every runtime.
"""

from burn import bst_ops as b
from burn.graph.fixedpoint import multiply_by_quantized_multiplier as _mbqm

_I16 = (-32768, 32767)
_MAX_SHIFT = 14


def leaky_relu_s16(inp, out, size, in_zp, out_zp, pos_mult, pos_shift, neg_mult, neg_shift):
    """out[i] = LEAKY_RELU(inp[i]) for the first `size` int16 values (`out` may be `inp`)."""
    for i in range(size):
        x = inp[i] - in_zp
        y = out_zp + (_mbqm(x, pos_mult, pos_shift) if x >= 0 else
                      _mbqm(x, neg_mult, neg_shift))
        out[i] = -32768 if y < -32768 else (32767 if y > 32767 else y)


def prepare(step, ctx, variant):
    """Check and bind an int16 `unary` op (burn.graph.s16_prepare hands it here): its zero
    points and the two rescalings of LEAKY_RELU."""
    step.a = b._unary(step, ctx, "int16", "int16")
    step.a += step.ps((("in_zp",) + _I16, ("out_zp",) + _I16,
                       ("pos_mult", 0, b._I32), ("pos_shift", -31, _MAX_SHIFT),
                       ("neg_mult", -b._I32, b._I32), ("neg_shift", -31, _MAX_SHIFT)))
    b._bind(step, "s16_unary", "leaky_relu_s16", variant)

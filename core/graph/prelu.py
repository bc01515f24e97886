"""The optional op `prelu` (burn.graph.ops.OPTIONAL): TFLite PRELU, out = x >= 0 ? x :
alpha * x, with a constant alpha broadcast along the input's innermost dims (alpha[i %
alpha_size]); int8 (prelu_s8), and int16 with an int8 alpha (prelu_s16), bit-exact with
TFLM's BroadcastPrelu4DSlow."""

import sys

from burn.bst_ops import _ZP, _bind, _const, _dtype, _plain_mult_off, _unary
from burn.shape import numel

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets
from .s16_arith import clamp, mbqm32

_I32 = 2147483647
# the negative side's product (< 2**16; int16: < 2**24) must stay within int32 after the
# left shift (the positive side's input, < 2**16, too)
_MAX_SHIFT = 15
_MAX_SHIFT16 = 7
_ZP16 = (-32768, 32767)


def prelu_s8_plain(inp, alpha, out, size, alpha_size, in_zp, alpha_zp, out_zp, pos_mult,
                   pos_shift, neg_mult, neg_shift, mult_off=None):
    """Reference int8 PRELU: x - in_zp requantized by pos_mult/pos_shift where it is >= 0,
    else (x - in_zp) * (alpha - alpha_zp) by neg_mult/neg_shift; then out_zp, saturated.
    mult_off: mult_offsets(pos_mult, neg_mult) (here when None)."""
    pm, nm = mult_offsets(pos_mult, neg_mult) if mult_off is None else mult_off
    j = 0
    for i in range(size):
        x = ((inp[i] + 128) & 255) - 128 - in_zp
        if x >= 0:
            r = _mbqm(x, pm, pos_shift)
        else:
            r = _mbqm(x * (((alpha[j] + 128) & 255) - 128 - alpha_zp), nm, neg_shift)
        j += 1
        if j == alpha_size:
            j = 0
        r += out_zp
        out[i] = -128 if r < -128 else (127 if r > 127 else r)


prelu_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .prelu_viper import prelu_s8_fast
    except SyntaxError:
        pass

prelu_s8 = prelu_s8_fast or prelu_s8_plain


def prelu_s16(inp, alpha, out, size, alpha_size, in_zp, alpha_zp, out_zp, pos_mult, pos_shift,
              neg_mult, neg_shift):
    """int16 PRELU with an int8 alpha: prelu_s8_plain's arithmetic, saturated to int16."""
    j = 0
    for i in range(size):
        x = inp[i] - in_zp
        if x >= 0:
            r = mbqm32(x, pos_mult, pos_shift)
        else:
            r = mbqm32(x * (((alpha[j] + 128) & 255) - 128 - alpha_zp), neg_mult, neg_shift)
        j += 1
        if j == alpha_size:
            j = 0
        out[i] = clamp(r + out_zp, -32768, 32767)


def prelu_f32(inp, alpha, out, size, alpha_size):
    """float32 PRELU: out[i] = x if x >= 0 else x * alpha[i % alpha_size]."""
    j = 0
    for i in range(size):
        x = inp[i]
        out[i] = x if x >= 0 else x * alpha[j]
        j += 1
        if j == alpha_size:
            j = 0


def prepare(step, ctx, variant):
    """Check and bind a `prelu` op (burn.bst_ops.prepare): its constant `alpha` (the input's
    dtype; int8 for int16, which burn.graph.s16_prepare hands here) has a size that divides
    the input's; int8 and int16 take the zero points and the two multiplier/shift pairs."""
    dt = _dtype(step, ctx)
    if dt not in ("int8", "float32", "int16"):
        step.fail("tensors must be int8, int16 or float32")
    x, y, size = _unary(step, ctx, dt, dt)
    alpha, shape = _const(step, ctx, "alpha", "int8" if dt == "int16" else dt)
    n = numel(shape)
    if n < 1 or size % n:
        step.fail("alpha of %d values does not broadcast over %d" % (n, size))
    step.a = (x, alpha, y, size, n)
    if dt == "float32":
        _bind(step, "prelu", "prelu_f32", variant)
        return
    if dt == "int16":
        step.a += step.ps((("in_zp",) + _ZP16, ("alpha_zp",) + _ZP, ("out_zp",) + _ZP16,
                           ("pos_mult", 0, _I32), ("pos_shift", -31, _MAX_SHIFT),
                           ("neg_mult", 0, _I32), ("neg_shift", -31, _MAX_SHIFT16)))
        _bind(step, "prelu", "prelu_s16", variant)
        return
    step.a += step.ps((("in_zp",) + _ZP, ("alpha_zp",) + _ZP, ("out_zp",) + _ZP,
                       ("pos_mult", 0, _I32), ("pos_shift", -31, _MAX_SHIFT),
                       ("neg_mult", 0, _I32), ("neg_shift", -31, _MAX_SHIFT)))
    _bind(step, "prelu", "prelu_s8", variant)
    _plain_mult_off(step, dt, step.a[8], step.a[10])

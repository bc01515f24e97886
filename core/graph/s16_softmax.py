"""int16 softmax, as TFLM's SoftmaxInt16: exp(x - max) and 1 / sum from two 513-entry int16
tables with linear interpolation (made on the host: burn.host.importers.tflite_luts), the
output in Q0.15 (scale 1/32768, zero point 0); and softmax_s8_s16, TFLM's int8 softmax with
int16 outputs (scale 1/65536, zero point -32768)."""

from burn import bst_ops

from .s8_softmax import softmax_s8_bits
from .s16_arith import clamp, mbqm32


def lookup_s16(value, lut):
    """TFLM's LUTLookup of an int16: the table's segment `value >> 7` interpolated by the
    low 7 bits, the sum wrapped to int16."""
    index = 256 + (value >> 7)
    base = lut[index]
    v = base + (((lut[index + 1] - base) * (value & 0x7F) + 64) >> 7)
    return ((v + 32768) & 0xFFFF) - 32768


def _clz32(v):
    n = 0
    while n < 32 and not v & (0x80000000 >> n):
        n += 1
    return n


def softmax_s16(inp, out, rows, depth, in_mult, in_left_shift, exp_lut, inv_lut):
    """Softmax over the last axis of [rows, depth] int16 values."""
    for r in range(rows):
        o = r * depth
        top = -32768
        for c in range(depth):
            if inp[o + c] > top:
                top = inp[o + c]
        total = 0
        for c in range(depth):
            scaled = mbqm32(inp[o + c] - top, in_mult, in_left_shift) + 32767
            e = lookup_s16(clamp(scaled, -32768, 32767), exp_lut)
            out[o + c] = e
            total += e
        head = _clz32(total & 0xFFFFFFFF)
        shifted = ((total << (head - 1)) + (1 << 13)) >> 14
        recip = lookup_s16(clamp(shifted - (1 << 15) - (1 << 16), -32768, 32767), inv_lut)
        right = 31 - head
        for c in range(depth):
            out[o + c] = clamp((out[o + c] * recip + (1 << (right - 1))) >> right, 0, 32767)


def softmax_s8_s16(inp, out, rows, depth, in_mult, in_left_shift, diff_min):
    """The int8 softmax of [rows, depth] (burn.graph.s8_softmax's parameters) to int16."""
    softmax_s8_bits(inp, out, rows, depth, in_mult, in_left_shift, diff_min, 16)


def prepare(step, ctx, variant):
    """Check and bind an int16 `softmax` op (burn.graph.s16_prepare hands it here)."""
    in_dt = ctx.tensors[step.ins[0]][1] if step.ins else None
    x, y, size = bst_ops._unary(step, ctx, "int8" if in_dt == "int8" else "int16", "int16")
    depth = ctx.tensors[step.ins[0]][0][-1]
    if depth > bst_ops._MAX_SOFTMAX_DEPTH:
        step.fail("depth %d: more than %d classes" % (depth, bst_ops._MAX_SOFTMAX_DEPTH))
    if in_dt == "int8":  # the int8 softmax's parameters, int16 outputs
        step.a = (x, y, size // depth, depth) + step.ps(bst_ops._SOFTMAX_Q)
        bst_ops._bind(step, "s16_softmax", "softmax_s8_s16", variant)
        return
    q = step.ps((("in_mult", 0, bst_ops._I32), ("in_left_shift", -bst_ops._SHIFT, bst_ops._SHIFT)))
    exp_lut = bst_ops._const(step, ctx, "exp_lut", "int16", count=513)[0]
    inv_lut = bst_ops._const(step, ctx, "inv_lut", "int16", count=513)[0]
    # every exp is >= 0 and the row's largest >= 2: the sum's shifts stay in range
    if min(exp_lut) < 0 or lookup_s16(32767, exp_lut) < 2:
        step.fail("exp_lut is not a table of exp on [-10, 0]")
    step.a = (x, y, size // depth, depth) + q + (exp_lut, inv_lut)
    bst_ops._bind(step, "s16_softmax", "softmax_s16", variant)

"""int16 conversions of int16x8 graphs, as TFLM's QUANTIZE and DEQUANTIZE compute them:
float32 -> int16, int16 -> float32, and requantization int16 -> int16, int8 -> int16 and
int16 -> int8, and to and from int32 (requantize_s8_s32, requantize_s16_s32,
requantize_s32_s8, requantize_s32_s16); and the clamp of int16 RELU and RELU6 (clamp_s16).
Also TFLM's quantized uint8: requantization uint8 -> int8 and int8 -> uint8
(requantize_u8_s8, requantize_s8_u8) and uint8 -> float32 (dequantize_u8), in Python on
every runtime. Plain kernels only: a default firmware leaves the int16 and int32 kernels
out."""

from burn import bst_ops
from burn.bst import int_range
from burn.graph import s16_prepare as p

from .fixedpoint import round_half_away, to_f32
from .s16_arith import clamp, mbqm32, s8, wrap32

_BITS = {"int8": 8, "int16": 16, "int32": 32, "uint8": 8}
_SUFFIX = {"int8": "s8", "int16": "s16", "int32": "s32", "uint8": "u8"}
# the requantizations between two types, and the dequantizations
_PAIRS = (("int16", "int16"), ("int8", "int16"), ("int16", "int8"), ("int8", "int32"),
          ("int16", "int32"), ("int32", "int8"), ("int32", "int16"), ("uint8", "int8"),
          ("int8", "uint8"))
_DEQUANTIZED = ("int16", "uint8")


def quantize_s16(inp, out, size, scale, zp):
    """TFLM AffineQuantize to int16: clamp(round_half_away(x / scale) + zp), the division in
    float32; NaN gives the zero point and values far out of range saturate (as flex_c)."""
    for i in range(size):
        r = inp[i] / scale
        if r != r:
            out[i] = zp
        elif r > 100000.0 or r < -100000.0:
            out[i] = 32767 if r > 0 else -32768
        else:
            out[i] = clamp(round_half_away(to_f32(r)) + zp, -32768, 32767)


def dequantize_s16(inp, out, size, scale, zp):
    """TFLM Dequantize of int16: float32(scale * (q - zp))."""
    for i in range(size):
        out[i] = scale * (inp[i] - zp)


def dequantize_u8(inp, out, size, scale, zp):
    """TFLM Dequantize of uint8: float32(scale * (q - zp)), as int16's."""
    dequantize_s16(inp, out, size, scale, zp)


def _requantize(inp, out, size, in_zp, out_zp, mult, shift, bits, in_bits=0, lo=None):
    """TFLM Requantize to a signed integer of `bits` (to [lo, 2**bits) where lo is given:
    0 for an unsigned one): clamp(mbqm(q - in_zp, mult, shift) + out_zp), int32 arithmetic
    wrapping; in_bits 8: `inp` holds int8 as bytes."""
    hi = (1 << (bits - (1 if lo is None else 0))) - 1
    lo = -hi - 1 if lo is None else lo
    for i in range(size):
        q = s8(inp[i]) if in_bits == 8 else inp[i]
        out[i] = clamp(wrap32(mbqm32(wrap32(q - in_zp), mult, shift) + out_zp), lo, hi)


def requantize_s16(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int16 -> int16."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 16)


def requantize_s8_s16(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int8 -> int16."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 16, 8)


def requantize_s16_s8(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int16 -> int8."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 8)


def requantize_s8_s32(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int8 -> int32."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 32, 8)


def requantize_s16_s32(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int16 -> int32."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 32)


def requantize_s32_s8(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int32 -> int8."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 8)


def requantize_s32_s16(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int32 -> int16."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 16)


def requantize_u8_s8(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize uint8 -> int8."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 8)


def requantize_s8_u8(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int8 -> uint8."""
    _requantize(inp, out, size, in_zp, out_zp, mult, shift, 8, 8, 0)


def clamp_s16(inp, out, size, act_min, act_max):
    """Clamp int16 values to [act_min, act_max] (RELU / RELU6 on a quantized tensor)."""
    for i in range(size):
        out[i] = clamp(inp[i], act_min, act_max)


def _requant(step, ctx, in_dt, out_dt):
    step.a = bst_ops._unary(step, ctx, in_dt, out_dt)
    q = step.ps((("in_zp",) + int_range(in_dt), ("out_zp",) + int_range(out_dt),
                 ("mult", 0, bst_ops._I32), ("shift", -bst_ops._SHIFT, bst_ops._SHIFT)))
    # q - in_zp shifted left must stay an int32, where every runtime computes the same
    if q[3] > 0 and ((1 << _BITS[in_dt]) - 1) << q[3] > bst_ops._I32:
        step.fail("shift %d overflows int32 for %s inputs" % (q[3], in_dt))
    step.a += q


def _convert(step, ctx, in_dt, out_dt, variant):
    if step.kind == "requantize":
        if (in_dt, out_dt) not in _PAIRS:
            step.fail("no requantization from %s to %s" % (in_dt, out_dt))
        _requant(step, ctx, in_dt, out_dt)
        name = "requantize_s16" if in_dt == out_dt else "requantize_%s_%s" % (
            _SUFFIX[in_dt], _SUFFIX[out_dt])
    else:
        if ((in_dt, out_dt) != ("float32", "int16")) if step.kind == "quantize" else (
                out_dt != "float32" or in_dt not in _DEQUANTIZED):
            step.fail("%s from %s to %s is not an int16 or uint8 conversion" % (
                step.kind, in_dt, out_dt))
        scale = step.num("scale")
        if not scale > 0:
            step.fail("scale must be positive")
        dt = out_dt if step.kind == "quantize" else in_dt
        step.a = bst_ops._unary(step, ctx, in_dt, out_dt) + (scale, step.p("zp", *int_range(dt)))
        name = "%s_%s" % (step.kind, _SUFFIX[dt])
    # uint8 (TFLM's QUANTIZE and DEQUANTIZE): Python on every runtime
    bst_ops._bind(step, "s16_quantize", name, "plain" if "uint8" in (in_dt, out_dt) else variant)


def _clamp(step, ctx, variant):
    step.a = bst_ops._unary(step, ctx, "int16", "int16") + p.clamp16(step)
    bst_ops._bind(step, "s16_quantize", "clamp_s16", variant)


def prepare(step, ctx, variant):
    """Check and bind an int16 quantize, dequantize, requantize or clamp op
    (burn.graph.s16_prepare hands it here)."""
    if step.kind == "clamp":
        _clamp(step, ctx, variant)
    else:
        _convert(step, ctx, ctx.tensors[step.ins[0]][1] if step.ins else None,
                 ctx.tensors[step.outs[0]][1] if step.outs else None, variant)

"""int8 quantize (float32 -> int8), dequantize (int8 -> float32), requantize (int8 -> int8)
and clamp (a lone RELU/RELU6), as TFLM computes them."""

import sys

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets, round_half_away, to_f32


def quantize_s8(inp, out, size, scale, zp):
    """TFLM AffineQuantize: clamp(round_half_away(x / scale) + zp), the division in float32;
    as in flex_c, NaN gives the zero point and values far out of range saturate."""
    for i in range(size):
        r = inp[i] / scale
        if r != r:
            out[i] = zp
        elif r > 1000.0 or r < -1000.0:  # also keeps infinities out of the conversions
            out[i] = 127 if r > 0 else -128
        else:
            v = round_half_away(to_f32(r)) + zp
            out[i] = -128 if v < -128 else (127 if v > 127 else v)


def dequantize_s8(inp, out, size, scale, zp):
    """TFLM Dequantize: float32(scale * (q - zp)) computed in double precision."""
    for i in range(size):
        out[i] = scale * ((((inp[i] + 128) & 255) - 128) - zp)


def requantize_s8_plain(inp, out, size, in_zp, out_zp, mult, shift, mult_off=None):
    """TFLM Requantize: out = clamp(mbqm(q - in_zp, mult, shift) + out_zp); mult_off:
    mult_offsets(mult) (here when None)."""
    mult = mult_offsets(mult)[0] if mult_off is None else mult_off[0]
    for i in range(size):
        v = _mbqm(((inp[i] + 128) & 255) - 128 - in_zp, mult, shift) + out_zp
        out[i] = -128 if v < -128 else (127 if v > 127 else v)


def clamp_s8_plain(inp, out, size, act_min, act_max):
    """Clamp int8 values to [act_min, act_max] (RELU / RELU6 on a quantized tensor)."""
    for i in range(size):
        v = ((inp[i] + 128) & 255) - 128
        out[i] = act_min if v < act_min else (act_max if v > act_max else v)


requantize_s8_fast = None
clamp_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_quantize_viper import clamp_s8_fast, requantize_s8_fast
    except SyntaxError:
        pass

requantize_s8 = requantize_s8_fast or requantize_s8_plain
clamp_s8 = clamp_s8_fast or clamp_s8_plain

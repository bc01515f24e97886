"""int16 conversions of int16x8 graphs, as TFLM's QUANTIZE and DEQUANTIZE compute them:
float32 -> int16, int16 -> float32, and requantization int16 -> int16, int8 -> int16 and
int16 -> int8; and the clamp of int16 RELU and RELU6 (clamp_s16). Plain kernels only: a
default firmware leaves the int16 kernels out."""

from .fixedpoint import round_half_away, to_f32
from .s16_arith import clamp, mbqm32, s8


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


def requantize_s16(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int16 -> int16: clamp(mbqm(q - in_zp, mult, shift) + out_zp)."""
    for i in range(size):
        out[i] = clamp(mbqm32(inp[i] - in_zp, mult, shift) + out_zp, -32768, 32767)


def requantize_s8_s16(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int8 -> int16."""
    for i in range(size):
        out[i] = clamp(mbqm32(s8(inp[i]) - in_zp, mult, shift) + out_zp, -32768, 32767)


def requantize_s16_s8(inp, out, size, in_zp, out_zp, mult, shift):
    """TFLM Requantize int16 -> int8."""
    for i in range(size):
        out[i] = clamp(mbqm32(inp[i] - in_zp, mult, shift) + out_zp, -128, 127)


def clamp_s16(inp, out, size, act_min, act_max):
    """Clamp int16 values to [act_min, act_max] (RELU / RELU6 on a quantized tensor)."""
    for i in range(size):
        out[i] = clamp(inp[i], act_min, act_max)

"""The integer arithmetic of TFLM's int16x8 kernels: int32 wrapping, the two forms of
MultiplyByQuantizedMultiplier (the int32 one of burn.graph.fixedpoint, here on a wrapped
int32 shift, and the int64 one with its 16-bit reduced multiplier) and the clamps."""

from .fixedpoint import rounding_divide_by_pot, saturating_rounding_doubling_high_mul


def wrap32(v):
    """`v` wrapped to int32, as two's complement int32 arithmetic leaves it."""
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def mbqm32(x, mult, shift):
    """TFLM MultiplyByQuantizedMultiplier(int32 x): x * 2**max(shift, 0) wraps as in C."""
    if shift > 0:
        return saturating_rounding_doubling_high_mul(wrap32(x << shift), mult)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, mult), -shift)


def mbqm64(x, mult, shift):
    """TFLM MultiplyByQuantizedMultiplier(int64 x): the multiplier reduced to 16 bits, one
    rounding shift by 15 - shift (shift in [-31, 7]), the result truncated to int32."""
    reduced = (mult + (1 << 15)) >> 16 if mult < 0x7FFF0000 else 0x7FFF
    total = 15 - shift
    return wrap32((x * reduced + (1 << (total - 1))) >> total)


def requantize_acc(acc, mult, shift, wide):
    """An accumulator requantized as TFLM's int16x8 conv and fully connected do: the int64
    form when `wide` (an int64 bias), else the int32 form on the wrapped int32 sum."""
    return mbqm64(acc, mult, shift) if wide else mbqm32(wrap32(acc), mult, shift)


def s8(v):
    """An int8 read from any buffer: bytes and memoryviews of flash give 0..255."""
    return ((v + 128) & 255) - 128


def clamp(v, lo, hi):
    """`v` clamped to [lo, hi]."""
    return lo if v < lo else (hi if v > hi else v)

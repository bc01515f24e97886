"""TFLite Micro fixed-point arithmetic: Q31 multipliers, rounding shifts, op parameters.

The plain functions are the reference (exact Python integers; TFLM's int32 results are
reproduced bit for bit for in-range inputs). Their viper twins, used inside the viper
kernels, are in `burn.graph.fixedpoint_viper`.

The int8 kernels take their Q31 multipliers as offsets `mult - 2**30` (`mbqm_offset`,
`requantize_channel`, `multiplier_offsets`): an offset is a small int on every port, while
a multiplier >= 2**30 is a heap-allocated big int on a 32-bit MicroPython (small ints hold
31 bits there). On such a port (`NARROW`) `mbqm_offset` is `mbqm_limbs`, which forms the
product from 15-bit limbs so that no value reaches 2**30; elsewhere it is the exact
`multiply_by_quantized_multiplier`. Both give the same results.

What TFLM's Prepare() computes from the tensor scales (multipliers, shifts, ranges) is in
`burn.graph.quant_params`, computed on the host.
"""

import math
import struct
import sys

INT32_MIN = -2147483648
INT32_MAX = 2147483647

# TFLite fused-activation codes.
ACT_NONE = 0
ACT_RELU = 1
ACT_RELU_N1_TO_1 = 2
ACT_RELU6 = 3


def round_half_away(v):
    """std::round: round to nearest, ties away from zero; returns an int."""
    a = abs(v)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    r = int(r)
    return -r if v < 0 else r


def to_f32(v):
    """Round a Python float to the nearest float32 value (returned as a Python float)."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def saturating_rounding_doubling_high_mul(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul on int32: round(a * b / 2**31)."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    if ab >= 0:
        return (ab + (1 << 30)) >> 31
    # C divides truncating toward zero, with a nudge of 1 - 2**30 for negative products.
    return -((-ab + (1 << 30) - 1) >> 31)


def rounding_divide_by_pot(x, exponent):
    """gemmlowp RoundingDivideByPOT: x / 2**exponent, rounded half away from zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def multiply_by_quantized_multiplier(x, mult, shift):
    """TFLM MultiplyByQuantizedMultiplier (double rounding): x * mult * 2**(shift - 31)."""
    if shift > 0:
        return saturating_rounding_doubling_high_mul(x * (1 << shift), mult)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, mult), -shift)


# Small ints hold 31 bits on a 32-bit MicroPython; larger values are allocated on the heap.
NARROW = sys.implementation.name == "micropython" and sys.maxsize < (1 << 32)
_SMALL = 0x3FFFFFFF  # the largest small int of a 32-bit port
_HALF = 0x20000000


def _srdhm_limbs(x, mult_off):
    # saturating_rounding_doubling_high_mul(x, mult_off + 2**30) for |x| <= 2**30 - 1:
    # |x| * m + nudge = (top + hi + carry) * 2**30 + (bits below 2**30), from 15-bit limbs.
    neg = x < 0
    ax = -x if neg else x
    top = ax
    if mult_off < 0:  # a multiplier below 2**30: no 2**30 term
        top = 0
        mult_off = mult_off + _SMALL + 1
    a1 = ax >> 15
    a0 = ax & 0x7FFF
    m1 = mult_off >> 15
    m0 = mult_off & 0x7FFF
    n = 0x7FFF if neg else 0  # a negative product rounds with 2**30 - 1, else with 2**30
    t0 = a0 * m0 + n
    t1 = a1 * m0 + (t0 >> 15) + n
    t2 = (t1 & 0x7FFF) + a0 * m1
    hi = a1 * m1 + (t1 >> 15) + (t2 >> 15)
    r = (top >> 1) + (hi >> 1) + (((top & 1) + (hi & 1) + (0 if neg else 1)) >> 1)
    return -r if neg else r


def mbqm_limbs(x, mult_off, shift):
    """multiply_by_quantized_multiplier(x, mult_off + 2**30, shift) computed in values below
    2**30 whenever |x * 2**max(shift, 0)| < 2**30 (else exactly, in big ints)."""
    if shift > 0:
        lim = _SMALL >> shift
        if x < -lim or x > lim:
            return multiply_by_quantized_multiplier(x, mult_off + _SMALL + 1, shift)
        return _srdhm_limbs(x << shift, mult_off)
    if x < -_SMALL or x > _SMALL:
        return multiply_by_quantized_multiplier(x, mult_off + _SMALL + 1, shift)
    r = _srdhm_limbs(x, mult_off)
    if shift > -30:
        return rounding_divide_by_pot(r, -shift)
    # |r| < 2**30: a division by 2**31 rounds to 0, by 2**30 to -1, 0 or 1.
    if shift < -30 or -_HALF < r < _HALF:
        return 0
    return 1 if r > 0 else -1


def mbqm_offset(x, mult_off, shift):
    """multiply_by_quantized_multiplier(x, mult_off + 2**30, shift); mbqm_limbs on a
    32-bit MicroPython (NARROW), where it allocates nothing for in-range values."""
    return multiply_by_quantized_multiplier(x, mult_off + _SMALL + 1, shift)


if NARROW:
    mbqm_offset = mbqm_limbs


def mbqm_wrapping(x, mult_off, shift):
    """mbqm_offset as TFLM's C computes it for int32 `x`: the left shift of a positive `shift`
    wraps in int32 (flex_c's `(uint32_t)x << shift`; mbqm_fast does the same), where
    mbqm_offset keeps the exact product. The kernels whose sums can leave int32 after the
    shift (SVDF, LSTM) use this one."""
    if shift > 0:
        top = x >> (31 - shift)  # 0 or -1 exactly when x * 2**shift fits int32
        if top != 0 and top != -1:
            return mbqm_offset((((x << shift) + 0x80000000) & 0xFFFFFFFF) - 0x80000000,
                               mult_off, 0)
    return mbqm_offset(x, mult_off, shift)


def multiplier_offsets(mult):
    """array('i') of mult[c] - 2**30 for an int32 multiplier buffer: the form the int8
    kernels read (a small int on every port)."""
    from array import array

    off = array("i", bytes(4 * len(mult)))
    for c in range(len(mult)):
        off[c] = mult[c] - _SMALL - 1
    return off


def mult_offsets(*mult):
    """A tuple of each scalar multiplier minus 2**30: the form the plain int8 kernels with
    per-tensor multipliers take (made once by the runtime)."""
    return tuple([m - _SMALL - 1 for m in mult])


def requantize_channel(acc, bias, mult_off, shift, c, out_zp, act_min, act_max):
    """The epilogue of the plain conv, depthwise and fully connected kernels: output
    channel c's int32 sum plus bias, requantized with the offset multiplier mult_off[c]
    (see multiplier_offsets), shifted by the output zero point and clamped to the fused
    activation range."""
    v = mbqm_offset(acc + bias[c], mult_off[c], shift[c]) + out_zp
    if v < act_min:
        return act_min
    return act_max if v > act_max else v

"""The 256-entry int8 tables of TFLite's one-input int8 activations, computed with TFLM's
arithmetic (its Prepare() parameters and its reference kernels), for the `unary` op.

An int8 activation's output depends on the input value alone, so running TFLM's kernel once
over the 256 input values gives every result it can produce: `table(op, in_q, out_q, alpha)`
returns them as an int8 array indexed by the input's raw byte (burn.graph.s8_lookup's
layout). Float steps are float32, as TFLM's C++ computes them; `TableError` carries TFLM's
reason for a parameter it refuses.
"""

import math

import numpy as np

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp
from burn.graph.l2norm import inv_sqrt

F32 = np.float32
OPS = ("ABS", "RSQRT", "ELU", "HARD_SWISH", "LEAKY_RELU")  # those TFLM runs on int8
FLOAT_ONLY = ("NEG", "SQRT",  # the other TFLite ops of `unary`: TFLM has no int8 kernel
              "EXP", "LOG", "SIN", "COS", "FLOOR", "CEIL", "ROUND")


class TableError(ValueError):
    """Parameters TFLM's Prepare() refuses."""


def _wrap(x, bits=32):
    """x as a two's-complement integer of `bits` bits (C's conversion on this target)."""
    half = 1 << (bits - 1)
    return ((x + half) & ((1 << bits) - 1)) - half


def _qm(real):
    """TFLM QuantizeMultiplier of a double."""
    return qp.quantize_multiplier(float(real))


def _mbqm(x, mult, shift):
    """TFLM MultiplyByQuantizedMultiplier on int32 (the left shift wraps as in C)."""
    if shift > 0:
        return fp.saturating_rounding_doubling_high_mul(_wrap(x << shift), mult)
    return fp.rounding_divide_by_pot(fp.saturating_rounding_doubling_high_mul(x, mult), -shift)


def _clamp8(v):
    return -128 if v < -128 else (127 if v > 127 else v)


def _abs(in_q, out_q, _alpha):
    (in_scale, in_zp), (out_scale, out_zp) = in_q, out_q
    rescale = F32(in_scale) != F32(out_scale)
    m, s = _qm(F32(in_scale) / F32(out_scale))
    return [_clamp8((_mbqm(abs(v - in_zp), m, s) if rescale else abs(v - in_zp)) + out_zp)
            for v in range(-128, 128)]


def _rsqrt(in_q, out_q, _alpha):
    (in_scale, in_zp), (out_scale, out_zp) = in_q, out_q
    m, s = _qm(1.0 / float(F32(np.sqrt(F32(in_scale))) * F32(out_scale)))
    out = []
    for v in range(-128, 128):
        x = v - in_zp
        if x <= 0:  # 1/sqrt(0) saturates; TFLM fails an inference with x < 0
            out.append(127)
            continue
        im, ish = inv_sqrt(x)
        data = _mbqm(1, im, ish + 20)
        out.append(_clamp8(_mbqm(data, m, s - 20) + out_zp))
    return out


def _elu(in_q, out_q, _alpha):
    """TFLM's ELU table (elu.cc PopulateLookupTable), float32 throughout."""
    (in_scale, in_zp), (out_scale, out_zp) = in_q, out_q
    inverse = F32(1) / F32(out_scale)
    out = []
    for v in range(-128, 128):
        x = F32(in_scale) * F32(v - in_zp)
        y = F32(F32(math.exp(float(x))) - F32(1)) if x < 0 else x
        scaled = float(F32(y * inverse))
        if not math.isfinite(scaled) or abs(scaled) > 1e9:
            out.append(-128 if scaled < 0 else 127)
            continue
        out.append(_clamp8(int(fp.round_half_away(scaled) + out_zp)))
    return out


def _downscale16(m):
    """TFLM DownScaleInt32ToInt16Multiplier."""
    if m >= fp.INT32_MAX - (1 << 15):
        return 32767
    return (m + (1 << 15)) >> 16


def _div15(n):
    """n / 2**15 truncated toward zero, as C divides."""
    return (n >> 15) if n >= 0 else -((-n) >> 15)


def _srdhm16(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul on int16."""
    if a == b == -32768:
        return 32767
    ab = a * b
    return _div15(ab + ((1 << 14) if ab >= 0 else 1 - (1 << 14)))


def _sdhm16(a, b):
    """TFLM's SaturatingDoublingHighMul on int16 (no rounding)."""
    return 32767 if a == b == -32768 else _div15(a * b)


def _sat_shift16(v, amount):
    return max(-32768, min(32767, v * (1 << amount)))


def _rdbp16(x, exponent):
    """gemmlowp RoundingDivideByPOT on int16 (its mask truncated to 16 bits)."""
    mask = _wrap((1 << exponent) - 1, 16)
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if (x & mask) > threshold else 0)


def _hard_swish(in_q, out_q, _alpha):
    (in_scale, in_zp), (out_scale, out_zp) = in_q, out_q
    hires = F32(1.0 / 128.0) * F32(in_scale)
    om, oexp = _qm(hires / F32(out_scale))
    if oexp > 0:
        raise TableError("TFLM requires output_multiplier_exponent <= 0: the output scale "
                         "must be at least the input scale / 128")
    rm, rexp = _qm(hires / F32(3.0 / 32768.0))
    om, rm = _downscale16(om), _downscale16(rm)
    out = []
    for v in range(-128, 128):
        hv = (v - in_zp) * 128
        pre_out = _srdhm16(hv, om)
        r = hv
        if rexp > 0:
            r = _sat_shift16(r, rexp - 1)
        r = _srdhm16(r, rm)
        if rexp > 0:
            r = _sat_shift16(r, 1)
        if rexp < 0:
            r = _rdbp16(r, -rexp)
        r = (r + (1 << 15)) >> 1
        o = _rdbp16(_sdhm16(r, pre_out), -oexp)
        out.append(_clamp8(_wrap(o + out_zp, 16)))
    return out


def _leaky_relu(in_q, out_q, alpha):
    (in_scale, in_zp), (out_scale, out_zp) = in_q, out_q
    ma, sa = _qm(F32(F32(in_scale) * F32(alpha)) / F32(out_scale))
    mi, si = _qm(F32(in_scale) / F32(out_scale))
    negative = ma < 0
    out = []
    for v in range(-128, 128):
        x = v - in_zp
        if x >= 0:
            y = _mbqm(x, mi, si)
        else:
            y = _mbqm(x, -ma if negative else ma, sa)
            y = -y if negative else y
        out.append(_clamp8(out_zp + y))
    return out


_MAKERS = {"ABS": _abs, "RSQRT": _rsqrt, "ELU": _elu, "HARD_SWISH": _hard_swish,
           "LEAKY_RELU": _leaky_relu}


def function_table(fn, in_q, out_q):
    """int8 array of 256 (the layout of `table`): the float function `fn` (numpy, float64)
    of each dequantized input, quantized to `out_q` (rounded half away from zero, as the
    `quantize` op rounds); in_q, out_q are (scale, zero point). For activations without a
    TFLM int8 kernel, such as the hard sigmoid."""
    (in_scale, in_zp), (out_scale, out_zp) = in_q, out_q
    x = (np.arange(-128, 128) - in_zp) * float(F32(in_scale))
    y = fn(x) / float(F32(out_scale))
    q = np.sign(y) * np.floor(np.abs(y) + 0.5) + out_zp
    values = np.clip(q, -128, 127).astype(np.int8)
    return np.concatenate([values[128:], values[:128]])


def table(op, in_q, out_q, alpha=0.0):
    """int8 array of 256: TFLM's output of int8 `op` (one of OPS) for each input, indexed
    by the input's raw byte; in_q, out_q are (scale, zero point). Raises TableError."""
    values = _MAKERS[op](in_q, out_q, alpha)  # for inputs -128 .. 127
    return np.array(values[128:] + values[:128], np.int8)

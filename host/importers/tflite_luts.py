"""TFLM's int16 lookup tables, made on the host as TFLM makes them in Prepare().

TFLM's int16 softmax reads exp(x) and 1 / (1 + x) from 513-entry tables (LUTPopulate for
int16: 512 segments of the input range, each entry nudged by half the error of the linear
interpolation at the segment's midpoint). TFLM computes them in float32 with the C
library's expf; so does this module (numpy float32 scalars, libm's expf through ctypes),
and the importer stores the tables in the model, so that no board recomputes them with its
own float arithmetic.
"""

import ctypes
import ctypes.util

import numpy as np

from burn.graph.fixedpoint import round_half_away

F32 = np.float32
_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.expf.restype = ctypes.c_float
_LIBM.expf.argtypes = [ctypes.c_float]
_RANGE = 65535  # int16 max - min
_STEPS = 512


def _round(v):
    """TfLiteRound of a float32: half away from zero, as a float32."""
    return F32(round_half_away(float(v)))


def _exp(v):
    return F32(_LIBM.expf(float(v)))


def _one_over_one_plus(v):
    return F32(1) / (F32(1) + v)


def lut16(transform, input_scale, input_zp, output_scale, output_zp):
    """The 513 int16 entries of TFLM's table of `transform` (a float32 function) for inputs
    scale * (q - zp) over the whole int16 range, outputs quantized likewise."""
    in_scale, out_scale = F32(input_scale), F32(output_scale)
    input_min = in_scale * F32(-32768 - input_zp)
    input_max = in_scale * F32(32767 - input_zp)
    output_min = out_scale * F32(-32768 - output_zp)
    output_max = out_scale * F32(32767 - output_zp)
    step = (input_max - input_min) / F32(_STEPS)
    half_step = step / F32(2)
    inv = F32(_RANGE + 1) / (output_max - output_min)
    lut = np.zeros(_STEPS + 1, np.int16)
    for i in range(_STEPS):
        val = transform(input_min + F32(i) * step)
        mid = transform(input_min + F32(i) * step + half_step)
        nxt = transform(input_min + F32(i + 1) * step)
        sample = _round(val * inv)
        interp = _round((nxt * inv + _round(val * inv)) / F32(2))
        bias = _round((interp - _round(mid * inv)) / F32(2))
        lut[i] = min(max(sample - bias, F32(-32768)), F32(32767))
    lut[_STEPS] = min(max(_round(transform(input_max) * inv), F32(-32768)), F32(32767))
    return lut


def softmax_luts():
    """(exp_lut, inv_lut): TFLM's int16 softmax tables of exp(x) on [-10, 0] and of
    1 / (1 + x) on [0, 1]."""
    out_scale = F32(2) / F32(_RANGE)
    return (lut16(_exp, F32(10) / F32(_RANGE), 32767, out_scale, 0),
            lut16(_one_over_one_plus, F32(1) / F32(_RANGE), -32768, out_scale, 0))

"""TFLM's int16 LOGISTIC and TANH, host side: the 256-entry table both interpolate in, and
the input scaling their Prepare() computes.

Both ops look up sigmoid(i / 24) in Q0.16 (uint16) at i = 0..255, interpolating between
neighbours; TANH uses tanh(x) = 2 * sigmoid(2x) - 1. TFLM's table equals the rounded
formula below except at the indices of `ONE_HIGHER`, where it holds one more; that list
was established by measurement (tests/oracle/test_s16_sigmoid_vs_tflm.py runs TFLM's int16
LOGISTIC and TANH over every int16 input at several scales and compares bit for bit). The
importer stores the table in the model as the op's constant, so no board computes it.
"""

import math

import numpy as np

# indices where TFLM's table is one above min(65535, round(65536 / (1 + exp(-i / 24))))
ONE_HIGHER = (4, 8, 12, 14, 15, 16, 17, 19, 20, 21, 22, 25, 27, 28, 29, 30, 31, 33, 34, 35,
              37, 39, 40, 41, 43, 44, 45, 46, 49, 50, 54, 62, 63, 64, 66, 82, 86, 93, 100,
              103, 112, 116, 135, 255)
_INPUT_INTEGER_BITS = 3  # TFLM's int16 inputs are Q3.12 in the power-of-two case
OUTPUT_SCALE_LOG2 = -15  # outputs are Q0.15


def sigmoid_table():
    """TFLM's 256 uint16 entries of sigmoid(i / 24) in Q0.16, as an int16 array holding
    their bit patterns (the .bst stores int16; the kernels read them as uint16)."""
    table = [min(65535, round(65536 / (1 + math.exp(-i / 24)))) for i in range(256)]
    for i in ONE_HIGHER:
        table[i] += 1
    return np.array(table, np.uint16).view(np.int16)


def checked_log2(x):
    """TFLM's CheckedLog2 in float32: (log2 of x rounded half away from zero, whether x is
    within 1e-3 of that power of two in the log domain)."""
    f32 = np.float32
    log2 = f32(np.log(f32(x))) * (f32(1) / f32(np.log(f32(2))))
    rounded = f32(math.copysign(math.floor(abs(float(log2)) + 0.5), float(log2)))
    return int(rounded), bool(abs(log2 - rounded) < f32(1e-3))


def input_scaling(kind, input_scale):
    """(in_mult, in_left_shift) for an int16 "logistic" or "tanh" with this input scale, as
    TFLM's Prepare computes them: (0, shift) for its power-of-two scales (the kernel then
    multiplies by 3 << shift), else a multiplier in (16383, 32767] of input_scale * 3 * 4096
    with its left shift. ValueError for a scale whose multiplier TFLM cannot hold."""
    if not 0 < input_scale < math.inf:
        raise ValueError("input scale %r is not a positive number" % input_scale)
    log2, pot = checked_log2(input_scale)
    shift = 15 - _INPUT_INTEGER_BITS + log2
    if pot and (shift == 0 or (kind == "tanh" and shift == 1)):
        return 0, shift
    mult, shift = float(np.float32(input_scale)) * 4096.0 * 3.0, 0
    while mult <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        mult *= 2.0
    if not 1 <= int(mult) <= 32767:
        raise ValueError("input scale %g is out of TFLM's range for int16 %s (multiplier %d "
                         "not in [1, 32767])" % (input_scale, kind.upper(), int(mult)))
    return int(mult), shift

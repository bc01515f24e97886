"""The sampling tables of burn.graph.resize, computed as TFLM's reference kernels compute
their positions (float32 arithmetic where TFLM uses floats, its integer arithmetic for int8
bilinear), once at import.

`tables(in_size, out_size, bilinear, integer, align_corners, half_pixel_centers)` gives one
axis: an int32 array of (lo, hi, w) per output position and, for float32 bilinear, the
float32 fractions (None otherwise).
"""

import numpy as np

_F = np.float32


def _cdiv(a, b):
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _scale(in_size, out_size, align):
    if align and out_size > 1:
        return _F(in_size - 1) / _F(out_size - 1)
    return _F(in_size) / _F(out_size)


def _nearest(i, in_size, out_size, align, half):
    value = (_F(i) + _F(0.5 if half else 0.0)) * _scale(in_size, out_size, align)
    index = int(np.floor(value))
    if align and float(value) - index >= 0.5:  # TfLiteRound: half away from zero (value >= 0)
        index += 1
    index = min(index, in_size - 1)
    return max(index, 0) if half else index


def _bilinear_float(i, in_size, out_size, align, half):
    scale = _scale(in_size, out_size, align)
    value = (_F(i) + _F(0.5)) * scale - _F(0.5) if half else _F(i) * scale
    lo = max(int(np.floor(value)), 0)
    hi = min(int(np.ceil(value)), in_size - 1)
    return lo, hi, _F(value - _F(lo))


def _bilinear_int(i, in_size, out_size, align, half):
    if align and out_size > 1:
        scale = ((1 << 10) * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1)
    else:
        scale = ((1 << 10) * in_size + out_size // 2) // out_size
    value = i * scale + scale // 2 - (1 << 9) if half else i * scale
    lo = max(_cdiv(value, 1 << 10), 0)
    hi = min(_cdiv(value + (1 << 10) - 1, 1 << 10), in_size - 1)
    return lo, hi, value - (lo << 10)


def tables(in_size, out_size, bilinear, integer, align_corners, half_pixel_centers):
    """(int32 [(lo, hi, w)] * out_size, float32 fractions or None) of one axis."""
    rows, fracs = [], []
    for i in range(out_size):
        if not bilinear:
            j = _nearest(i, in_size, out_size, align_corners, half_pixel_centers)
            rows.append((j, j, 0))
            fracs.append(0.0)
        elif integer:
            rows.append(_bilinear_int(i, in_size, out_size, align_corners, half_pixel_centers))
        else:
            lo, hi, frac = _bilinear_float(i, in_size, out_size, align_corners,
                                           half_pixel_centers)
            rows.append((lo, hi, 0))
            fracs.append(frac)
    table = np.array(rows, np.int64).reshape(-1)
    return table.astype(np.int32), None if integer else np.array(fracs, np.float32)

"""Argument builders that the kernel cases of every type share (kernel_cases.py,
kernel_cases_s16.py): buffers in the JSON form mp_compare.py reads, random window geometry,
broadcast sizes and the output quantization of conv-like layers."""

import numpy as np

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp
from burn.graph.geometry import out_size, pad_before

ACTS = (fp.ACT_NONE, fp.ACT_RELU, fp.ACT_RELU6, fp.ACT_RELU_N1_TO_1)


def _int(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _f32(v):
    return float(np.float32(v))


def buf(typecode, values):
    """An input buffer of `values` as array(typecode) holds them."""
    dtype = {"b": np.int8, "i": np.int32, "f": np.float32, "h": np.int16}[typecode]
    return {"t": typecode, "hex": np.asarray(values, dtype).tobytes().hex()}


def out(typecode, count):
    """An output buffer of `count` elements."""
    return {"t": typecode, "out": int(count)}


def s8(rng, count):
    return buf("b", rng.integers(-128, 128, size=count))


def f32(rng, count, scale=1.0):
    return buf("f", rng.standard_normal(count) * scale)


def window(rng, dilate=True, k_max=3):
    """(ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pad_top, pad_left), SAME or VALID."""
    while True:
        ih, iw = _int(rng, 1, 7), _int(rng, 1, 7)
        kh, kw = _int(rng, 1, k_max), _int(rng, 1, k_max)
        sh, sw = _int(rng, 1, 2), _int(rng, 1, 2)
        dh, dw = (_int(rng, 1, 2), _int(rng, 1, 2)) if dilate else (1, 1)
        if (kh - 1) * dh + 1 <= ih and (kw - 1) * dw + 1 <= iw:
            break
    same = bool(rng.integers(0, 2))
    oh, ow = out_size(ih, kh, sh, dh, same), out_size(iw, kw, sw, dw, same)
    return (ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pad_before(ih, kh, sh, dh, oh),
            pad_before(iw, kw, sw, dw, ow))



def conv_shape(rng, depthwise=False):
    """A random convolution (groups of 1 or 2) or depthwise one (depth multiplier 1 or 2):
    (batch, in channels, out channels, weight count, (ih, iw, oh, ow), the kernels'
    arguments between the image sizes and the window, [strides, dilations, pads])."""
    ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl = window(rng)
    n = _int(rng, 1, 2)
    if depthwise:
        ic, dm = _int(rng, 1, 4), _int(rng, 1, 2)
        oc, wn, middle = ic * dm, kh * kw * ic * dm, [dm, kh, kw]
    else:
        groups = int(rng.choice([1, 1, 2]))
        ic, oc = groups * _int(rng, 1, 3), groups * _int(rng, 1, 3)
        wn, middle = oc * kh * kw * (ic // groups), [oc, kh, kw, groups]
    return n, ic, oc, wn, (ih, iw, oh, ow), middle, [sh, sw, dh, dw, pt, pl]


def _quant_out(rng, in_scale, w_scales, k):
    out_scale = _f32(in_scale * np.mean(w_scales) * rng.uniform(20, 100) * np.sqrt(k))
    out_zp, act = _int(rng, -128, 127), int(rng.choice(ACTS))
    lo, hi = qp.quant_activation_range(act, out_scale, out_zp)
    mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
    return out_zp, lo, hi, list(mult), list(shift)


def _broadcast(rng):
    size = _int(rng, 1, 48)
    divisors = [d for d in range(1, size + 1) if size % d == 0]
    return size, int(rng.choice([size, 1, divisors[len(divisors) // 2]]))


def _scales(rng, count):
    return [_f32(rng.uniform(0.01, 0.2)) for _ in range(count)]


def _pool_geometry(rng):
    ih, iw, oh, ow, kh, kw, sh, sw, _dh, _dw, pt, pl = window(rng, dilate=False)
    return _int(rng, 1, 2), ih, iw, _int(rng, 1, 4), oh, ow, kh, kw, sh, sw, pt, pl


def _pad_args(rng, typecode):
    dims = [_int(rng, 1, 3) for _ in range(4)]
    before = [_int(rng, 0, 2) for _ in range(4)]
    after = [_int(rng, 0, 2) for _ in range(4)]
    count = int(np.prod([d + b + a for d, b, a in zip(dims, before, after)]))
    src = s8(rng, int(np.prod(dims))) if typecode == "b" else f32(rng, int(np.prod(dims)))
    value = _int(rng, -128, 127) if typecode == "b" else _f32(rng.standard_normal())
    return [src, out(typecode, count)] + dims + before + after + [value]


def _concat_args(rng, typecode):
    outer, sizes = _int(rng, 1, 3), [_int(rng, 1, 5) for _ in range(_int(rng, 1, 4))]
    make = s8 if typecode == "b" else f32
    return [{"list": [make(rng, outer * s) for s in sizes]}, buf("i", sizes),
            out(typecode, outer * sum(sizes)), outer]


def _strided_args(rng, typecode):
    """A box of up to 6 axes with strides of any sign, read from inside a random input."""
    dims = [_int(rng, 1, 3) for _ in range(6)]
    strides = [_int(rng, -6, 6) for _ in range(6)]
    lo = sum(min(0, (d - 1) * s) for d, s in zip(dims, strides))
    hi = sum(max(0, (d - 1) * s) for d, s in zip(dims, strides))
    offset = _int(rng, 0, 3) - lo
    size = offset + hi + 1 + _int(rng, 0, 3)
    src = s8(rng, size) if typecode == "b" else f32(rng, size)
    return [src, out(typecode, int(np.prod(dims))), offset] + dims + strides

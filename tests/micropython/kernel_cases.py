"""Random argument lists for every kernel of the `burnflex` module, in burn.graph's
signatures, written as JSON lines for mp_compare.py (which runs them on MicroPython).

A line is [kernel, plain module, plain function, args]; an argument is a number, None, a
buffer {"t": typecode, "hex": its bytes}, an output buffer {"t": typecode, "out": count}
or a list of buffers {"list": [...]}. Parameters come from burn.graph.fixedpoint, as an
exported model's would, so every case is a valid op. An output buffer with "below": d may
overlap the first argument, starting d elements below it, as the .bst arena plans an
output over an input that dies at the op (board_kernel_cases.in_place): mp_compare.py then
runs the C kernel both out of place and so, against one out-of-place run of the plain
kernel.
"""

import json

import numpy as np
from case_args import (
    ACTS,
    _broadcast,
    _concat_args,
    _f32,
    _int,
    _pad_args,
    _pool_geometry,
    _quant_out,
    _scales,
    _strided_args,
    buf,
    conv_shape,
    f32,
    out,
    s8,
    window,
)
from kernel_cases_s16 import CASTS, S16, S32

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp
from burn.host.importers import arith_params


def conv_s8(rng, depthwise=False, geometry=None, channels=None):
    """A convolution: random window and channels, or the given geometry (window()'s tuple)
    and channels ((ic, oc) for conv2d, (ic, depth multiplier) for depthwise)."""
    ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl = geometry or window(rng)
    n = 1 if geometry else _int(rng, 1, 2)
    if depthwise:
        ic, dm = channels or (_int(rng, 1, 4), _int(rng, 1, 2))
        oc, wn, k = ic * dm, kh * kw * ic * dm, kh * kw
    else:
        groups = 1 if channels else int(rng.choice([1, 1, 2, 3]))
        ic, oc = channels or (groups * _int(rng, 1, 3), groups * _int(rng, 1, 3))
        wn, k = oc * kh * kw * (ic // groups), kh * kw * ic // groups
    in_scale, in_zp = _f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
    w_scales = [_f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    out_zp, lo, hi, mult, shift = _quant_out(rng, in_scale, w_scales, k)
    head = [s8(rng, n * ih * iw * ic), buf("b", rng.integers(-127, 128, size=wn)),
            buf("i", rng.integers(-3000, 3000, size=oc)), buf("i", mult), buf("i", shift),
            out("b", n * oh * ow * oc), n, ih, iw, ic, oh, ow]
    middle = [dm, kh, kw] if depthwise else [oc, kh, kw, groups]
    return head + middle + [sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi]


def _transpose_geometry(rng):
    """n, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, pt, pl of a transposed convolution: any
    output size and padding the kernels accept."""
    n, ih, iw, ic, oc = (_int(rng, 1, hi) for hi in (2, 4, 4, 4, 4))
    kh, kw, sh, sw = (_int(rng, 1, 3) for _ in range(4))
    oh, ow = (ih - 1) * sh + kh + _int(rng, -1, 1), (iw - 1) * sw + kw + _int(rng, -1, 1)
    return [n, ih, iw, ic, max(oh, 1), max(ow, 1), oc, kh, kw, sh, sw, _int(rng, 0, kh - 1),
            _int(rng, 0, kw - 1)]


def transpose_conv_s8(rng):
    g = _transpose_geometry(rng)
    n, ih, iw, ic, oh, ow, oc, kh, kw = g[:9]
    in_scale, in_zp = _f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
    w_scales = [_f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    out_zp, lo, hi, mult, shift = _quant_out(rng, in_scale, w_scales, kh * kw * ic)
    return [s8(rng, n * ih * iw * ic), buf("b", rng.integers(-127, 128, size=oc * kh * kw * ic)),
            buf("i", rng.integers(-3000, 3000, size=oc)), buf("i", mult), buf("i", shift),
            out("b", n * oh * ow * oc)] + g + [in_zp, out_zp, lo, hi]


def transpose_conv_s16(rng):
    """int16x8: zero points 0, the clamp of int16, shifts within TFLM's int64 requantization."""
    g = _transpose_geometry(rng)
    n, ih, iw, ic, oh, ow, oc, kh, kw = g[:9]
    in_scale = _f32(rng.uniform(1e-4, 1e-3))
    w_scales = [_f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    out_scale = _f32(in_scale * np.mean(w_scales) * rng.uniform(20, 80) * np.sqrt(kh * kw * ic))
    mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
    return [buf("h", rng.integers(-32768, 32768, size=n * ih * iw * ic)),
            buf("b", rng.integers(-127, 128, size=oc * kh * kw * ic)),
            buf("i", rng.integers(-30000, 30000, size=oc)), buf("i", list(mult)),
            buf("i", list(shift)), out("h", n * oh * ow * oc)] + g + [0, 0, -32768, 32767]


def transpose_conv_f32(rng):
    g = _transpose_geometry(rng)
    n, ih, iw, ic, oh, ow, oc, kh, kw = g[:9]
    bias = f32(rng, oc) if rng.integers(0, 2) else None
    return [f32(rng, n * ih * iw * ic), f32(rng, oc * kh * kw * ic), bias,
            out("f", n * oh * ow * oc)] + g + [int(rng.choice(ACTS))]


def fully_connected_s8(rng, shape=None):
    batches, fin, fout = shape or (_int(rng, 1, 3), _int(rng, 1, 40), _int(rng, 1, 12))
    in_scale, in_zp = _f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
    w_scales = [_f32(rng.uniform(0.001, 0.05))] * fout
    if rng.integers(0, 2):
        w_scales = [_f32(rng.uniform(0.001, 0.05)) for _ in range(fout)]
    out_zp, lo, hi, mult, shift = _quant_out(rng, in_scale, w_scales, fin)
    return [s8(rng, batches * fin), buf("b", rng.integers(-127, 128, size=fout * fin)),
            buf("i", rng.integers(-3000, 3000, size=fout)), buf("i", mult), buf("i", shift),
            out("b", batches * fout), batches, fin, fout, in_zp, out_zp, lo, hi]


def add_s8(rng):
    size, b_size = _broadcast(rng)
    a_scale, b_scale, out_scale = _scales(rng, 3)
    a_zp, b_zp, out_zp = (_int(rng, -128, 127) for _ in range(3))
    left, a_mult, a_shift, b_mult, b_shift, o_mult, o_shift = qp.add_params(a_scale, b_scale,
                                                                            out_scale)
    lo, hi = qp.quant_activation_range(int(rng.choice(ACTS)), out_scale, out_zp)
    return [s8(rng, size), s8(rng, b_size), out("b", size), size, b_size, a_zp, a_mult,
            a_shift, b_zp, b_mult, b_shift, out_zp, o_mult, o_shift, left, lo, hi]


def mul_s8(rng):
    size, b_size = _broadcast(rng)
    a_scale, b_scale, out_scale = _scales(rng, 3)
    out_zp = _int(rng, -128, 127)
    mult, shift = qp.mul_params(a_scale, b_scale, out_scale)
    lo, hi = qp.quant_activation_range(int(rng.choice(ACTS)), out_scale, out_zp)
    return [s8(rng, size), s8(rng, b_size), out("b", size), size, b_size,
            _int(rng, -128, 127), _int(rng, -128, 127), out_zp, mult, shift, lo, hi]


def pool_s8(rng):
    n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl = _pool_geometry(rng)
    lo, hi = qp.quant_activation_range(int(rng.choice(ACTS)), _f32(rng.uniform(0.01, 0.1)),
                                       _int(rng, -128, 127))
    return [s8(rng, n * ih * iw * c), out("b", n * oh * ow * c), n, ih, iw, c, oh, ow, kh, kw,
            sh, sw, pt, pl, lo, hi]


def mean_s8(rng):
    outer, reduce, inner = _int(rng, 1, 4), _int(rng, 1, 9), _int(rng, 1, 5)
    in_scale, out_scale = _scales(rng, 2)
    mult, shift = qp.mean_params(in_scale, out_scale, reduce)
    return [s8(rng, outer * reduce * inner), out("b", outer * inner), outer, reduce, inner,
            _int(rng, -128, 127), _int(rng, -128, 127), mult, shift]


def softmax_s8(rng):
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 20)
    mult, left, diff_min = qp.softmax_params(_f32(rng.uniform(0.5, 2.0)),
                                             _f32(rng.uniform(0.01, 0.3)))
    return [s8(rng, rows * depth), out("b", rows * depth), rows, depth, mult, left, diff_min]


def q4_s8(rng):
    size = _int(rng, 1, 64)
    mult, left, radius = qp.logistic_params(_f32(rng.uniform(0.01, 0.3)))
    return [s8(rng, size), out("b", size), size, _int(rng, -128, 127), mult, left, radius]


def requantize_s8(rng):
    size = _int(rng, 1, 64)
    mult, shift = qp.requantize_params(*_scales(rng, 2))
    return [s8(rng, size), out("b", size), size, _int(rng, -128, 127), _int(rng, -128, 127),
            mult, shift]


def quantize_s8(rng):
    size, scale = _int(rng, 1, 64), _f32(rng.uniform(0.01, 0.2))
    return [f32(rng, size, 60 * scale), out("b", size), size, scale, _int(rng, -128, 127)]


def dequantize_s8(rng):
    size = _int(rng, 1, 64)
    return [s8(rng, size), out("f", size), size, _f32(rng.uniform(0.01, 0.2)),
            _int(rng, -128, 127)]


def conv_f32(rng, depthwise=False):
    n, ic, oc, wn, (ih, iw, oh, ow), middle, window_args = conv_shape(rng, depthwise)
    bias = f32(rng, oc) if rng.integers(0, 2) else None
    return ([f32(rng, n * ih * iw * ic), f32(rng, wn), bias, out("f", n * oh * ow * oc), n, ih,
             iw, ic, oh, ow] + middle + window_args + [int(rng.choice(ACTS))])


def fully_connected_f32(rng):
    batches, fin, fout = _int(rng, 1, 3), _int(rng, 1, 40), _int(rng, 1, 12)
    bias = f32(rng, fout) if rng.integers(0, 2) else None
    return [f32(rng, batches * fin), f32(rng, fout * fin), bias, out("f", batches * fout),
            batches, fin, fout, int(rng.choice(ACTS))]


def binary_f32(rng):
    size, b_size = _broadcast(rng)
    return [f32(rng, size), f32(rng, b_size), out("f", size), size, b_size,
            int(rng.choice(ACTS))]


def clamp_f32(rng):
    size = _int(rng, 1, 64)
    return [f32(rng, size, 4.0), out("f", size), size, int(rng.choice(ACTS))]


def unary_f32(rng):
    size = _int(rng, 1, 64)
    return [f32(rng, size, 3.0), out("f", size), size]


def pool_f32(rng):
    n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl = _pool_geometry(rng)
    return [f32(rng, n * ih * iw * c), out("f", n * oh * ow * c), n, ih, iw, c, oh, ow, kh, kw,
            sh, sw, pt, pl, int(rng.choice(ACTS))]


def mean_f32(rng):
    outer, reduce, inner = _int(rng, 1, 4), _int(rng, 1, 9), _int(rng, 1, 5)
    return [f32(rng, outer * reduce * inner), out("f", outer * inner), outer, reduce, inner]


def softmax_f32(rng):
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 20)
    return [f32(rng, rows * depth, 3.0), out("f", rows * depth), rows, depth,
            _f32(rng.uniform(0.5, 2.0))]


def lookup_s8(rng):
    size = _int(rng, 1, 300)
    return [s8(rng, size), out("b", size), size, s8(rng, 256)]


def activation_f32(rng):
    """burn.graph.unary's float32 activations (sqrt and rsqrt of positive inputs)."""
    from burn.graph import unary

    size, fn = _int(rng, 1, 64), int(rng.choice(unary.FN))
    x = rng.standard_normal(size) * 3.0
    if fn in (unary.SQRT, unary.RSQRT):
        x = np.abs(x) + 0.01
    return [buf("f", x), out("f", size), size, fn, _f32(rng.uniform(-1.0, 2.0))]


def _prelu_sizes(rng):
    alpha_size = _int(rng, 1, 8)
    return alpha_size * _int(rng, 1, 16), alpha_size


def prelu_s8(rng):
    size, alpha_size = _prelu_sizes(rng)
    in_s, a_s, out_s = (_f32(rng.uniform(0.005, 0.2)) for _ in range(3))
    pm, ps = qp.quantize_multiplier(in_s / out_s)
    nm, ns = qp.quantize_multiplier(in_s * a_s / out_s)
    return [s8(rng, size), s8(rng, alpha_size), out("b", size), size, alpha_size,
            _int(rng, -128, 127), _int(rng, -128, 127), _int(rng, -128, 127), pm, ps, nm, ns]


def prelu_s16(rng):
    """int16 input and output, an int8 alpha; the scales keep the shifts within int16's."""
    size, alpha_size = _prelu_sizes(rng)
    in_s, a_s = _f32(rng.uniform(1e-4, 1e-3)), _f32(rng.uniform(0.002, 0.02))
    out_s = _f32(in_s * rng.uniform(0.7, 3))
    pm, ps = qp.quantize_multiplier(in_s / out_s)
    nm, ns = qp.quantize_multiplier(in_s * a_s / out_s)
    return [buf("h", rng.integers(-32768, 32768, size=size)), s8(rng, alpha_size),
            out("h", size), size, alpha_size, _int(rng, -300, 300), _int(rng, -128, 127),
            _int(rng, -300, 300), pm, ps, nm, ns]


def prelu_f32(rng):
    size, alpha_size = _prelu_sizes(rng)
    return [f32(rng, size), f32(rng, alpha_size), out("f", size), size, alpha_size]


def log_softmax_s8(rng):
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 40)
    mult, left_shift, diff_min = qp.softmax_params(1.0, _f32(rng.uniform(0.005, 0.5)))
    rm, rs = qp.quantize_multiplier((1 << (31 - left_shift)) / mult)
    return [s8(rng, rows * depth), out("b", rows * depth), rows, depth, mult, left_shift, rm,
            rs, diff_min]


def log_softmax_f32(rng):
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 20)
    return [f32(rng, rows * depth, 3.0), out("f", rows * depth), rows, depth]
def _svdf_args(rng, typecode):
    """An SVDF call whose state already holds values (int16 or int8 ones for int8)."""
    batch, n_in, units, rank, memory = (_int(rng, 1, 2), _int(rng, 1, 9), _int(rng, 1, 4),
                                        _int(rng, 1, 2), _int(rng, 1, 5))
    filters = units * rank
    if typecode == "f":
        return [f32(rng, batch * n_in), f32(rng, filters * n_in), f32(rng, filters * memory),
                f32(rng, units), f32(rng, batch * filters * memory), out("f", batch * units),
                batch, n_in, filters, memory, rank, int(rng.choice(ACTS))]
    bits = 8 if rng.integers(0, 2) else 16
    top = 1 << (bits - 1)  # wt and state values in [-top, top)
    m1, s1 = qp.quantize_multiplier(_f32(rng.uniform(0.05, 2) * top / 32768))
    m2, s2 = qp.quantize_multiplier(_f32(rng.uniform(1e-6, 1e-4) * (32768 / top) ** 2))
    return [s8(rng, batch * n_in), s8(rng, filters * n_in),
            buf("i", rng.integers(-top // 8, top // 8, size=filters * memory)),
            buf("i", rng.integers(-1 << 16, 1 << 16, size=units)),
            buf("i", rng.integers(-top // 2, top // 2, size=batch * filters * memory)),
            out("b", batch * units), batch, n_in, filters, memory, rank,
            _int(rng, -128, 127), _int(rng, -top // 300, top // 300), _int(rng, -128, 127),
            m1, s1, m2, s2, bits]
def _lstm_args(rng, typecode):
    """An LSTM call whose hidden and cell states already hold values; typecode "b" int8,
    "h" int16 (int8 weights, zero points 0), "f" float32."""
    batch, steps, n_in, units = _int(rng, 1, 2), _int(rng, 1, 4), _int(rng, 1, 8), _int(rng, 1, 6)
    rows, gates = batch * steps, 4 * units
    if typecode in ("b", "h"):
        from burn.host.importers.sigmoid16 import sigmoid_table

        wide = typecode == "h"
        # the spread of the activations, the hidden scale, the hidden state's values
        spread, h_s, top = (18900, 1 / 32768, 20000) if wide else (74, 1 / 128, 100)
        power = _int(rng, -15, -8)
        gate_q = []  # sums of about +-2 in Q3.12
        for n in (n_in, units) * 4:
            gate_q += qp.quantize_multiplier(rng.uniform(0.5, 2) * 8192 /
                                             (spread * 74 * np.sqrt(n)))
        tail = [*qp.quantize_multiplier(2.0 ** -15), *qp.quantize_multiplier(2.0 ** (-30 - power)),
                *qp.quantize_multiplier(2.0 ** -30 / h_s)]
        x = buf("h", rng.integers(-32768, 32768, size=rows * n_in)) if wide else \
            s8(rng, rows * n_in)
        zps = [0, 0] if wide else [_int(rng, -128, 127), _int(rng, -20, 20)]
        return [x, s8(rng, gates * n_in), s8(rng, gates * units),
                buf("i", rng.integers(-3000, 3000, size=gates) * (100 if wide else 1)),
                buf("h", np.concatenate([rng.integers(-top, top, size=batch * units),
                                         rng.integers(-30000, 30000, size=(batch + 4) * units)])),
                out(typecode, rows * units), batch, steps, n_in, units, _int(rng, 0, 1),
                buf("i", gate_q), buf("h", sigmoid_table()), *zps,
                int(rng.choice([-1, _int(rng, 0, 20000)])), power] + tail
    return [f32(rng, rows * n_in), f32(rng, gates * n_in, 0.5), f32(rng, gates * units, 0.5),
            f32(rng, gates), f32(rng, (2 * batch + 4) * units, 0.5), out("f", rows * units),
            batch, steps, n_in, units, _int(rng, 0, 1),
            _f32(rng.uniform(0.2, 2)) * _int(rng, 0, 1)]


def _reduce_dims(rng):
    return [_int(rng, 1, 3), _int(rng, 1, 4), _int(rng, 1, 3), _int(rng, 1, 4), _int(rng, 1, 3)]


def reduce_s8(rng):
    dims = _reduce_dims(rng)
    op = int(rng.choice([0, 2, 3]))  # sum, max, min (burn.graph.reduce)
    in_scale, out_scale = _scales(rng, 2)
    mult, shift = qp.mean_params(in_scale, out_scale, dims[1] * dims[3]) if op == 0 else (0, 0)
    return [s8(rng, int(np.prod(dims))), out("b", dims[0] * dims[2] * dims[4])] + dims + [
        op, _int(rng, -128, 127), _int(rng, -128, 127), mult, shift]


def reduce_f32(rng):
    dims = _reduce_dims(rng)
    return [f32(rng, int(np.prod(dims))), out("f", dims[0] * dims[2] * dims[4])] + dims + [
        _int(rng, 0, 3)]


def _resize_args(rng, typecode):
    from burn.host.importers.resize_tables import tables

    n, ih, iw, c, oh, ow = (_int(rng, 1, 2), _int(rng, 1, 5), _int(rng, 1, 5), _int(rng, 1, 3),
                            _int(rng, 1, 7), _int(rng, 1, 7))
    bilinear, align = typecode != "h" and bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    half = not align and bool(rng.integers(0, 2))
    ys, fy = tables(ih, oh, bilinear, typecode != "f", align, half)
    xs, fx = tables(iw, ow, bilinear, typecode != "f", align, half)
    count = n * ih * iw * c
    src = {"b": s8, "f": f32}[typecode](rng, count) if typecode != "h" else \
        buf("h", rng.integers(-32768, 32768, size=count))
    args = [src, out(typecode, n * oh * ow * c), n, ih, iw, c, oh, ow, buf("i", ys),
            buf("i", xs)]
    return args if typecode != "f" else args + [buf("f", fy), buf("f", fx)]


def _arg_args(rng, typecode):
    outer, reduce, inner = _int(rng, 1, 4), _int(rng, 1, 9), _int(rng, 1, 5)
    src = buf("b", rng.integers(-3, 4, size=outer * reduce * inner)) if typecode == "b" else \
        buf("f", rng.integers(-3, 4, size=outer * reduce * inner))  # with ties
    op = _int(rng, 0, 3)  # + 2: int32 indices
    return [src, out("i" if op & 2 else "f", outer * inner), outer, reduce, inner, op]


def l2norm_s8(rng):
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 30)
    return [s8(rng, rows * depth), out("b", rows * depth), rows, depth, _int(rng, -128, 127)]


def l2norm_f32(rng):
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 30)
    return [f32(rng, rows * depth, 3.0), out("f", rows * depth), rows, depth]


def _matmul_args(rng, typecode):
    batches, m, k, n = _int(rng, 1, 3), _int(rng, 1, 5), _int(rng, 1, 9), _int(rng, 1, 5)
    a_step, b_step = (m * k, 0) if rng.integers(0, 2) else (0, k * n)
    sizes = ((batches - 1) * a_step + m * k, (batches - 1) * b_step + k * n)
    make = {"b": s8, "f": f32,
            "h": lambda r, count: buf("h", r.integers(-32768, 32768, size=count))}[typecode]
    args = [make(rng, sizes[0]), make(rng, sizes[1]), out(typecode, batches * m * n), batches,
            m, k, n, a_step, b_step, _int(rng, 0, 1), _int(rng, 0, 1)]
    if typecode == "f":
        return args
    if typecode == "h":  # zero points 0, TFLM's int64 requantization
        mult, shift = qp.quantize_multiplier(_f32(rng.uniform(1e-5, 1e-4)))
        return args + [0, 0, 0, mult, shift]
    mult, shift = qp.quantize_multiplier(_f32(rng.uniform(0.001, 0.02)))
    return args + [_int(rng, -128, 127), _int(rng, -128, 127), _int(rng, -128, 127), mult,
                   shift]


def sub_like_s8(rng, squared=False):
    """SUB (with a random swap) or SQUARED_DIFFERENCE, parameters as TFLM's Prepare()."""
    size, b_size = _broadcast(rng)
    a_scale, b_scale, out_scale = _scales(rng, 3)
    if squared:  # an output scale fit for squares, so that the output shift stays <= 0
        out_scale = _f32(max(a_scale, b_scale) ** 2 * rng.uniform(20, 400))
    a_zp, b_zp, out_zp = (_int(rng, -128, 127) for _ in range(3))
    params = (arith_params.squared_difference_params if squared else
              arith_params.sub_params)(a_scale, b_scale, out_scale)
    left, a_mult, a_shift, b_mult, b_shift, o_mult, o_shift = params
    act = fp.ACT_NONE if squared else int(rng.choice(ACTS))
    lo, hi = qp.quant_activation_range(act, out_scale, out_zp)
    return [s8(rng, size), s8(rng, b_size), out("b", size), size, b_size, a_zp, a_mult,
            a_shift, b_zp, b_mult, b_shift, out_zp, o_mult, o_shift, left, lo, hi] + \
        ([] if squared else [_int(rng, 0, 1)])


def extreme(rng, typecode):
    """MAXIMUM or MINIMUM: two buffers, b broadcast."""
    size, b_size = _broadcast(rng)
    make = s8 if typecode == "b" else f32
    return [make(rng, size), make(rng, b_size), out(typecode, size), size, b_size]


def sub_f32(rng):
    return binary_f32(rng) + [_int(rng, 0, 1)]


def div_f32(rng):
    """DIV, FLOOR_DIV or FLOOR_MOD (op 0..2), maybe swapped, with an activation; divisors
    kept away from 0."""
    size, b_size = _broadcast(rng)
    a, b = (rng.standard_normal(n) * 3 for n in (size, b_size))
    a, b = (np.where(abs(v) < 0.25, v + 0.5, v) for v in (a, b))
    return [buf("f", a), buf("f", b), out("f", size), size, b_size, _int(rng, 0, 2),
            _int(rng, 0, 1), int(rng.choice(ACTS))]


def div_s8(rng):
    """int8 DIV, maybe swapped, zero divisors included (b's zero point among its values)."""
    size, b_size = _broadcast(rng)
    a_scale, b_scale, out_scale = _scales(rng, 3)
    a_zp, b_zp, out_zp = (_int(rng, -128, 127) for _ in range(3))
    mult, shift = qp.div_params(a_scale, b_scale, out_scale)
    lo, hi = qp.quant_activation_range(int(rng.choice(ACTS)), out_scale, out_zp)
    b = rng.integers(-128, 128, size=b_size)
    b[0] = b_zp
    return [s8(rng, size), buf("b", b), out("b", size), size, b_size, _int(rng, 0, 1), a_zp,
            b_zp, out_zp, mult, shift, lo, hi]


def _gather_args(rng, typecode):
    """Rows of [outer, size, inner] at random int32 positions (repeats too)."""
    outer, size, inner, count = (_int(rng, 1, 4) for _ in range(4))
    data = s8(rng, outer * size * inner) if typecode == "b" else f32(rng, outer * size * inner)
    return [data, buf("i", rng.integers(0, size, size=count)),
            out(typecode, outer * count * inner), outer, size, inner, count]


# kernel: (burn.graph module, plain function, generator)
INT8 = {
    "conv_s8": ("s8_conv", "conv_s8_plain", conv_s8),
    "depthwise_conv_s8": ("s8_depthwise_conv", "depthwise_conv_s8_plain",
                          lambda rng: conv_s8(rng, depthwise=True)),
    "fully_connected_s8": ("s8_fully_connected", "fully_connected_s8_plain",
                           fully_connected_s8),
    "add_s8": ("s8_add", "add_s8_plain", add_s8),
    "mul_s8": ("s8_mul", "mul_s8_plain", mul_s8),
    "avg_pool_s8": ("s8_pool", "avg_pool_s8_plain", pool_s8),
    "max_pool_s8": ("s8_pool", "max_pool_s8_plain", pool_s8),
    "mean_s8": ("s8_mean", "mean_s8_plain", mean_s8),
    "softmax_s8": ("s8_softmax", "softmax_s8_plain", softmax_s8),
    "logistic_s8": ("s8_logistic", "logistic_s8_plain", q4_s8),
    "tanh_s8": ("s8_tanh", "tanh_s8_plain", q4_s8),
    "requantize_s8": ("s8_quantize", "requantize_s8_plain", requantize_s8),
    "pad_s8": ("layout", "pad", lambda rng: _pad_args(rng, "b")),
    "concat_s8": ("layout", "concat", lambda rng: _concat_args(rng, "b")),
    "transpose_conv_s8": ("transpose_conv2d", "transpose_conv_s8_plain", transpose_conv_s8),
    "lookup_s8": ("unary", "lookup_s8_plain", lookup_s8),
    "prelu_s8": ("prelu", "prelu_s8_plain", prelu_s8),
    "log_softmax_s8": ("log_softmax", "log_softmax_s8_plain", log_softmax_s8),
    "svdf_s8": ("svdf", "svdf_s8_plain", lambda rng: _svdf_args(rng, "b")),
    "strided_s8": ("strided", "strided", lambda rng: _strided_args(rng, "b")),
    "reduce_s8": ("reduce", "reduce_s8_plain", reduce_s8),
    "resize_s8": ("resize", "resize_s8_plain", lambda rng: _resize_args(rng, "b")),
    "arg_s8": ("arg", "arg_s8_plain", lambda rng: _arg_args(rng, "b")),
    "l2norm_s8": ("l2norm", "l2norm_s8_plain", l2norm_s8),
    "batch_matmul_s8": ("batch_matmul", "batch_matmul_s8_plain",
                        lambda rng: _matmul_args(rng, "b")),
    "sub_s8": ("s8_arith", "sub_s8_plain", sub_like_s8),
    "squared_difference_s8": ("s8_arith", "squared_difference_s8_plain",
                              lambda rng: sub_like_s8(rng, squared=True)),
    "maximum_s8": ("s8_arith", "maximum_s8_plain", lambda rng: extreme(rng, "b")),
    "minimum_s8": ("s8_arith", "minimum_s8_plain", lambda rng: extreme(rng, "b")),
    "div_s8": ("div", "div_s8_plain", div_s8),
    "lstm_s8": ("lstm", "lstm_s8", lambda rng: _lstm_args(rng, "b")),
    "gather_s8": ("gather", "gather_s8", lambda rng: _gather_args(rng, "b")),
}
FLOAT = {
    "quantize_s8": ("s8_quantize", "quantize_s8", quantize_s8),
    "dequantize_s8": ("s8_quantize", "dequantize_s8", dequantize_s8),
    "conv_f32": ("f32_conv", "conv_f32", conv_f32),
    "depthwise_conv_f32": ("f32_depthwise_conv", "depthwise_conv_f32",
                           lambda rng: conv_f32(rng, depthwise=True)),
    "fully_connected_f32": ("f32_fully_connected", "fully_connected_f32",
                            fully_connected_f32),
    "add_f32": ("f32_elementwise", "add_f32", binary_f32),
    "mul_f32": ("f32_elementwise", "mul_f32", binary_f32),
    "clamp_f32": ("f32_elementwise", "clamp_f32", clamp_f32),
    "logistic_f32": ("f32_elementwise", "logistic_f32", unary_f32),
    "tanh_f32": ("f32_elementwise", "tanh_f32", unary_f32),
    "avg_pool_f32": ("f32_pool", "avg_pool_f32", pool_f32),
    "max_pool_f32": ("f32_pool", "max_pool_f32", pool_f32),
    "mean_f32": ("f32_mean", "mean_f32", mean_f32),
    "softmax_f32": ("f32_softmax", "softmax_f32", softmax_f32),
    "pad": ("layout", "pad", lambda rng: _pad_args(rng, "f")),
    "concat": ("layout", "concat", lambda rng: _concat_args(rng, "f")),
    "transpose_conv_f32": ("transpose_conv2d", "transpose_conv_f32", transpose_conv_f32),
    "unary_f32": ("unary", "unary_f32", activation_f32),
    "prelu_f32": ("prelu", "prelu_f32", prelu_f32),
    "log_softmax_f32": ("log_softmax", "log_softmax_f32", log_softmax_f32),
    "svdf_f32": ("svdf", "svdf_f32", lambda rng: _svdf_args(rng, "f")),
    "strided": ("strided", "strided", lambda rng: _strided_args(rng, "f")),
    "reduce_f32": ("reduce", "reduce_f32", reduce_f32),
    "resize_f32": ("resize", "resize_f32", lambda rng: _resize_args(rng, "f")),
    "arg_f32": ("arg", "arg_f32", lambda rng: _arg_args(rng, "f")),
    "l2norm_f32": ("l2norm", "l2norm_f32", l2norm_f32),
    "batch_matmul_f32": ("batch_matmul", "batch_matmul_f32", lambda rng: _matmul_args(rng, "f")),
    "sub_f32": ("f32_arith", "sub_f32", sub_f32),
    "squared_difference_f32": ("f32_arith", "squared_difference_f32",
                               lambda rng: extreme(rng, "f")),
    "maximum_f32": ("f32_arith", "maximum_f32", lambda rng: extreme(rng, "f")),
    "minimum_f32": ("f32_arith", "minimum_f32", lambda rng: extreme(rng, "f")),
    "div_f32": ("div", "div_f32", div_f32),
    "lstm_f32": ("lstm", "lstm_f32", lambda rng: _lstm_args(rng, "f")),
    "gather_f32": ("gather", "gather_f32", lambda rng: _gather_args(rng, "f")),
}


# the int16 kernels of kinds whose argument makers live here
S16 = {**S16, "resize_s16": ("resize", "resize_s16", lambda rng: _resize_args(rng, "h")),
       "prelu_s16": ("prelu", "prelu_s16", prelu_s16),
       "batch_matmul_s16": ("batch_matmul", "batch_matmul_s16",
                            lambda rng: _matmul_args(rng, "h")),
       "transpose_conv_s16": ("transpose_conv2d", "transpose_conv_s16", transpose_conv_s16),
       "lstm_s16": ("lstm", "lstm_s16", lambda rng: _lstm_args(rng, "h"))}
KERNELS = {**INT8, **FLOAT, **S16, **S32, **CASTS}


def write_cases(path, count, seed=0, kernels=KERNELS):
    """Write `count` cases of every kernel in `kernels` to `path` (JSON lines)."""
    with open(path, "w") as f:
        for index, (name, (module, plain, make)) in enumerate(sorted(kernels.items())):
            rng = np.random.default_rng([seed, index])
            for _ in range(count):
                f.write(json.dumps([name, module, plain, make(rng)]) + "\n")

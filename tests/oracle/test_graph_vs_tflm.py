"""Every int8 graph kernel against the tflite-micro interpreter, bit for bit.

Each case builds a one-op .tflite model with random shapes, parameters and data (seeded),
runs it in TFLM, runs our kernel with parameters derived from the same float32 scales the
way TFLM's Prepare derives them, and asserts exact equality.
"""

import os
import sys
from array import array

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tflite_builder import ModelBuilder, run_tflm

from burn.graph import fixedpoint as fp
from burn.graph.geometry import out_size, pad_before

ACTS = (fp.ACT_NONE, fp.ACT_RELU, fp.ACT_RELU6)


def f32(v):
    """A random draw rounded to float32, as the .tflite file stores it."""
    return float(np.float32(v))


def s8(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def out_buf(shape):
    return array("b", bytes(int(np.prod(shape))))


def check(ours, theirs, what):
    got = np.frombuffer(bytes(ours), dtype=np.int8) if isinstance(ours, array) else ours
    want = np.asarray(theirs).reshape(-1)
    if not np.array_equal(np.asarray(got).reshape(-1), want):
        diff = np.nonzero(np.asarray(got).reshape(-1) != want)[0]
        raise AssertionError(what + ": %d of %d differ, first at %d: ours %r tflm %r" % (
            len(diff), want.size, diff[0], np.asarray(got).reshape(-1)[diff[0]],
            want[diff[0]]))


def _window(rng, size_max=7):
    ih, iw = int(rng.integers(1, size_max + 1)), int(rng.integers(1, size_max + 1))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    sh, sw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    same = bool(rng.integers(0, 2))
    return ih, iw, kh, kw, sh, sw, same


def _geometry(ih, iw, kh, kw, sh, sw, dh, dw, same):
    oh = out_size(ih, kh, sh, dh, same)
    ow = out_size(iw, kw, sw, dw, same)
    return oh, ow, pad_before(ih, kh, sh, dh, oh), pad_before(iw, kw, sw, dw, ow)


def _conv_case(rng, depthwise):
    from burn.graph.s8_conv import conv_s8
    from burn.graph.s8_depthwise_conv import depthwise_conv_s8

    while True:
        ih, iw, kh, kw, sh, sw, same = _window(rng)
        dh, dw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        if (kh - 1) * dh + 1 <= ih and (kw - 1) * dw + 1 <= iw:
            break
    n = int(rng.integers(1, 3))
    if depthwise:
        ic, groups, mult_d = int(rng.integers(1, 5)), 1, int(rng.integers(1, 3))
        oc = ic * mult_d
        wshape = (1, kh, kw, oc)
    else:
        groups = int(rng.choice([1, 1, 2, 3]))
        ic = groups * int(rng.integers(1, 4))
        oc = groups * int(rng.integers(1, 4))
        wshape = (oc, kh, kw, ic // groups)
    oh, ow, pt, pl = _geometry(ih, iw, kh, kw, sh, sw, dh, dw, same)
    in_scale, in_zp = f32(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    k = kh * kw * (ic // groups if not depthwise else 1)
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(30, 120) * np.sqrt(k))
    out_zp = int(rng.integers(-128, 128))
    act = int(rng.choice(ACTS))
    x = s8(rng, (n, ih, iw, ic))
    w = rng.integers(-127, 128, size=wshape, dtype=np.int8)
    bias = rng.integers(-3000, 3000, size=oc, dtype=np.int32)
    mb = ModelBuilder()
    tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
    tw = mb.tensor("w", wshape, "int8", data=w, scale=w_scales, zero_point=[0] * oc,
                   quantized_dimension=3 if depthwise else 0)
    tb = mb.tensor("b", (oc,), "int32", data=bias, scale=[in_scale * s for s in w_scales],
                   zero_point=[0] * oc)
    ty = mb.tensor("y", (n, oh, ow, oc), "int8", scale=out_scale, zero_point=out_zp)
    common = dict(Padding=0 if same else 1, StrideH=sh, StrideW=sw, DilationHFactor=dh,
                  DilationWFactor=dw, FusedActivationFunction=act)
    if depthwise:
        mb.op("DEPTHWISE_CONV_2D", [tx, tw, tb], [ty], "DepthwiseConv2DOptions",
              DepthMultiplier=mult_d, **common)
    else:
        mb.op("CONV_2D", [tx, tw, tb], [ty], "Conv2DOptions", **common)
    (want,) = run_tflm(mb.finish([tx], [ty]), [x])
    mult, shift = fp.conv_output_multipliers(in_scale, w_scales, out_scale)
    lo, hi = fp.quant_activation_range(act, out_scale, out_zp)
    out = out_buf((n, oh, ow, oc))
    xb, wb, bb = array("b", x.tobytes()), w.tobytes(), array("i", bias.tolist())
    if depthwise:
        depthwise_conv_s8(xb, wb, bb, mult, shift, out, n, ih, iw, ic, oh, ow, mult_d, kh, kw,
                          sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi)
    else:
        conv_s8(xb, wb, bb, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
                sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi)
    check(out, want, "conv" if not depthwise else "depthwise_conv")


def test_conv_matches_tflm():
    rng = np.random.default_rng(11)
    for _ in range(40):
        _conv_case(rng, depthwise=False)


def test_depthwise_conv_matches_tflm():
    rng = np.random.default_rng(12)
    for _ in range(40):
        _conv_case(rng, depthwise=True)


def test_fully_connected_matches_tflm():
    from burn.graph.s8_fully_connected import fully_connected_s8

    rng = np.random.default_rng(13)
    for case in range(40):
        batches, fin, fout = (int(rng.integers(1, 4)), int(rng.integers(1, 40)),
                              int(rng.integers(1, 12)))
        per_channel = case % 2 == 0
        in_scale, in_zp = f32(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
        w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(fout if per_channel else 1)]
        out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(10, 60) * np.sqrt(fin))
        out_zp, act = int(rng.integers(-128, 128)), int(rng.choice(ACTS))
        x = s8(rng, (batches, fin))
        w = rng.integers(-127, 128, size=(fout, fin), dtype=np.int8)
        bias = rng.integers(-3000, 3000, size=fout, dtype=np.int32)
        mb = ModelBuilder()
        tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
        tw = mb.tensor("w", w.shape, "int8", data=w, scale=w_scales,
                       zero_point=[0] * len(w_scales))
        tb = mb.tensor("b", (fout,), "int32", data=bias,
                       scale=[in_scale * s for s in w_scales], zero_point=[0] * len(w_scales))
        ty = mb.tensor("y", (batches, fout), "int8", scale=out_scale, zero_point=out_zp)
        mb.op("FULLY_CONNECTED", [tx, tw, tb], [ty], "FullyConnectedOptions",
              FusedActivationFunction=act)
        (want,) = run_tflm(mb.finish([tx], [ty]), [x])
        scales = w_scales if per_channel else w_scales * fout
        mult, shift = fp.conv_output_multipliers(in_scale, scales, out_scale)
        lo, hi = fp.quant_activation_range(act, out_scale, out_zp)
        out = out_buf((batches, fout))
        fully_connected_s8(array("b", x.tobytes()), w.tobytes(), array("i", bias.tolist()),
                           mult, shift, out, batches, fin, fout, in_zp, out_zp, lo, hi)
        check(out, want, "fully_connected")


def _binary_case(rng, opname):
    from burn.graph.s8_add import add_s8
    from burn.graph.s8_mul import mul_s8

    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 5))))
    bshape = shape
    if rng.integers(0, 3) == 0:
        bshape = (1,) * (len(shape) - 1) + shape[-1:]
    elif rng.integers(0, 3) == 0:
        bshape = (1,)
    scales = [f32(rng.uniform(0.005, 0.2)) for _ in range(2)]
    product = scales[0] * scales[1] * 128 if opname == "MUL" else max(scales)
    scales.append(f32(product * rng.uniform(1.0, 3.0)))
    zps = [int(z) for z in rng.integers(-128, 128, size=3)]
    act = int(rng.choice(ACTS))
    a, b = s8(rng, shape), s8(rng, bshape)
    mb = ModelBuilder()
    ta = mb.tensor("a", shape, "int8", scale=scales[0], zero_point=zps[0])
    tb = mb.tensor("b", bshape, "int8", scale=scales[1], zero_point=zps[1])
    ty = mb.tensor("y", shape, "int8", scale=scales[2], zero_point=zps[2])
    options = "AddOptions" if opname == "ADD" else "MulOptions"
    mb.op(opname, [ta, tb], [ty], options, FusedActivationFunction=act)
    (want,) = run_tflm(mb.finish([ta, tb], [ty]), [a, b])
    lo, hi = fp.quant_activation_range(act, scales[2], zps[2])
    out = out_buf(shape)
    ab, bb = array("b", a.tobytes()), array("b", b.tobytes())
    if opname == "ADD":
        ls, am, ash, bm, bsh, om, osh = fp.add_params(*scales)
        add_s8(ab, bb, out, a.size, b.size, zps[0], am, ash, zps[1], bm, bsh, zps[2], om, osh,
               ls, lo, hi)
    else:
        m, s = fp.mul_params(*scales)
        mul_s8(ab, bb, out, a.size, b.size, zps[0], zps[1], zps[2], m, s, lo, hi)
    check(out, want, opname.lower() + str(shape) + str(bshape))


def test_add_matches_tflm():
    rng = np.random.default_rng(14)
    for _ in range(40):
        _binary_case(rng, "ADD")


def test_mul_matches_tflm():
    rng = np.random.default_rng(15)
    for _ in range(40):
        _binary_case(rng, "MUL")


def _pool_case(rng, opname):
    from burn.graph.s8_pool import avg_pool_s8, max_pool_s8

    ih, iw, kh, kw, sh, sw, same = _window(rng)
    if not same:
        kh, kw = min(kh, ih), min(kw, iw)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 5))
    oh, ow, pt, pl = _geometry(ih, iw, kh, kw, sh, sw, 1, 1, same)
    scale, zp, act = f32(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128)), int(
        rng.choice(ACTS))
    x = s8(rng, (n, ih, iw, c))
    mb = ModelBuilder()
    tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
    ty = mb.tensor("y", (n, oh, ow, c), "int8", scale=scale, zero_point=zp)
    mb.op(opname, [tx], [ty], "Pool2DOptions", Padding=0 if same else 1, StrideH=sh,
          StrideW=sw, FilterHeight=kh, FilterWidth=kw, FusedActivationFunction=act)
    (want,) = run_tflm(mb.finish([tx], [ty]), [x])
    lo, hi = fp.quant_activation_range(act, scale, zp)
    out = out_buf((n, oh, ow, c))
    fn = avg_pool_s8 if opname == "AVERAGE_POOL_2D" else max_pool_s8
    fn(array("b", x.tobytes()), out, n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl, lo, hi)
    check(out, want, opname.lower())


def test_avg_pool_matches_tflm():
    rng = np.random.default_rng(16)
    for _ in range(40):
        _pool_case(rng, "AVERAGE_POOL_2D")


def test_max_pool_matches_tflm():
    rng = np.random.default_rng(17)
    for _ in range(40):
        _pool_case(rng, "MAX_POOL_2D")


def test_mean_matches_tflm():
    from burn.graph.s8_mean import mean_s8

    rng = np.random.default_rng(18)
    for case in range(40):
        shape = tuple(int(d) for d in rng.integers(1, 6, size=4))
        first = int(rng.integers(0, 4))
        last = int(rng.integers(first, 4))
        axes = list(range(first, last + 1))
        outer = int(np.prod(shape[:first]))
        reduce = int(np.prod(shape[first:last + 1]))
        inner = int(np.prod(shape[last + 1:]))
        keep = case % 2 == 0
        oshape = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keep else tuple(
            d for i, d in enumerate(shape) if i not in axes) or (1,)
        in_scale, out_scale = f32(rng.uniform(0.01, 0.1)), f32(rng.uniform(0.01, 0.1))
        in_zp, out_zp = (int(z) for z in rng.integers(-128, 128, size=2))
        x = s8(rng, shape)
        mb = ModelBuilder()
        tx = mb.tensor("x", shape, "int8", scale=in_scale, zero_point=in_zp)
        ta = mb.tensor("axis", (len(axes),), "int32", data=np.array(axes, dtype=np.int32))
        ty = mb.tensor("y", oshape, "int8", scale=out_scale, zero_point=out_zp)
        mb.op("MEAN", [tx, ta], [ty], "ReducerOptions", KeepDims=keep)
        (want,) = run_tflm(mb.finish([tx], [ty]), [x])
        m, s = fp.mean_params(in_scale, out_scale, reduce)
        out = out_buf((outer, inner))
        mean_s8(array("b", x.tobytes()), out, outer, reduce, inner, in_zp, out_zp, m, s)
        check(out, want, "mean %r axes %r" % (shape, axes))


def test_softmax_matches_tflm():
    from burn.graph.s8_softmax import softmax_s8

    rng = np.random.default_rng(19)
    for _ in range(40):
        rows, depth = int(rng.integers(1, 5)), int(rng.integers(1, 30))
        scale, zp = f32(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
        beta = f32(rng.choice([1.0, rng.uniform(0.2, 2.0)]))
        x = s8(rng, (rows, depth))
        mb = ModelBuilder()
        tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", x.shape, "int8", scale=1.0 / 256, zero_point=-128)
        mb.op("SOFTMAX", [tx], [ty], "SoftmaxOptions", Beta=beta)
        (want,) = run_tflm(mb.finish([tx], [ty]), [x])
        m, ls, diff_min = fp.softmax_params(beta, scale)
        out = out_buf(x.shape)
        softmax_s8(array("b", x.tobytes()), out, rows, depth, m, ls, diff_min)
        check(out, want, "softmax")


def _unary_case(rng, opname, out_scale, out_zp):
    from burn.graph.s8_logistic import logistic_s8
    from burn.graph.s8_tanh import tanh_s8

    scale, zp = f32(rng.uniform(0.002, 0.06)), int(rng.integers(-128, 128))
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
    mb = ModelBuilder()
    tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
    ty = mb.tensor("y", x.shape, "int8", scale=out_scale, zero_point=out_zp)
    mb.op(opname, [tx], [ty])
    (want,) = run_tflm(mb.finish([tx], [ty]), [x])
    out = out_buf(x.shape)
    if opname == "LOGISTIC":
        logistic_s8(array("b", x.tobytes()), out, 256, zp, *fp.logistic_params(scale))
    else:
        tanh_s8(array("b", x.tobytes()), out, 256, zp, *fp.tanh_params(scale))
    check(out, want, opname.lower())


def test_logistic_matches_tflm_on_every_input():
    rng = np.random.default_rng(20)
    for _ in range(25):
        _unary_case(rng, "LOGISTIC", 1.0 / 256, -128)


def test_tanh_matches_tflm_on_every_input():
    rng = np.random.default_rng(21)
    for _ in range(25):
        _unary_case(rng, "TANH", 1.0 / 128, 0)


def test_quantize_dequantize_requantize_match_tflm():
    from burn.graph.s8_quantize import dequantize_s8, quantize_s8, requantize_s8

    rng = np.random.default_rng(22)
    for _ in range(30):
        size = int(rng.integers(1, 64))
        s_in, s_out = f32(rng.uniform(0.005, 0.2)), f32(rng.uniform(0.005, 0.2))
        zp_in, zp_out = (int(z) for z in rng.integers(-128, 128, size=2))
        xf = (rng.standard_normal(size) * 4).astype(np.float32)
        # Exact halves exercise the round-half-away-from-zero rule.
        xf[: size // 4] = (np.round(xf[: size // 4] / s_out) + 0.5) * np.float32(s_out)
        mb = ModelBuilder()
        tx = mb.tensor("x", (size,), "float32")
        ty = mb.tensor("y", (size,), "int8", scale=s_out, zero_point=zp_out)
        mb.op("QUANTIZE", [tx], [ty])
        (want,) = run_tflm(mb.finish([tx], [ty]), [xf])
        out = out_buf((size,))
        quantize_s8(array("f", xf.tobytes()), out, size, s_out, zp_out)
        check(out, want, "quantize")

        xq = s8(rng, (size,))
        mb = ModelBuilder()
        tx = mb.tensor("x", (size,), "int8", scale=s_in, zero_point=zp_in)
        ty = mb.tensor("y", (size,), "float32")
        mb.op("DEQUANTIZE", [tx], [ty])
        (want,) = run_tflm(mb.finish([tx], [ty]), [xq])
        outf = array("f", bytes(4 * size))
        dequantize_s8(array("b", xq.tobytes()), outf, size, s_in, zp_in)
        assert np.array_equal(np.frombuffer(bytes(outf), dtype=np.float32), want.reshape(-1))

        mb = ModelBuilder()
        tx = mb.tensor("x", (size,), "int8", scale=s_in, zero_point=zp_in)
        ty = mb.tensor("y", (size,), "int8", scale=s_out, zero_point=zp_out)
        mb.op("QUANTIZE", [tx], [ty])
        (want,) = run_tflm(mb.finish([tx], [ty]), [xq])
        out = out_buf((size,))
        m, s = fp.requantize_params(s_in, s_out)
        requantize_s8(array("b", xq.tobytes()), out, size, zp_in, zp_out, m, s)
        check(out, want, "requantize")


def test_relu_relu6_match_tflm():
    from burn.graph.s8_quantize import clamp_s8

    rng = np.random.default_rng(23)
    for case in range(20):
        opname, act = ("RELU", fp.ACT_RELU) if case % 2 else ("RELU6", fp.ACT_RELU6)
        scale, zp = f32(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 100))
        x = s8(rng, (1, 40))
        mb = ModelBuilder()
        tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", x.shape, "int8", scale=scale, zero_point=zp)
        mb.op(opname, [tx], [ty])
        (want,) = run_tflm(mb.finish([tx], [ty]), [x])
        lo, hi = fp.quant_activation_range(act, scale, zp)
        out = out_buf(x.shape)
        clamp_s8(array("b", x.tobytes()), out, 40, lo, hi)
        check(out, want, opname.lower())


def test_pad_concat_reshape_match_tflm():
    from burn.graph.layout import concat_s8, copy_s8, pad_s8

    rng = np.random.default_rng(24)
    for _ in range(20):
        shape = tuple(int(d) for d in rng.integers(1, 4, size=4))
        pads = rng.integers(0, 3, size=(4, 2)).astype(np.int32)
        scale, zp = f32(rng.uniform(0.01, 0.1)), int(rng.integers(-128, 128))
        x = s8(rng, shape)
        oshape = tuple(int(d + p.sum()) for d, p in zip(shape, pads))
        mb = ModelBuilder()
        tx = mb.tensor("x", shape, "int8", scale=scale, zero_point=zp)
        tp = mb.tensor("pads", (4, 2), "int32", data=pads)
        ty = mb.tensor("y", oshape, "int8", scale=scale, zero_point=zp)
        mb.op("PAD", [tx, tp], [ty], "PadOptions")
        (want,) = run_tflm(mb.finish([tx], [ty]), [x])
        out = out_buf(oshape)
        pad_s8(array("b", x.tobytes()), out, *shape, *(int(p) for p in pads[:, 0]),
               *(int(p) for p in pads[:, 1]), zp)
        check(out, want, "pad")

        axis = int(rng.integers(0, 4))
        parts = []
        for _k in range(int(rng.integers(1, 4))):
            s = list(shape)
            s[axis] = int(rng.integers(1, 4))
            parts.append(s8(rng, tuple(s)))
        mb = ModelBuilder()
        tins = [mb.tensor("x%d" % i, p.shape, "int8", scale=scale, zero_point=zp)
                for i, p in enumerate(parts)]
        cshape = list(shape)
        cshape[axis] = sum(p.shape[axis] for p in parts)
        ty = mb.tensor("y", cshape, "int8", scale=scale, zero_point=zp)
        mb.op("CONCATENATION", tins, [ty], "ConcatenationOptions", Axis=axis)
        (want,) = run_tflm(mb.finish(tins, [ty]), parts, n_outputs=1)
        outer = int(np.prod(shape[:axis]))
        inner = array("i", [int(np.prod(p.shape[axis:])) for p in parts])
        out = out_buf(cshape)
        concat_s8([array("b", p.tobytes()) for p in parts], inner, out, outer)
        check(out, want, "concat")

        mb = ModelBuilder()
        tx = mb.tensor("x", shape, "int8", scale=scale, zero_point=zp)
        tshape = mb.tensor("shape", (2,), "int32",
                           data=np.array([shape[0], -1], dtype=np.int32))
        ty = mb.tensor("y", (shape[0], x.size // shape[0]), "int8", scale=scale,
                       zero_point=zp)
        mb.op("RESHAPE", [tx, tshape], [ty])
        (want,) = run_tflm(mb.finish([tx], [ty]), [x])
        out = out_buf(shape)
        copy_s8(array("b", x.tobytes()), out, x.size)
        check(out, want, "reshape")


def test_float_kernels_close_to_tflm():
    from burn.graph.f32_conv import conv_f32
    from burn.graph.f32_depthwise_conv import depthwise_conv_f32
    from burn.graph.f32_pool import avg_pool_f32
    from burn.graph.f32_softmax import softmax_f32

    rng = np.random.default_rng(25)
    for _ in range(10):
        ih, iw, kh, kw, sh, sw, same = _window(rng)
        kh, kw = min(kh, ih), min(kw, iw)
        ic, oc, act = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.choice(ACTS))
        oh, ow, pt, pl = _geometry(ih, iw, kh, kw, sh, sw, 1, 1, same)
        x = rng.standard_normal((1, ih, iw, ic)).astype(np.float32)
        w = rng.standard_normal((oc, kh, kw, ic)).astype(np.float32)
        wd = rng.standard_normal((1, kh, kw, ic)).astype(np.float32)
        b = rng.standard_normal(oc).astype(np.float32)
        opts = dict(Padding=0 if same else 1, StrideH=sh, StrideW=sw,
                    FusedActivationFunction=act)
        xa = array("f", x.tobytes())
        for kind in ("conv", "depthwise", "avg_pool", "softmax"):
            mb = ModelBuilder()
            tx = mb.tensor("x", x.shape, "float32")
            oshape = (1, oh, ow, oc if kind == "conv" else ic)
            if kind == "softmax":
                oshape = x.shape
            ty = mb.tensor("y", oshape, "float32")
            out = array("f", bytes(4 * int(np.prod(oshape))))
            if kind == "conv":
                tw = mb.tensor("w", w.shape, "float32", data=w)
                tb = mb.tensor("b", b.shape, "float32", data=b)
                mb.op("CONV_2D", [tx, tw, tb], [ty], "Conv2DOptions", **opts)
                conv_f32(xa, array("f", w.tobytes()), array("f", b.tobytes()), out, 1, ih, iw,
                         ic, oh, ow, oc, kh, kw, 1, sh, sw, 1, 1, pt, pl, act)
            elif kind == "depthwise":
                tw = mb.tensor("w", wd.shape, "float32", data=wd)
                tb = mb.tensor("b", (ic,), "float32", data=b[:ic] if ic <= oc else
                               np.zeros(ic, np.float32))
                bias = b[:ic] if ic <= oc else np.zeros(ic, np.float32)
                mb.op("DEPTHWISE_CONV_2D", [tx, tw, tb], [ty], "DepthwiseConv2DOptions",
                      DepthMultiplier=1, **opts)
                depthwise_conv_f32(xa, array("f", wd.tobytes()), array("f", bias.tobytes()),
                                   out, 1, ih, iw, ic, oh, ow, 1, kh, kw, sh, sw, 1, 1, pt, pl,
                                   act)
            elif kind == "avg_pool":
                mb.op("AVERAGE_POOL_2D", [tx], [ty], "Pool2DOptions", FilterHeight=kh,
                      FilterWidth=kw, **opts)
                avg_pool_f32(xa, out, 1, ih, iw, ic, oh, ow, kh, kw, sh, sw, pt, pl, act)
            else:
                mb.op("SOFTMAX", [tx], [ty], "SoftmaxOptions", Beta=1.0)
                softmax_f32(xa, out, ih * iw, ic, 1.0)
            (want,) = run_tflm(mb.finish([tx], [ty]), [x])
            got = np.frombuffer(bytes(out), dtype=np.float32)
            assert np.allclose(got, want.reshape(-1), rtol=1e-5, atol=1e-5), kind

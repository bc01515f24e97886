"""Every int8 graph kernel against the tflite-micro interpreter, bit for bit.

Each case builds a one-op .tflite model with random shapes, parameters and data (seeded),
runs it in TFLM, runs our kernel with parameters derived from the same float32 scales the
way TFLM's Prepare derives them, and asserts exact equality.
"""

import importlib
from array import array

import numpy as np
import pytest
from s8_cases import f32, geometry, make_cases, s8
from tflite_builder import ModelBuilder, run_tflm

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp

ACTS = (fp.ACT_NONE, fp.ACT_RELU, fp.ACT_RELU6)


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


_MODULES = {
    "conv_s8": "s8_conv", "depthwise_conv_s8": "s8_depthwise_conv",
    "fully_connected_s8": "s8_fully_connected", "add_s8": "s8_add", "mul_s8": "s8_mul",
    "avg_pool_s8": "s8_pool", "max_pool_s8": "s8_pool", "mean_s8": "s8_mean",
    "softmax_s8": "s8_softmax", "logistic_s8": "s8_logistic", "tanh_s8": "s8_tanh",
    "quantize_s8": "s8_quantize", "dequantize_s8": "s8_quantize",
    "requantize_s8": "s8_quantize", "pad": "layout", "concat": "layout",
    "transpose_conv_s8": "transpose_conv2d",
}
_TYPECODES = {np.dtype(np.int8): "b", np.dtype(np.uint8): "B", np.dtype(np.int32): "i",
              np.dtype(np.float32): "f"}


class PlainKernels:
    """burn.graph's plain kernels behind the numpy-array calls of tests/s8_cases.py: numpy
    arguments become `array`s as the runtime passes them, and are copied back after."""

    def __getattr__(self, name):
        module = importlib.import_module("burn.graph." + _MODULES[name])
        fn = getattr(module, name + "_plain", None) or getattr(module, name)

        def call(*args):
            pairs = []
            converted = [self._convert(a, pairs) for a in args]
            fn(*converted)
            for arr, buf in pairs:
                arr[...] = np.frombuffer(bytes(buf), dtype=arr.dtype).reshape(arr.shape)

        return call

    @staticmethod
    def _convert(a, pairs):
        if isinstance(a, np.ndarray):
            buf = array(_TYPECODES[a.dtype], a.tobytes())
            pairs.append((a, buf))
            return buf
        if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            return [PlainKernels._convert(x, pairs) for x in a]
        return a


@pytest.mark.parametrize("seed", range(4))
def test_every_int8_kernel_matches_tflm(seed):
    """Ten random cases of every int8 op per seed: conv (groups), depthwise (depth
    multiplier), fully connected, add, mul, average and max pool, mean, softmax, logistic,
    tanh, quantize, dequantize, requantize, pad and concat."""
    kernels = PlainKernels()
    failures = []
    for case in make_cases(seed=40 + seed, count=10):
        got = case.run(kernels)
        if not np.array_equal(got, case.want):
            bad = int(np.nonzero(got != case.want)[0][0])
            failures.append("%s: first difference at %d: ours %r tflm %r" % (
                case.name, bad, got[bad], case.want[bad]))
    assert not failures, "\n".join(failures)


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
        logistic_s8(array("b", x.tobytes()), out, 256, zp, *qp.logistic_params(scale))
    else:
        tanh_s8(array("b", x.tobytes()), out, 256, zp, *qp.tanh_params(scale))
    check(out, want, opname.lower())


def test_logistic_matches_tflm_on_every_input():
    rng = np.random.default_rng(20)
    for _ in range(25):
        _unary_case(rng, "LOGISTIC", 1.0 / 256, -128)


def test_tanh_matches_tflm_on_every_input():
    rng = np.random.default_rng(21)
    for _ in range(25):
        _unary_case(rng, "TANH", 1.0 / 128, 0)


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
        lo, hi = qp.quant_activation_range(act, scale, zp)
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
        ih, iw, kh, kw, sh, sw, _, _, same, oh, ow, pt, pl = geometry(rng, dilate=False)
        ic, oc, act = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.choice(ACTS))
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

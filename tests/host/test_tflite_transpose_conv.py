"""TFLite TRANSPOSE_CONV imports as transpose_conv2d (an optional op): whole one-op models,
int8 and int16x8 (int16 activations, int8 weights, an int16 or int64 bias) bit for bit with
TFLM on the plain kernels and the flex C kernels (host, and built for the Cortex-M0+ run in
unicorn; int16 also on the MicroPython unix port), float32 within 1e-5 relative; TFLM's
refusals are refused.
The kernels alone, viper included, are compared in tests/s8_cases.py's users and
tests/micropython/kernel_cases.py."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from s8_cases import ACTS, transpose_conv_case
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(23)
    made = [transpose_conv_case(rng) for _ in range(CASES)]
    made += [transpose_conv_case(rng, "float32") for _ in range(CASES // 2)]
    return [(c, encode_bst(import_tflite(c.model, tests=0))) for c in made]


def _out(model, x):
    return np.asarray(model(x.reshape(-1)).tolist()).reshape(-1)


def test_int8_models_equal_tflm_on_plain_flex_and_cortex_m0plus(cases):
    m0 = EmulatedLib("cortex-m0plus")
    for case, bst in cases:
        if case.x.dtype != np.int8:
            continue
        plain = burn.load(bst, variant="plain")
        assert [s.runtime for s in plain._steps] == ["plain"], case.name
        for model in (plain, use_flex(burn.load(bst)), use_flex(burn.load(bst), m0)):
            assert np.array_equal(_out(model, case.x), case.want), case.name


def test_float_models_match_tflm(cases):
    for case, bst in cases:
        if case.x.dtype != np.float32:
            continue
        scale = max(1.0, float(np.abs(case.want).max()))
        for model in (burn.load(bst), use_flex(burn.load(bst))):
            np.testing.assert_allclose(_out(model, case.x), case.want, rtol=1e-5,
                                       atol=1e-5 * scale, err_msg=case.name)


def _int16_case(rng):
    """(name, input, TFLM's output, .bst) of an int16x8 TRANSPOSE_CONV: zero points 0, per
    channel weight scales, an int16 or int64 bias, a random fused activation."""
    from burn.host.importers.tflite.ops_conv import transpose_pad

    n, ih, iw, ic, oc = (int(v) for v in rng.integers(1, 5, size=5))
    kh, kw, sh, sw = (int(v) for v in rng.integers(1, 4, size=4))
    same = bool(rng.integers(0, 2))
    oh = (ih * sh if same else (ih - 1) * sh + kh) + int(rng.integers(0, 2))
    ow = (iw * sw if same else (iw - 1) * sw + kw) + int(rng.integers(0, 2))
    act = int(rng.choice(ACTS))
    in_scale = float(np.float32(rng.uniform(1e-4, 1e-3)))
    w_scales = [float(np.float32(rng.uniform(0.001, 0.05))) for _ in range(oc)]
    out_scale = float(np.float32(in_scale * np.mean(w_scales) * rng.uniform(20, 80) *
                                 np.sqrt(kh * kw * ic)))
    x = rng.integers(-32768, 32768, size=(n, ih, iw, ic)).astype(np.int16)
    w = rng.integers(-127, 128, size=(oc, kh, kw, ic), dtype=np.int8)
    bias_type = ["int16", "int64"][int(rng.integers(0, 2))]
    bias = rng.integers(-30000, 30000, size=oc).astype(bias_type)
    mb = ModelBuilder()
    ts = mb.tensor("shape", (4,), "int32", data=np.array((n, oh, ow, oc), np.int32))
    tx = mb.tensor("x", x.shape, "int16", scale=in_scale, zero_point=0)
    tw = mb.tensor("w", w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * oc)
    tb = mb.tensor("b", (oc,), bias_type, data=bias, scale=[in_scale * s for s in w_scales],
                   zero_point=[0] * oc)
    ty = mb.tensor("y", (n, oh, ow, oc), "int16", scale=out_scale, zero_point=0)
    mb.op("TRANSPOSE_CONV", [ts, tw, tx, tb], [ty], "TransposeConvOptions",
          Padding=0 if same else 1, StrideH=sh, StrideW=sw, FusedActivationFunction=act)
    data = mb.finish([tx], [ty])
    assert transpose_pad(oh, kh, sh, same) >= 0
    return ("int16 %s -> %s k %dx%d s %dx%d %s bias act %d" % (
        x.shape, (n, oh, ow, oc), kh, kw, sh, sw, bias_type, act), x,
        run_tflm(data, [x])[0].reshape(-1), encode_bst(import_tflite(data, tests=0)))


def test_int16_models_equal_tflm_on_every_runtime(tmp_path):
    """40 int16x8 cases: plain, flex host, flex Cortex-M0+, the MicroPython unix port."""
    rng = np.random.default_rng(24)
    cases = [_int16_case(rng) for _ in range(CASES)]
    check_on_host(cases, "transpose_conv2d")
    check_on_micropython(cases, tmp_path)


def _model(x_dtype="int8", w_dtype="int8", shape=(1, 4, 4, 2), w_value=1):
    mb = ModelBuilder()
    q = {"scale": 0.05, "zero_point": 0}
    x = mb.tensor("x", (1, 2, 2, 3), x_dtype, **(q if x_dtype == "int8" else {}))
    w = mb.tensor("w", (2, 3, 3, 3), w_dtype, data=np.full((2, 3, 3, 3), w_value, w_dtype),
                  **(dict(scale=[0.1, 0.1], zero_point=[0, 0]) if w_dtype == "int8" else {}))
    s = mb.tensor("s", (4,), "int32", data=np.array(shape, np.int32))
    y = mb.tensor("y", (1, 4, 4, 2), x_dtype, **(q if x_dtype == "int8" else {}))
    mb.op("TRANSPOSE_CONV", [s, w, x], [y], "TransposeConvOptions", Padding=0, StrideH=2,
          StrideW=2, FusedActivationFunction=0)
    return mb.finish([x], [y])


def test_hybrid_model_runs_its_dequantized_weights():
    # float32 activations, int8 weights (scale 0.1): burn dequantizes them, as for CONV_2D
    x = np.random.default_rng(2).standard_normal((1, 2, 2, 3)).astype(np.float32)
    hybrid = burn.load(encode_bst(import_tflite(_model("float32", "int8"), tests=0)))
    want = run_tflm(_model("float32", "float32", w_value=0.1), [x])[0].reshape(-1)
    np.testing.assert_allclose(_out(hybrid, x), want, rtol=1e-5, atol=1e-6)


def test_int16_bias_and_zero_points_tflm_cannot_run_are_refused():
    """TFLM reads an int16 transposed conv's bias as int16 or int64 (an int32 one would be
    read wrongly) and ignores zero points: burn refuses both."""
    def model(bias_dtype="int64", zp=0):
        mb = ModelBuilder()
        ts = mb.tensor("shape", (4,), "int32", data=np.array((1, 4, 4, 1), np.int32))
        tx = mb.tensor("x", (1, 2, 2, 1), "int16", scale=0.001, zero_point=zp)
        tw = mb.tensor("w", (1, 2, 2, 1), "int8", data=np.ones((1, 2, 2, 1), np.int8),
                       scale=[0.01], zero_point=[0])
        tb = mb.tensor("b", (1,), bias_dtype, data=np.ones(1, bias_dtype), scale=[1e-5],
                       zero_point=[0])
        ty = mb.tensor("y", (1, 4, 4, 1), "int16", scale=0.001, zero_point=0)
        mb.op("TRANSPOSE_CONV", [ts, tw, tx, tb], [ty], "TransposeConvOptions", Padding=0,
              StrideH=2, StrideW=2, FusedActivationFunction=0)
        return mb.finish([tx], [ty])

    import_tflite(model(), tests=0)
    with pytest.raises(TFLiteImportError, match="Bias type INT32 not supported"):
        import_tflite(model("int32"), tests=0)
    with pytest.raises(TFLiteImportError, match="zero points 0"):
        import_tflite(model(zp=5), tests=0)


def test_tflm_refusals_are_refused_with_the_reason():
    import_tflite(_model(), tests=0)  # the well-formed model imports
    with pytest.raises(TFLiteImportError, match="output shape input does not match"):
        import_tflite(_model(shape=(1, 5, 4, 2)), tests=0)


def _graph(params, w_shape=(3, 2, 2, 2)):
    from burn.host.bst_writer import Graph, GraphOp, GraphTensor

    tensors = [GraphTensor("x", (1, 2, 2, 2), "int8", 0.05, 0),
               GraphTensor("y", (1, 4, 4, 3), "int8", 0.05, 0)]
    consts = {"w": np.ones(w_shape, np.int8), "bias": np.zeros(3, np.int32),
              "mult": np.full(3, 1 << 30, np.int32), "shift": np.zeros(3, np.int32)}
    op = GraphOp("transpose_conv2d", [0], [1], consts=consts, params=dict(
        dict(stride_h=2, stride_w=2, pad_top=0, pad_left=0, in_zp=0, out_zp=0,
             act_min=-128, act_max=127), **params))
    return encode_bst(Graph(tensors, [op], [(0, (1, 2, 2, 2))], [(1, (1, 4, 4, 3))]))


@pytest.mark.parametrize("params,w_shape,match", [
    ({"stride_h": 0}, (3, 2, 2, 2), "stride_h"),
    ({"pad_left": 70000}, (3, 2, 2, 2), "pad_left"),
    ({"act_min": 10, "act_max": -10}, (3, 2, 2, 2), "act_min"),
    ({}, (3, 2, 2, 5), "do not fit"),
])
def test_hostile_parameters_are_refused_at_load(params, w_shape, match):
    # the unchanged graph loads: each output takes one pixel's 2 channels, times 0.5
    assert np.array_equal(_out(burn.load(_graph({})), np.ones(8, np.int8)), np.ones(48))
    with pytest.raises(ValueError, match="op 0 \\(transpose_conv2d\\).*" + match):
        burn.load(_graph(params, w_shape))

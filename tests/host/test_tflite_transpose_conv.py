"""TFLite TRANSPOSE_CONV imports as transpose_conv2d (an optional op): whole one-op models,
int8 bit for bit with TFLM on the plain kernels and the flex C kernels (host, and built for
the Cortex-M0+ run in unicorn), float32 within 1e-5 relative; TFLM's refusals are refused.
The kernels alone, viper included, are compared in tests/s8_cases.py's users and
tests/micropython/kernel_cases.py."""

import numpy as np
import pytest
from s8_cases import transpose_conv_case
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

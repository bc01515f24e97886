"""Mixed models, float with int8 sections, run on every runtime and agree with TFLM: the int8
tensors bit for bit, the float ones within 1e-5 relative.

- "edges": float input -> QUANTIZE -> int8 conv -> int8 fully connected -> DEQUANTIZE ->
  float softmax (a TFLite converter's int8 model with float input and output);
- "middle": float conv -> QUANTIZE -> int8 depthwise conv -> int8 add -> DEQUANTIZE -> float
  fully connected -> float softmax. The float conv's inputs and weights are multiples of
  1/8 and 1/4, so its sums are exact on every runtime and the QUANTIZE after it sees the
  same values as TFLM's (with ties, as its scale is 1/16).

Each model also outputs its last int8 tensor. Runtimes: the plain kernels, flex on the host,
flex built for the Cortex-M0+ run in unicorn, and the viper kernels on the MicroPython unix
port."""


import numpy as np
import pytest
from mp_models import run_models
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host import boards, mpy
from burn.host.bst_writer import encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

INPUTS = 6  # random inputs per model

HEAP = str(boards.load_board("rp2040").heap_bytes)  # the board's heap


def _int8(mb, rng, name, shape, scales, qdim=0):
    return mb.tensor(name, shape, "int8", data=rng.integers(-127, 128, shape),
                     scale=scales, zero_point=[0] * len(scales), quantized_dimension=qdim)


def _int32(mb, rng, name, n):
    return mb.tensor(name, (n,), "int32", data=rng.integers(-300, 300, n))


def _edges():
    rng = np.random.default_rng(5)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 6, 6, 2), "float32")
    xq = mb.tensor("xq", (1, 6, 6, 2), "int8", scale=0.02, zero_point=3)
    c = mb.tensor("c", (1, 3, 3, 4), "int8", scale=0.05, zero_point=-2)
    f = mb.tensor("f", (1, 5), "int8", scale=0.1, zero_point=1)
    d = mb.tensor("d", (1, 5), "float32")
    y = mb.tensor("y", (1, 5), "float32")
    mb.op("QUANTIZE", [x], [xq])
    mb.op("CONV_2D", [xq, _int8(mb, rng, "w", (4, 3, 3, 2), [0.01, 0.02, 0.015, 0.01]),
                      _int32(mb, rng, "b", 4)], [c], "Conv2DOptions", Padding=0,
          StrideH=2, StrideW=2, FusedActivationFunction=1)
    mb.op("FULLY_CONNECTED", [c, _int8(mb, rng, "fw", (5, 36), [0.004]),
                              _int32(mb, rng, "fb", 5)], [f], "FullyConnectedOptions")
    mb.op("DEQUANTIZE", [f], [d])
    mb.op("SOFTMAX", [d], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [f, y]), lambda r: r.standard_normal((1, 6, 6, 2))


def _middle():
    rng = np.random.default_rng(6)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 5, 5, 2), "float32")
    w = mb.tensor("w", (3, 3, 3, 2), "float32", data=rng.integers(-4, 5, (3, 3, 3, 2)) / 4)
    b = mb.tensor("b", (3,), "float32", data=rng.integers(-8, 9, 3) / 32)
    c = mb.tensor("c", (1, 5, 5, 3), "float32")
    cq = mb.tensor("cq", (1, 5, 5, 3), "int8", scale=1 / 16, zero_point=-5)
    dw = mb.tensor("dw", (1, 5, 5, 3), "int8", scale=0.08, zero_point=4)
    s = mb.tensor("s", (1, 5, 5, 3), "int8", scale=0.1, zero_point=-1)
    d = mb.tensor("d", (1, 75), "float32")
    fw = mb.tensor("fw", (4, 75), "float32", data=rng.standard_normal((4, 75)) * 0.1)
    f = mb.tensor("f", (1, 4), "float32")
    y = mb.tensor("y", (1, 4), "float32")
    mb.op("CONV_2D", [x, w, b], [c], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1)
    mb.op("QUANTIZE", [c], [cq])
    mb.op("DEPTHWISE_CONV_2D", [cq, _int8(mb, rng, "dww", (1, 3, 3, 3), [0.02, 0.03, 0.025], 3),
                                _int32(mb, rng, "dwb", 3)], [dw], "DepthwiseConv2DOptions",
          Padding=0, StrideH=1, StrideW=1, DepthMultiplier=1)
    mb.op("ADD", [dw, cq], [s], "AddOptions")
    mb.op("DEQUANTIZE", [s], [d])
    mb.op("FULLY_CONNECTED", [d, fw, -1], [f], "FullyConnectedOptions",
          FusedActivationFunction=1)
    mb.op("SOFTMAX", [f], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [s, y]), lambda r: r.integers(-16, 17, (1, 5, 5, 2)) / 8


@pytest.fixture(scope="module", params=["edges", "middle"])
def mixed(request):
    """(name, .bst bytes, [(input, [TFLM's int8 output, TFLM's float output])])."""
    data, sample = {"edges": _edges, "middle": _middle}[request.param]()
    rng = np.random.default_rng(len(request.param))
    cases = []
    for _ in range(INPUTS):
        x = sample(rng).astype(np.float32)
        cases.append((x, [o.reshape(-1) for o in run_tflm(data, [x], n_outputs=2)]))
    return request.param, encode_bst(import_tflite(data, tests=2)), cases


def _agree(got, want, where):
    q, f = (np.asarray(g).reshape(-1) for g in got)
    assert q.tolist() == want[0].tolist(), (where, q, want[0])
    assert np.allclose(f, want[1], rtol=1e-5, atol=1e-7), (where, f, want[1])


def test_mixed_model_imports_as_float_and_int8_ops(mixed):
    name, bst, _cases = mixed
    model = burn.load(bst, variant="plain")
    dtypes = [op["dtype"] for op in model.info()["ops"]]
    assert "int8" in dtypes and "float32" in dtypes
    assert model.self_test() == 2  # TFLM's own reference vectors, stored at import
    kinds = [op["op"] for op in model.info()["ops"]]
    assert "quantize" in kinds and "dequantize" in kinds, (name, kinds)


def test_mixed_model_matches_tflm_on_plain_and_flex(mixed):
    name, bst, cases = mixed
    runtimes = {"plain": burn.load(bst, variant="plain"), "flex": use_flex(burn.load(bst)),
                "flex M0+": use_flex(burn.load(bst), EmulatedLib("cortex-m0plus"))}
    assert runtimes["flex"].flex_ops == runtimes["flex M0+"].flex_ops >= 5
    for x, want in cases:
        for where, model in runtimes.items():
            _agree(model.run(x.reshape(-1)), want, (name, where))


def test_mixed_model_matches_tflm_on_viper(mixed, tmp_path):
    name, bst, cases = mixed
    result, = run_models(tmp_path, [(bst, [x for x, _ in cases])], heap=HEAP,
                         core=mpy.core_for_unix_port())
    int8_kernels = {"conv2d", "depthwise_conv2d", "fully_connected", "add"}
    ops = burn.load(bst, variant="plain").info()["ops"]
    assert [r for r, op in zip(result.runtimes, ops) if op["dtype"] == "int8" and
            op["op"] in int8_kernels] == ["viper"] * 2, result.runtimes
    assert len(result.outputs) == len(cases)
    for (_x, want), (q, f) in zip(cases, result.outputs):
        _agree((np.array(q, np.int8), np.array(f, np.float32)), want, (name, "viper"))

"""TFLite import: small models built with the real flatbuffers schema, run by TFLM and by
the .bst runtime, must agree bit for bit; unsupported ops, hostile bytes and the CLI."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tflite_builder import ModelBuilder, run_tflm
from tflite_models import per_channel, small_cnn

import burn
from burn.host.bst_writer import encode_bst
from burn.host.cli import main as burn_main
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite


def test_small_cnn_matches_tflm_bit_for_bit():
    data = small_cnn()
    graph = import_tflite(data, tests=2, labels=["a", "b", "c", "d"])
    assert [op.op for op in graph.ops] == ["conv2d", "depthwise_conv2d", "add", "avg_pool2d",
                                           "fully_connected", "softmax"]
    model = burn.load(encode_bst(graph))
    assert model.self_test() == 2
    rng = np.random.default_rng(7)
    for _ in range(8):
        x = rng.integers(-128, 128, (1, 6, 6, 3), dtype=np.int8)
        want = run_tflm(data, [x])[0].reshape(-1)
        assert np.array(model.run(x), np.int8).tolist() == want.tolist()
    assert model.info()["labels"] == ["a", "b", "c", "d"]


def _one_channel_depthwise():
    """person_detect's first layer in small: a 3x3 stride-2 depthwise convolution of a
    (1, 12, 12, 1) int8 image with depth multiplier 8, per-channel weights."""
    rng = np.random.default_rng(4)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 12, 12, 1), "int8", scale=0.02, zero_point=-5)
    scales = [float(s) for s in rng.uniform(0.002, 0.02, 8)]
    w, b = per_channel(mb, ("w", "b"), (1, 3, 3, 8), scales, 0.02, rng, 3000, axis=3)
    y = mb.tensor("y", (1, 6, 6, 8), "int8", scale=0.04, zero_point=7)
    mb.op("DEPTHWISE_CONV_2D", [x, w, b], [y], "DepthwiseConv2DOptions", Padding=0,
          StrideH=2, StrideW=2, DepthMultiplier=8, FusedActivationFunction=3)
    return mb.finish([x], [y])


def test_one_channel_depthwise_imports_as_a_convolution_bit_for_bit():
    """An int8 depthwise convolution of one input channel is imported as the convolution
    with the same sums, which the kernels run several times faster: TFLM's bits."""
    data = _one_channel_depthwise()
    graph = import_tflite(data, tests=0)
    assert [op.op for op in graph.ops] == ["conv2d"]
    model = burn.load(encode_bst(graph))
    rng = np.random.default_rng(5)
    for _ in range(4):
        x = rng.integers(-128, 128, (1, 12, 12, 1), dtype=np.int8)
        want = run_tflm(data, [x])[0].reshape(-1)
        assert np.array(model.run(x), np.int8).tolist() == want.tolist()


def _gate_mul(gate_shape):
    """y = x * g with x (1, 4, 4, 3) and g of `gate_shape`, both int8 inputs."""
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4, 4, 3), "int8", scale=0.05, zero_point=-3)
    g = mb.tensor("g", gate_shape, "int8", scale=1 / 256, zero_point=-128)
    y = mb.tensor("y", (1, 4, 4, 3), "int8", scale=0.03, zero_point=2)
    mb.op("MUL", [x, g], [y], "MulOptions", FusedActivationFunction=0)
    return mb.finish([x, g], [y])


def test_per_channel_gate_mul_matches_tflm():
    """A squeeze-and-excite gate (1, 1, 1, C) over (1, H, W, C) repeats with the channel
    period, as the runtime reads it; a gate over the rows does not and is refused."""
    data = _gate_mul((1, 1, 1, 3))
    model = burn.load(encode_bst(import_tflite(data, tests=0)))
    rng = np.random.default_rng(3)
    for _ in range(6):
        x = rng.integers(-128, 128, (1, 4, 4, 3), dtype=np.int8)
        g = rng.integers(-128, 128, (1, 1, 1, 3), dtype=np.int8)
        want = run_tflm(data, [x, g])[0].reshape(-1)
        assert np.array(model.run([x, g]), np.int8).tolist() == want.tolist()
    with pytest.raises(TFLiteImportError, match=r"broadcast of \(1, 4, 1, 1\)"):
        import_tflite(_gate_mul((1, 4, 1, 1)), tests=0)


def test_unsupported_ops_are_all_named():
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4), "float32")
    y = mb.tensor("y", (1, 4), "float32")
    z = mb.tensor("z", (1, 4), "float32")
    mb.op("SIGN", [x], [y])
    mb.op("GELU", [y], [z])
    with pytest.raises(ValueError) as err:
        import_tflite(mb.finish([x], [z]), tests=0)
    assert "node 0 (SIGN)" in str(err.value) and "node 1 (GELU)" in str(err.value)


def test_not_a_tflite_file():
    with pytest.raises(ValueError, match="TFL3"):
        import_tflite(b"\x00" * 64, tests=0)


@settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(min_value=0), flips=st.lists(st.integers(min_value=0), max_size=4))
def test_hostile_tflite_bytes_give_import_error_or_a_valid_graph(cut, flips):
    data = bytearray(small_cnn())
    for f in flips:
        data[f % len(data)] ^= 1 << (f % 8)
    data = bytes(data[:len(data) - cut % len(data)]) if cut % 3 else bytes(data)
    try:
        graph = import_tflite(data, tests=0)
    except TFLiteImportError as e:
        assert "\n" not in str(e)
        return
    burn.load(encode_bst(graph))  # what the importer accepts, burn can load


def test_cli_import_info_run(tmp_path, capsys):
    src = tmp_path / "cnn.tflite"
    src.write_bytes(small_cnn())
    out = tmp_path / "cnn.bst"
    assert burn_main(["import", str(src), "-o", str(out), "--tests", "1"]) == 0
    assert out.is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["cnn.bst",
                                                                            "cnn.tflite"]
    assert burn_main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "depthwise_conv2d" in text and "arena" in text and "MACs" in text
    x = np.random.default_rng(3).integers(-128, 128, (1, 6, 6, 3), dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    assert burn_main(["run", str(out), "--input", str(tmp_path / "x.npy"), "--self-test"]) == 0
    printed = capsys.readouterr().out
    assert str(run_tflm(small_cnn(), [x])[0].reshape(1, 4).tolist()) in printed


def test_cli_reports_bad_files(tmp_path, capsys):
    bad = tmp_path / "bad.bst"
    bad.write_bytes(b"\x89BST" + bytes(60))
    assert burn_main(["info", str(bad)]) == 1
    assert "bad.bst" in capsys.readouterr().err
    assert burn_main(["import", str(bad), "-o", str(tmp_path / "x.bst")]) == 1
    assert not (tmp_path / "x.bst").exists()


def small_float_cnn(seed=1):
    """The float32 twin of small_cnn's layers: conv(relu6) -> depthwise -> add -> max pool
    -> reshape -> fc -> softmax."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 5, 5, 2), "float32")
    w = mb.tensor("w", (4, 3, 3, 2), "float32", data=rng.standard_normal((4, 3, 3, 2)))
    b = mb.tensor("b", (4,), "float32", data=rng.standard_normal(4))
    c = mb.tensor("c", (1, 5, 5, 4), "float32")
    mb.op("CONV_2D", [x, w, b], [c], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1,
          FusedActivationFunction=3)
    dw = mb.tensor("dw", (1, 3, 3, 4), "float32", data=rng.standard_normal((1, 3, 3, 4)))
    db = mb.tensor("db", (4,), "float32", data=rng.standard_normal(4))
    d = mb.tensor("d", (1, 5, 5, 4), "float32")
    mb.op("DEPTHWISE_CONV_2D", [c, dw, db], [d], "DepthwiseConv2DOptions", Padding=0,
          StrideH=1, StrideW=1, DepthMultiplier=1)
    s = mb.tensor("s", (1, 5, 5, 4), "float32")
    mb.op("ADD", [c, d], [s], "AddOptions")
    p = mb.tensor("p", (1, 2, 2, 4), "float32")
    mb.op("MAX_POOL_2D", [s], [p], "Pool2DOptions", Padding=1, StrideH=2, StrideW=2,
          FilterHeight=2, FilterWidth=2)
    f = mb.tensor("f", (1, 16), "float32")
    mb.op("RESHAPE", [p, mb.tensor("shape", (2,), "int32", data=[1, 16])], [f])
    fw = mb.tensor("fw", (3, 16), "float32", data=rng.standard_normal((3, 16)))
    fb = mb.tensor("fb", (3,), "float32", data=rng.standard_normal(3))
    logits = mb.tensor("logits", (1, 3), "float32")
    mb.op("FULLY_CONNECTED", [f, fw, fb], [logits], "FullyConnectedOptions")
    y = mb.tensor("y", (1, 3), "float32")
    mb.op("SOFTMAX", [logits], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [y])


def test_float_model_matches_tflm_closely(tmp_path):
    data = small_float_cnn()
    path = tmp_path / "f.bst"
    path.write_bytes(encode_bst(import_tflite(data, tests=2)))
    model = burn.load(str(path))
    assert model.self_test() == 2
    x = np.random.default_rng(5).standard_normal((1, 5, 5, 2)).astype(np.float32)
    got = model(x).tolist()
    want = run_tflm(data, [x])[0].reshape(1, 3)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-6)


def test_lone_activations_and_quantize_match_tflm():
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 10), "float32")
    q = mb.tensor("q", (1, 10), "int8", scale=0.05, zero_point=-10)
    mb.op("QUANTIZE", [x], [q])
    r = mb.tensor("r", (1, 10), "int8", scale=0.05, zero_point=-10)
    mb.op("RELU6", [q], [r])
    y = mb.tensor("y", (1, 10), "float32")
    mb.op("DEQUANTIZE", [r], [y])
    data = mb.finish([x], [y])
    model = burn.load(encode_bst(import_tflite(data, tests=1)))
    assert [s["op"] for s in model.info()["ops"]] == ["quantize", "clamp", "dequantize"]
    x = np.linspace(-3, 9, 10, dtype=np.float32).reshape(1, 10)
    assert np.array(model.run(x)).tolist() == run_tflm(data, [x])[0].reshape(-1).tolist()

"""ONNX models with 1-D convolutions, HardSigmoid and a Gather of one channel: imported to
burn.nn (against onnxruntime) and to `.bst` (float32 against onnxruntime; int8 through the
exporter's calibration, against the float model)."""

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx_models import export

import burn
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import graph_input, quantize
from burn.host.importers.onnx_import import import_onnx


def _reference(path, x):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]


def _bst_outputs(graph, xs):
    runtime = burn.load(encode_bst(graph))
    return np.stack([np.asarray(runtime(graph_input(graph, x)).tolist(), np.float32)
                     .reshape(-1) for x in xs])


def _close(out, ref):
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_1d_cnn_imports_to_float_and_int8_bst(tmp_path):
    path = tmp_path / "kws.onnx"
    export("kws_1d", path, 17, False)
    imported = import_onnx(path)
    x = np.random.default_rng(1).standard_normal((112, 10, 32)).astype(np.float32)
    ref = _reference(path, x)
    fgraph = imported.float_graph(tests=1)
    assert [op.op for op in fgraph.ops] == ["conv2d", "max_pool2d", "conv2d", "max_pool2d",
                                            "mean", "fully_connected"]
    _close(_bst_outputs(fgraph, x[:8]), ref[:8])
    model = imported.model("numpy")
    qgraph = quantize(model, x[:64], io="float32", tests=2)
    assert burn.load(encode_bst(qgraph)).self_test() == 2
    got = _bst_outputs(qgraph, x[64:])
    want = to_numpy(model(to_tensor(x[64:], "numpy")))
    agree = (got.argmax(1) == want.argmax(1)).mean()
    error = np.abs(got - want).max() / np.abs(want).max()
    print("int8 1-D CNN against the float model: top-1 agreement %.1f%%, largest error "
          "%.2f%% of the largest output" % (100 * agree, 100 * error))
    assert agree >= 0.9 and error < 0.05


def _save(path, nodes, inits, shape):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"] + shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_hard_sigmoid_and_1d_windows_match_onnxruntime_as_py_and_bst(tmp_path):
    # asymmetric and SAME_UPPER 1-D padding, a 1-D average pool, HardSigmoid with ONNX's
    # alpha and a beta other than 0.5 (a shift before burn's hard sigmoid)
    rng = np.random.default_rng(2)
    inits = {"w1": rng.standard_normal((4, 3, 3)).astype(np.float32),
             "w2": rng.standard_normal((5, 4, 2)).astype(np.float32),
             "b2": rng.standard_normal(5).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], pads=[0, 2]),
             helper.make_node("HardSigmoid", ["a"], ["h"], alpha=0.25, beta=0.4),
             helper.make_node("Conv", ["h", "w2", "b2"], ["c"], auto_pad="SAME_UPPER",
                              strides=[2]),
             helper.make_node("AveragePool", ["c"], ["p"], kernel_shape=[3], pads=[1, 1],
                              strides=[1]),
             helper.make_node("HardSigmoid", ["p"], ["y"])]
    path = tmp_path / "mix1d.onnx"
    _save(path, nodes, inits, [3, 11])
    x = (rng.standard_normal((4, 3, 11)) * 2).astype(np.float32)
    ref = _reference(path, x)
    imported = import_onnx(path)
    assert "nn.Hardsigmoid(alpha=0.25, beta=0.4" in imported.code()
    _close(to_numpy(imported.model("numpy")(to_tensor(x, "numpy"))), ref)
    fgraph = imported.float_graph(tests=1)
    # the padding and the shift (beta - 0.5) / alpha fold into the convolution before them
    assert [op.op for op in fgraph.ops] == ["conv2d", "unary", "conv2d", "avg_pool2d", "unary"]
    got = _bst_outputs(fgraph, x)  # NHWC [1, 1, L, C]
    _close(got.reshape(4, 6, 5).transpose(0, 2, 1), ref)
    assert np.abs(ref - np.clip(ref, 0, 1)).max() == 0 and ref.min() < 0.3 < 0.7 < ref.max()


def test_gather_of_one_channel_imports_to_bst_where_its_result_can_be_placed(tmp_path):
    # Gather of channel 2 drops the axis ([N, H, W]); an Unsqueeze back, a Flatten and a
    # ReduceMean over all of it can read that
    rng = np.random.default_rng(3)
    inits = {"w1": rng.standard_normal((4, 2, 3, 3)).astype(np.float32),
             "w2": rng.standard_normal((3, 1, 3, 3)).astype(np.float32),
             "k": np.array(2, np.int64), "one": np.array([1], np.int64),
             "fc": rng.standard_normal((53, 4)).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
             helper.make_node("Gather", ["a", "k"], ["g"], axis=1),
             helper.make_node("Unsqueeze", ["g", "one"], ["u"]),
             helper.make_node("Conv", ["u", "w2"], ["c"]),
             helper.make_node("Flatten", ["c"], ["f"]),
             helper.make_node("Flatten", ["g"], ["gf"]),
             helper.make_node("ReduceMean", ["g"], ["m"], axes=[1, 2], keepdims=0),
             helper.make_node("Unsqueeze", ["m", "one"], ["m1"]),
             helper.make_node("Concat", ["f", "gf", "m1"], ["cat"], axis=1),
             helper.make_node("Gemm", ["cat", "fc"], ["y"])]
    path = tmp_path / "gather.onnx"
    _save(path, nodes, inits, [2, 5, 5])
    x = rng.standard_normal((3, 2, 5, 5)).astype(np.float32)
    ref = _reference(path, x)
    imported = import_onnx(path)
    _close(to_numpy(imported.model("numpy")(to_tensor(x, "numpy"))), ref)
    fgraph = imported.float_graph(tests=1)
    assert [op.op for op in fgraph.ops] == ["conv2d", "strided", "conv2d", "mean", "concat",
                                            "fully_connected"]  # one strided copy, read 3 ways
    _close(_bst_outputs(fgraph, x), ref)
    model = imported.model("numpy")
    assert burn.load(encode_bst(quantize(model, x, io="float32", tests=2))).self_test() == 2

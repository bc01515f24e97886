"""Quantized ONNX import: PyTorch models exported with torch.onnx.export and quantized by
onnxruntime's quantize_static (QDQ, int8 activations and weights, per tensor and per
channel; and the QLinear operator form) become int8 `.bst` graphs whose outputs, on the
plain runtime and on flex, match onnxruntime's within 1 LSB of the output scale (onnxruntime
computing each node as ONNX defines it: `exact_int8_session`)."""

import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx_models import MODELS, QLINEAR, exact_int8_session, export, quantize

import burn
from burn.host.bst_writer import encode_bst
from burn.host.cli import build_parser
from burn.host.export import nhwc
from burn.host.flex.runtime import use_flex
from burn.host.importers.model_check import check_onnx
from burn.host.importers.onnx_import import read
from burn.host.importers.onnx_qdq import int8_graph
from burn.host.importers.onnx_read import ONNXImportError

# (name, QLinear operator form) -> (per-channel weights, graph ops the import must contain,
# random inputs compared with onnxruntime)
CASES = {
    ("small_cnn", False): (True, {"conv2d", "max_pool2d", "fully_connected", "softmax"}, 10),
    ("ds_cnn", False): (False, {"depthwise_conv2d", "conv2d", "mean"}, 10),
    ("resnet8", False): (True, {"add", "conv2d", "mean"}, 10),
    ("autoencoder", False): (False, {"fully_connected", "logistic"}, 10),
    # QLinearConv, int8 MaxPool, QLinearMatMul
    ("qlinear", True): (True, {"conv2d", "max_pool2d", "fully_connected"}, 10),
    # onnxruntime's com.microsoft ops: QLinearSoftmax, QGemm, QLinearSigmoid, QLinearAdd,
    # QLinearGlobalAveragePool
    ("small_cnn", True): (False, {"conv2d", "max_pool2d", "fully_connected", "softmax"}, 4),
    ("autoencoder", True): (True, {"fully_connected", "logistic"}, 4),
    ("resnet8", True): (False, {"add", "conv2d", "mean"}, 4),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qdq")
    files = {}
    for (name, operator_form), (per_channel, _ops, _runs) in CASES.items():
        if not (folder / (name + "_f32.onnx")).exists():
            export(name, folder / (name + "_f32.onnx"))
        files[name, operator_form] = folder / ("%s_%s.onnx" % (name, "qop" if operator_form
                                                                else "qdq"))
        quantize(folder / (name + "_f32.onnx"), files[name, operator_form], per_channel,
                 operator_form)
    return files


def _shape(name):
    return (MODELS[name] if name in MODELS else QLINEAR[name])[1]


def _lsb_differences(path, graph, shape, runs=10):
    """|burn on flex - onnxruntime| in LSBs of the output scale over `runs` seeded inputs;
    the plain runtime (slower) must agree exactly with flex on the first."""
    session = exact_int8_session(path)
    plain = burn.load(encode_bst(graph))
    flex = use_flex(burn.load(encode_bst(graph)))
    dq = [op for op in graph.ops if op.op == "dequantize"][-1]
    scale = graph.tensors[dq.inputs[0]].scale
    rng = np.random.default_rng(5)
    diffs = []
    for i in range(runs):
        x = rng.standard_normal(shape).astype(np.float32)
        ref = nhwc(session.run(None, {"x": x})[0]).reshape(-1)
        ins = nhwc(x).reshape(graph.inputs[0][1])
        out = np.asarray(flex.run(ins), np.float32).reshape(-1)
        if i == 0:
            assert np.array_equal(np.asarray(plain.run(ins), np.float32).reshape(-1), out)
        diffs.append(np.rint(np.abs(out - ref) / scale).astype(int))
    return np.concatenate(diffs)


@pytest.mark.parametrize("name,operator_form", list(CASES))
def test_int8_import_matches_onnxruntime(models, name, operator_form):
    _per_channel, ops, runs = CASES[name, operator_form]
    path = models[name, operator_form]
    assert any(n.op_type.startswith("QLinear") or n.op_type == "QGemm"
               for n in onnx.load(path).graph.node) == operator_form
    graph = int8_graph(read(path), tests=1)
    kinds = [op.op for op in graph.ops]
    assert kinds[0] == "quantize" and kinds[-1] == "dequantize"  # float in, float out
    assert ops <= set(kinds), kinds
    assert {t.dtype for t in graph.tensors} == {"int8", "float32"}
    assert burn.load(encode_bst(graph)).self_test() == 1
    d = _lsb_differences(path, graph, _shape(name), runs)
    print("%s%s: %d outputs, %.1f%% exact, %.1f%% off by 1 LSB" % (
        name, " (QLinear ops)" if operator_form else "", d.size, 100 * (d == 0).mean(),
        100 * (d == 1).mean()))
    assert d.max() <= 1
    assert (d == 0).mean() >= 0.5


def test_cli_writes_int8_bst_and_refuses_python(models, tmp_path, capsys):
    parser = build_parser()
    out, src = tmp_path / "ds.bst", str(models["ds_cnn", False])
    args = parser.parse_args(["import", src, "-o", str(out), "--tests", "2"])
    assert args.run(args) == 0
    model = burn.load(str(out))
    assert model.self_test() == 2
    assert "wrote" in capsys.readouterr().out
    args = parser.parse_args(["import", src, "-o", str(tmp_path / "ds.py")])
    assert args.run(args) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "imports only to an int8 .bst" in err
    assert not (tmp_path / "ds.py").exists()


def test_uint8_model_is_refused_naming_every_node(models, tmp_path):
    path = tmp_path / "u8.onnx"
    quantize(models["ds_cnn", False].with_name("ds_cnn_f32.onnx"), path, uint8=True)
    quantizes = [n for n in onnx.load(path).graph.node if n.op_type == "QuantizeLinear"]
    with pytest.raises(ONNXImportError) as e:
        int8_graph(read(path))
    message = str(e.value)
    assert "\n" not in message and "uint8 is not supported" in message
    assert message.count("(QuantizeLinear ") == len(quantizes) > 3
    report = check_onnx(path)  # burn import --check: one problem per node
    assert not report.importable and message.endswith("; ".join(report.problems))
    assert len(report.problems) > len(quantizes)  # and the uint8 weights' DequantizeLinear


def test_check_reports_the_int8_bst(models):
    report = check_onnx(models["ds_cnn", False])
    assert report.importable and report.macs > 0
    kinds = [op["op"] for op in burn.load(report.bst).info()["ops"]]
    assert kinds[0] == "quantize" and "depthwise_conv2d" in kinds


def _conv_model(path, w_zero_point=0, bias=True, w_scale=0.01, relu6=False):
    """x -> Q -> DQ -> Conv (DequantizeLinear weights) [-> Relu -> Clip(0, 6)] -> Q -> DQ -> y,
    made by hand."""
    rng = np.random.default_rng(2)
    inits = [numpy_helper.from_array(np.float32(0.02), "s"),
             numpy_helper.from_array(np.int8(3), "z"),
             numpy_helper.from_array(rng.integers(-127, 128, (4, 2, 3, 3)).astype(np.int8),
                                     "wq"),
             numpy_helper.from_array(np.full(4, w_scale, np.float32), "ws"),
             numpy_helper.from_array(np.full(4, w_zero_point, np.int8), "wz"),
             numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b"),
             numpy_helper.from_array(np.float32(0.05), "so"),
             numpy_helper.from_array(np.int8(-5), "zo"),
             numpy_helper.from_array(np.float32(0), "lo"),
             numpy_helper.from_array(np.float32(6), "hi")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0),
             helper.make_node("Conv", ["xd", "w"] + (["b"] if bias else []),
                              ["a" if relu6 else "c"], pads=[0, 1, 1, 1], strides=[2, 1]),
             helper.make_node("QuantizeLinear", ["c", "so", "zo"], ["cq"])]
    if relu6:
        nodes += [helper.make_node("Relu", ["a"], ["r"]),
                  helper.make_node("Clip", ["r", "lo", "hi"], ["c"])]
    nodes.append(helper.make_node("DequantizeLinear", ["cq", "so", "zo"], ["y"]))
    graph = helper.make_graph(
        nodes, "qconv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 7, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_hand_made_conv_with_float_bias_and_uneven_pads(tmp_path):
    path = _conv_model(tmp_path / "conv.onnx")
    graph = int8_graph(read(path), tests=0)
    conv = next(op for op in graph.ops if op.op == "conv2d")
    assert (conv.params["pad_top"], conv.params["pad_left"]) == (0, 1)
    assert conv.consts["bias"].dtype == np.int32
    d = _lsb_differences(path, graph, (1, 2, 7, 6))
    assert d.max() <= 1


def test_relu_then_clip_fuse_into_the_conv_as_relu6(tmp_path):
    path = _conv_model(tmp_path / "relu6.onnx", relu6=True)
    graph = int8_graph(read(path), tests=0)
    assert [op.op for op in graph.ops] == ["quantize", "conv2d", "dequantize"]
    conv = graph.ops[1]
    assert (conv.params["act_min"], conv.params["act_max"]) == (-5, -5 + 120)  # [0, 6] / 0.05
    assert _lsb_differences(path, graph, (1, 2, 7, 6)).max() <= 1


def test_asymmetric_weights_are_refused(tmp_path):
    path = _conv_model(tmp_path / "asym.onnx", w_zero_point=2)
    with pytest.raises(ONNXImportError, match=r"node 3 \(Conv ''\).*symmetric"):
        int8_graph(read(path))


def test_bias_scale_that_underflows_is_one_clean_error(tmp_path):
    # input scale x weight scale is 0 in float32: refused without a numpy warning
    path = _conv_model(tmp_path / "tiny.onnx", w_scale=1e-45)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ONNXImportError, match="bias does not fit int32"):
            int8_graph(read(path))


@pytest.mark.parametrize("rescale", [False, True])
def test_lone_relu_keeps_its_input_quantization_then_requantizes(tmp_path, rescale):
    inits = [numpy_helper.from_array(np.float32(0.02), "s"),
             numpy_helper.from_array(np.int8(3), "z"),
             numpy_helper.from_array(np.float32(0.01 if rescale else 0.02), "so"),
             numpy_helper.from_array(np.int8(-128 if rescale else 3), "zo")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             helper.make_node("Relu", ["xd"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "so", "zo"], ["rq"]),
             helper.make_node("DequantizeLinear", ["rq", "so", "zo"], ["y"])]
    graph = helper.make_graph(
        nodes, "relu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    graph = int8_graph(read(path), tests=0)
    assert [op.op for op in graph.ops] == ["quantize", "clamp"] + \
        ["requantize"] * rescale + ["dequantize"]
    assert _lsb_differences(path, graph, (1, 3, 4, 4)).max() <= 1


def test_list_ops_names_the_quantized_ops(capsys):
    args = build_parser().parse_args(["import", "--list-ops"])
    assert args.run(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "int8 for QuantizeLinear" in out and "QLinearMatMul" in out

"""ONNX import of PyTorch-made models: outputs against onnxruntime, the generated Python
module (imports, trains a step under Autodiff, exports to .bst) and `burn import`."""

import importlib.util

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx_models import MODELS, export

import burn
from burn.host.autodiff import autodiff_device
from burn.host.bst_writer import encode_bst
from burn.host.cli import build_parser
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import export_bst, graph_input
from burn.host.importers.onnx_import import import_onnx
from burn.host.train.losses import mse_loss
from burn.host.train.optim import SGD

# (model, opset, BatchNormalization nodes kept): every model, opsets 13 to 21.
CASES = [("small_cnn", 13, True), ("ds_cnn", 17, False), ("resnet8", 18, False),
         ("autoencoder", 20, True), ("op_mix", 13, True), ("op_mix", 21, True),
         ("decoder", 16, True), ("kws_1d", 17, False)]


@pytest.fixture(scope="module")
def onnx_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("onnx")
    files = {}
    for name, opset, fold in CASES:
        path = folder / ("%s_%d.onnx" % (name, opset))
        export(name, path, min(opset, 20), fold)
        if opset > 20:  # the TorchScript exporter stops at 20
            onnx.save(onnx.version_converter.convert_version(onnx.load(path), opset), path)
        files[name, opset] = path
    return files


def _batch(name, n=2, seed=1):
    shape = (n,) + MODELS[name][1][1:]
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _reference(path, x):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]


def _close(out, ref):
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


@pytest.mark.parametrize("name,opset,fold", CASES)
def test_imported_model_matches_onnxruntime(onnx_files, name, opset, fold):
    path = onnx_files[name, opset]
    ops = {n.op_type for n in onnx.load(path).graph.node}
    assert fold or "BatchNormalization" in ops
    imported = import_onnx(path)
    x = _batch(name)
    _close(to_numpy(imported.model("numpy")(to_tensor(x, "numpy"))), _reference(path, x))


def _load_generated(tmp_path, imported):
    code, _ = imported.write_python(tmp_path / "imported_net.py")
    spec = importlib.util.spec_from_file_location("imported_net", code)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["ds_cnn", "autoencoder", "kws_1d"])
def test_generated_module_trains_and_exports(onnx_files, tmp_path, name):
    opset = next(c[1] for c in CASES if c[0] == name)
    path = onnx_files[name, opset]
    module = _load_generated(tmp_path, import_onnx(path))
    model = module.load().to("numpy")
    x = _batch(name)
    _close(to_numpy(model(to_tensor(x, "numpy"))), _reference(path, x))

    home = next(iter(model.parameters())).device
    dev = autodiff_device("numpy")
    model = model.train().to(dev)
    opt = SGD(model.parameters(), lr=0.05)
    before = {k: to_numpy(v).copy() for k, v in model.state_dict().items()}
    xs = to_tensor(x).to(dev)
    loss = mse_loss(model(xs), to_tensor(np.zeros_like(_reference(path, x))).to(dev))
    loss.backward()
    opt.step()
    after = {k: to_numpy(v) for k, v in model.state_dict().items()}
    changed = [k for k in before if k.endswith("weight") and not np.array_equal(before[k],
                                                                                after[k])]
    assert changed, "one SGD step changed no weight"

    model = model.eval().to(home)
    graph = export_bst(model, tmp_path / "net.bst", dtype="float32",
                       sample_shape=x.shape[1:], tests=1)
    runtime = burn.load(str(tmp_path / "net.bst"))
    got = np.asarray(runtime(graph_input(graph, x[0])).tolist(), np.float32).reshape(-1)
    want = to_numpy(model(to_tensor(x[:1], home))).reshape(-1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_asymmetric_and_same_padding_match_onnxruntime(tmp_path):
    # Conv with more padding after than before (an F.pad runs first), auto_pad SAME_UPPER
    rng = np.random.default_rng(3)
    w = onnx.numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w")
    nodes = [onnx.helper.make_node("Conv", ["x", "w"], ["a"], pads=[0, 1, 1, 2]),
             onnx.helper.make_node("Conv", ["a", "w2"], ["y"], auto_pad="SAME_UPPER",
                                   strides=[2, 2])]
    w2 = onnx.numpy_helper.from_array(rng.standard_normal((4, 3, 2, 2)).astype(np.float32),
                                      "w2")
    graph = onnx.helper.make_graph(
        nodes, "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                        ["n", 2, 7, 6])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [w, w2])
    path = tmp_path / "pads.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 15)]),
              path)
    x = rng.standard_normal((2, 2, 7, 6)).astype(np.float32)
    _close(to_numpy(import_onnx(path).model("numpy")(to_tensor(x, "numpy"))),
           _reference(path, x))


def test_conv_transpose_with_asymmetric_pads_matches_onnxruntime(tmp_path):
    # ConvTranspose with more padding before than after: nn.ConvTranspose2d, then a crop
    rng = np.random.default_rng(4)
    w = onnx.numpy_helper.from_array(rng.standard_normal((2, 3, 3, 3)).astype(np.float32), "w")
    b = onnx.numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "b")
    node = onnx.helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], pads=[2, 0, 1, 1],
                                 strides=[2, 3], output_padding=[1, 0])
    graph = onnx.helper.make_graph(
        [node], "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                         ["n", 2, 4, 5])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [w, b])
    path = tmp_path / "deconv.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]),
              path)
    x = rng.standard_normal((2, 2, 4, 5)).astype(np.float32)
    imported = import_onnx(path)
    assert "nn.ConvTranspose2d(2, 3, (3, 3), stride=(2, 3)" in imported.code()
    _close(to_numpy(imported.model("numpy")(to_tensor(x, "numpy"))), _reference(path, x))


def test_conv_transpose_imports_to_a_bst_that_matches_onnxruntime(tmp_path):
    rng = np.random.default_rng(6)
    w = onnx.numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w")
    node = onnx.helper.make_node("ConvTranspose", ["x", "w"], ["y"], pads=[1, 1, 1, 1],
                                 strides=[2, 2], output_padding=[1, 1])
    graph = onnx.helper.make_graph(
        [node], "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                         ["n", 3, 4, 5])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [w])
    path = tmp_path / "up.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 18)]),
              path)
    fgraph = import_onnx(path).float_graph(tests=1)
    assert [op.op for op in fgraph.ops] == ["transpose_conv2d"]
    x = rng.standard_normal((1, 3, 4, 5)).astype(np.float32)
    got = np.asarray(burn.load(encode_bst(fgraph))(graph_input(fgraph, x[0])).tolist())
    _close(got.reshape(1, 8, 10, 2).transpose(0, 3, 1, 2), _reference(path, x))


def test_leaky_relu_imports_to_a_bst_that_matches_onnxruntime(tmp_path):
    rng = np.random.default_rng(8)
    w = onnx.numpy_helper.from_array(rng.standard_normal((4, 2, 3, 3)).astype(np.float32), "w")
    nodes = [onnx.helper.make_node("Conv", ["x", "w"], ["a"], pads=[1, 1, 1, 1]),
             onnx.helper.make_node("LeakyRelu", ["a"], ["y"], alpha=0.3)]
    graph = onnx.helper.make_graph(
        nodes, "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                        ["n", 2, 5, 5])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [w])
    path = tmp_path / "leaky.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 16)]),
              path)
    fgraph = import_onnx(path).float_graph(tests=1)
    assert [op.op for op in fgraph.ops] == ["conv2d", "unary"]
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    got = np.asarray(burn.load(encode_bst(fgraph))(graph_input(fgraph, x[0])).tolist())
    _close(got.reshape(1, 5, 5, 4).transpose(0, 3, 1, 2), _reference(path, x))


def test_per_channel_normalisation_imports_to_a_bst_that_matches_onnxruntime(tmp_path):
    rng = np.random.default_rng(9)
    init = [onnx.numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
            for n, s in (("mean", (1, 3, 1, 1)), ("w", (4, 3, 3, 3)), ("gain", (1, 4, 1, 1)))]
    init.append(onnx.numpy_helper.from_array(rng.uniform(0.2, 2, (1, 3, 1, 1))
                                             .astype(np.float32), "std"))
    nodes = [onnx.helper.make_node("Sub", ["x", "mean"], ["a"]),
             onnx.helper.make_node("Div", ["a", "std"], ["b"]),
             onnx.helper.make_node("Conv", ["b", "w"], ["c"]),
             onnx.helper.make_node("Mul", ["c", "gain"], ["y"])]
    graph = onnx.helper.make_graph(
        nodes, "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                        ["n", 3, 6, 6])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], init)
    path = tmp_path / "norm.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]),
              path)
    fgraph = import_onnx(path).float_graph(tests=1)
    # (x - mean) / std: one depthwise 1x1 op; the gain folds into the conv
    assert [op.op for op in fgraph.ops] == ["depthwise_conv2d", "conv2d"]
    x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
    got = np.asarray(burn.load(encode_bst(fgraph))(graph_input(fgraph, x[0])).tolist())
    _close(got.reshape(1, 4, 4, 4).transpose(0, 3, 1, 2), _reference(path, x))


def test_cli_writes_bst_and_python(onnx_files, tmp_path, capsys):
    path = onnx_files["ds_cnn", 17]
    parser = build_parser()
    out = tmp_path / "ds.bst"
    args = parser.parse_args(["import", str(path), "-o", str(out), "--tests", "2"])
    assert args.run(args) == 0
    x = _batch("ds_cnn", 1)
    runtime = burn.load(str(out))
    got = np.asarray(runtime(burn.tensor(x.transpose(0, 2, 3, 1).reshape(-1).tolist())
                             .reshape((1, 20, 10, 1))).tolist(), np.float32).reshape(-1)
    ref = _reference(path, x).reshape(-1)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    args = parser.parse_args(["import", str(path), "-o", str(tmp_path / "ds.py")])
    assert args.run(args) == 0
    assert (tmp_path / "ds.npz").is_file()
    assert "class Model(nn.Module)" in (tmp_path / "ds.py").read_text()
    assert "wrote" in capsys.readouterr().out

"""Export of matrix products of two computed values (`x @ y`, one matrix per sample) as the
optional `batch_matmul` op: a burn.nn model with an attention-like `y @ y.transpose(1, 2)`
(float32 against the model within 1e-4, int8 self-test, and the int8 graph bit for bit on
the plain kernels, flex host, flex Cortex-M0+ and MicroPython), an [N, 1, H, W] product read
by a Linear, an ONNX MatMul of two values through
the importer (against onnxruntime), quantization-aware training, the .tflite writer
(against TFLM) and the refusals."""

import numpy as np
import onnxruntime as ort
import pytest
import torch
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import run_tflm

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import ExportError, graph_input, quantize, to_float_graph
from burn.host.export.qat import prepare_qat
from burn.host.export.tflite import tflite_bytes
from burn.host.flex.runtime import use_flex
from burn.host.importers.onnx_import import import_onnx
from burn.host.importers.tflite import import_tflite


class Gram(nn.Module):
    """Conv1d, then the channels' Gram matrix y @ y^T [N, 6, 6] applied to a second
    feature map (g @ z, [N, 6, 10]), then a Conv1d: both products' operands and results are
    [N, C, L] values."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(4, 6, 3, padding=1)
        self.b = nn.Conv1d(6, 6, 1)
        self.c = nn.Conv1d(6, 3, 1)

    def forward(self, x):
        y = self.a(x)
        g = (y @ y.transpose(1, 2)) * 0.1
        return self.c(g.transpose(1, 2) @ self.b(y).relu()).relu()


class Square(nn.Module):
    """A one-channel map times its transpose ([N, 1, 5, 5] @ [N, 1, 5, 5]), flattened into
    a Linear: the product is written row by row."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 1, 3, padding=1)
        self.fc = nn.Linear(25, 4)

    def forward(self, x):
        y = self.conv(x)
        return self.fc((y @ y.transpose(2, 3)).flatten(1))


def _numpy_model(cls):
    burn.seed(0)
    return cls().eval().to(burn.device("numpy"))


def _outputs(graph, xs, flex=False):
    model = burn.load(encode_bst(graph))
    model = use_flex(model) if flex else model
    return np.stack([np.asarray(model(graph_input(graph, x)).tolist(), np.float32).reshape(-1)
                     for x in xs])


@pytest.mark.parametrize("cls,shape,layout", [(Gram, (4, 10), (3, 10)), (Square, (2, 5, 5), None)])
def test_products_of_computed_values_export_float_and_int8(cls, shape, layout):
    model = _numpy_model(cls)
    x = np.random.default_rng(1).standard_normal((48,) + shape).astype(np.float32)
    want = to_numpy(model(to_tensor(x, burn.device("numpy"))))
    if layout is not None:  # [N, C, L] outputs are NHWC [1, 1, L, C] in the graph
        want = want.transpose(0, 2, 1)
    want = want.reshape(len(x), -1)
    fgraph = to_float_graph(model, x[:4], tests=1)
    assert sum(op.op == "batch_matmul" for op in fgraph.ops) == (2 if cls is Gram else 1)
    got = _outputs(fgraph, x[:6])
    assert np.abs(got - want[:6]).max() <= 1e-4 * np.abs(want).max()
    assert np.abs(_outputs(fgraph, x[:6], flex=True) - got).max() <= 1e-5 * np.abs(got).max()
    qgraph = quantize(model, x[:32], io="float32", tests=2)
    assert burn.load(encode_bst(qgraph)).self_test() == 2
    q = _outputs(qgraph, x[:16])  # within the calibrated ranges
    assert np.array_equal(_outputs(qgraph, x[:16], flex=True), q)  # bit for bit
    error = np.abs(q - want[:16]).max() / np.abs(want).max()
    assert error < 0.05, error


def test_exported_int8_products_agree_on_every_runtime(tmp_path):
    model = _numpy_model(Gram)
    x = np.random.default_rng(3).standard_normal((24, 4, 10)).astype(np.float32)
    graph = quantize(model, x, tests=0)  # int8 in and out
    bst = encode_bst(graph)
    plain = burn.load(bst, variant="plain")
    cases = []
    for i in range(4):
        xi = graph_input(graph, x[i])
        cases.append(("sample %d" % i, xi, np.array(plain.run(xi.reshape(-1)), np.int8), bst))
    assert len({c[2].tobytes() for c in cases}) == 4
    check_on_host(cases, ("conv2d", "batch_matmul", "depthwise_conv2d"))  # * 0.1: 1x1
    check_on_micropython(cases, tmp_path)


def test_quantization_aware_training_runs_products_exactly():
    """The QAT model in eval mode computes the exported int8 graph's outputs exactly (its
    numpy emulation of batch_matmul is the runtime's arithmetic)."""
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = Gram().to(dev)
    x = np.random.default_rng(4).standard_normal((16, 4, 10)).astype(np.float32)
    qat = prepare_qat(model, x, observe_batches=1)
    loss = (qat(to_tensor(x[:8], dev)) ** 2).mean()
    loss.backward()
    simulated = to_numpy(qat.eval()(to_tensor(x, dev))).transpose(0, 2, 1)
    q, graph = qat.int8_outputs(x)
    out = graph.tensors[graph.outputs[0][0]]
    runtime = burn.load(encode_bst(graph))
    got = np.stack([np.asarray(runtime(graph_input(graph, xi)).tolist()) for xi in x])
    assert np.array_equal(got.reshape(q.shape), q)
    deq = (q.astype(np.float32) - out.zero_point) * out.scale
    assert np.abs(simulated.reshape(deq.shape) - deq).max() <= 1e-3 * out.scale


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_products_write_to_tflite_and_run_in_tflm(dtype):
    """BATCH_MATMUL between RESHAPEs: TFLM gives the .bst outputs (int8 bit for bit), and
    the file imports back to a .bst that does too."""
    model = _numpy_model(Gram)
    x = np.random.default_rng(5).standard_normal((24, 4, 10)).astype(np.float32)
    graph = quantize(model, x, tests=0) if dtype == "int8" else \
        to_float_graph(model, x, tests=0)
    data = tflite_bytes(graph)
    back = burn.load(encode_bst(import_tflite(data, tests=0)))
    ours = burn.load(encode_bst(graph))
    for xi in x[:4]:
        xi = graph_input(graph, xi)
        want = np.asarray(ours.run(xi.reshape(-1)).tolist()).reshape(-1)
        got = run_tflm(data, [xi])[0].reshape(-1)
        again = np.asarray(back.run(xi.reshape(-1)).tolist()).reshape(-1)
        if dtype == "int8":
            assert got.tolist() == want.tolist() == again.tolist()
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
            np.testing.assert_allclose(again, want, rtol=1e-6, atol=1e-6)


class AttentionScores(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = torch.nn.Conv1d(3, 8, 1)
        self.k = torch.nn.Conv1d(3, 8, 1)

    def forward(self, x):
        return torch.softmax(self.q(x) @ self.k(x).transpose(1, 2), dim=1)


def test_onnx_matmul_of_two_values_imports_to_bst(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "scores.onnx"
    torch.onnx.export(AttentionScores().eval(), torch.randn(1, 3, 7), str(path),
                      input_names=["x"], output_names=["y"], dynamo=False,
                      dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    x = np.random.default_rng(2).standard_normal((4, 3, 7)).astype(np.float32)
    ref = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]  # [N, 8, 8]
    fgraph = import_onnx(path).float_graph(tests=1)
    assert [op.op for op in fgraph.ops] == ["conv2d", "conv2d", "batch_matmul", "softmax"]
    got = _outputs(fgraph, x).reshape(4, 8, 8).transpose(0, 2, 1)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


class _Op(nn.Module):
    def __init__(self, fn, conv):
        super().__init__()
        self.conv = conv
        self.fn = fn

    def forward(self, x):
        return self.fn(self.conv(x))


@pytest.mark.parametrize("fn,shape,match", [
    (lambda y: y.flatten(1) @ y.flatten(1).transpose(0, 1), (2, 3, 3),
     r"'<model>' \(_Op\): matmul of values of shapes \(2, 18\) and \(18, 2\); it exports "
     r"with one matrix per sample"),
    (lambda y: y @ y.transpose(2, 3), (2, 3, 3), r"matmul of values of shapes \(2, 2, 3, 3\)"),
    (lambda y: y @ burn.ones((3, 3)).to(burn.device("numpy")), (2, 3, 3),
     "matmul of a computed value by a constant is not supported"),
    (lambda y: y.reshape(y.shape[0], 6, 3) @ y.reshape(y.shape[0], 3, 6), (2, 3, 3),
     r"operand of shape \(2, 6, 3\) whose elements are neither in its rows' nor"),
])
def test_what_cannot_be_placed_is_refused_naming_the_module(fn, shape, match):
    burn.seed(0)
    conv = nn.Conv2d(2, 2, 1) if len(shape) == 3 else nn.Conv1d(2, 2, 1)
    model = _Op(fn, conv).eval().to(burn.device("numpy"))
    with pytest.raises(ExportError, match=match):
        to_float_graph(model, sample_shape=shape)


def test_a_transposed_value_flattened_into_a_linear_moves_no_data():
    burn.seed(0)
    model = nn.Sequential(_Op(lambda y: y.transpose(1, 2).flatten(1), nn.Conv1d(3, 4, 1)),
                          nn.Linear(20, 2)).eval().to(burn.device("numpy"))
    x = np.random.default_rng(6).standard_normal((4, 3, 5)).astype(np.float32)
    graph = to_float_graph(model, x)
    assert [op.op for op in graph.ops] == ["conv2d", "fully_connected"]
    want = to_numpy(model(to_tensor(x, burn.device("numpy"))))
    got = _outputs(graph, x)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


def test_a_transposed_value_read_by_a_convolution_is_refused():
    burn.seed(0)
    model = _Op(lambda y: y.transpose(1, 2), nn.Conv1d(2, 3, 1))
    model = nn.Sequential(model, nn.Conv1d(4, 2, 1)).eval().to(burn.device("numpy"))
    with pytest.raises(ExportError, match=r"'1' \(Conv1d\).*a transpose"):
        to_float_graph(model, sample_shape=(2, 4))

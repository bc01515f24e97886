"""Export of the hard sigmoid (the optional op `unary`, fn HARD_SIGMOID) and of 1-D
convolutional models (Conv1d, BatchNorm1d, the 1-D pools: the 2-D ops on [1, 1, L, C]),
float32 against PyTorch and the float model, int8 against the model's own float path, and
`burn export` of a checkpoint of a 1-D CNN."""

import numpy as np
import pytest
import torch
from one_op_runtimes import check_on_host, check_on_micropython

import burn
from burn import nn
from burn.graph import unary
from burn.host.autodiff import autodiff_device
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.cli import main as burn_main
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import ExportError, graph_input, quantize, to_float_graph, trace
from burn.host.export.qat import prepare_qat
from burn.host.importers.unary_tables import function_table
from burn.host.train import checkpoint as ckpt
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam
from burn.ops.hard_sigmoid import hard_sigmoid


def _outputs(runtime, graph, xs):
    return np.stack([np.asarray(runtime(graph_input(graph, x)).tolist(), np.float32)
                     .reshape(-1) for x in xs])


def _one_op(x, dtype, params, consts=None, q=(None, None)):
    tensors = [GraphTensor("x", x.shape, dtype, *q[:2]), GraphTensor("y", x.shape, dtype,
                                                                       *q[2:])]
    op = GraphOp("unary", [0], [1], consts, params)
    return encode_bst(Graph(tensors, [op], [(0, x.shape)], [(1, x.shape)]))


def test_hard_sigmoid_kernels_match_torch_on_every_runtime(tmp_path):
    rng = np.random.default_rng(0)
    cases = []
    for alpha in (1.0 / 6.0, 0.2, -0.7):
        x = (rng.standard_normal((3, 17)) * 4).astype(np.float32)
        want = torch.clamp(torch.tensor(x, dtype=torch.float64) * alpha + 0.5, 0, 1).numpy()
        if alpha == 1.0 / 6.0:  # PyTorch's own
            np.testing.assert_allclose(want, torch.nn.functional.hardsigmoid(
                torch.tensor(x)).numpy(), rtol=1e-6, atol=1e-7)
        bst = _one_op(x, "float32", {"fn": unary.HARD_SIGMOID, "alpha": alpha})
        cases.append(("f32 alpha %g" % alpha, x, want.astype(np.float32).reshape(-1), bst))
    # int8: the table made at export, looked up by every runtime
    q = (0.05, 3, 1.0 / 255, -128)
    table = function_table(lambda v: np.clip(v / 6.0 + 0.5, 0.0, 1.0), q[:2], q[2:])
    x = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
    want = table[x.view(np.uint8)]
    # input 10: (10 - 3) * 0.05 = 0.35 -> 0.35 / 6 + 0.5 = 0.5583 -> 142.4 steps -> 142 - 128
    assert want.reshape(-1)[138] == 14 and want[0, 0] == -128 and want[-1, -1] == 127
    cases.append(("int8", x, want.reshape(-1), _one_op(x, "int8", {}, {"table": table}, q)))
    check_on_host(cases, "unary", atol=1e-6)
    check_on_micropython(cases, tmp_path, atol=1e-6)


def test_hard_sigmoid_exports_float_and_int8():
    burn.seed(1)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.Hardsigmoid(), nn.Flatten(),
                          nn.Linear(64, 5), nn.Hardsigmoid()).eval()
    theirs = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.Hardsigmoid(),
                                 torch.nn.Flatten(), torch.nn.Linear(64, 5),
                                 torch.nn.Hardsigmoid())
    theirs.load_state_dict({k: torch.tensor(v) for k, v in ckpt.model_state(model).items()})
    x = (np.random.default_rng(2).standard_normal((32, 1, 4, 4)) * 3).astype(np.float32)
    want = theirs(torch.tensor(x)).detach().numpy()
    fgraph = to_float_graph(model, x[:4])
    assert [(op.op, op.params.get("fn")) for op in fgraph.ops] == [
        ("conv2d", None), ("unary", unary.HARD_SIGMOID), ("fully_connected", None),
        ("unary", unary.HARD_SIGMOID)]
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:8])
    np.testing.assert_allclose(got, want[:8], rtol=1e-5, atol=1e-6)
    qgraph = quantize(model, x, io="float32", tests=2)
    assert qgraph.ops[2].consts["table"].shape == (256,)
    runtime = burn.load(encode_bst(qgraph))
    assert runtime.self_test() == 2
    ours = to_numpy(model(to_tensor(x)))
    assert np.abs(_outputs(runtime, qgraph, x[:8]) - ours[:8]).max() < 0.02


class _Gated(nn.Module):
    """A hard sigmoid of a traced value and one of a parameter (a constant), both with a
    beta other than 0.5."""

    def __init__(self):
        super().__init__()
        self.conv, self.gate = nn.Conv2d(1, 3, 3), nn.Parameter(burn.tensor([0.7]))

    def forward(self, x):
        gate = hard_sigmoid(self.gate, 0.4, 0.3)
        return hard_sigmoid(self.conv(x), 0.25, 0.8) * gate


def test_hard_sigmoid_with_another_beta_exports():
    burn.seed(14)
    model = _Gated().eval()
    x = (np.random.default_rng(15).standard_normal((8, 1, 5, 5)) * 3).astype(np.float32)
    fgraph = to_float_graph(model, x[:4])
    # the shift before the first folds into the convolution, the gate into a scale after it
    assert [op.op for op in fgraph.ops] == ["conv2d", "unary", "depthwise_conv2d"]
    want = to_numpy(model(to_tensor(x[:4]))).transpose(0, 2, 3, 1).reshape(4, -1)
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:4])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert abs(float(want.max()) - 0.58) < 0.01  # 1 * hard_sigmoid(0.7, 0.4, 0.3)


def kws_1d():
    """A keyword-spotting style 1-D CNN over 10 feature channels of 32 frames."""
    return nn.Sequential(
        nn.Conv1d(10, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
        nn.Conv1d(16, 24, 3, padding=1), nn.BatchNorm1d(24), nn.ReLU(), nn.MaxPool1d(2),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(24, 6))


def _with_statistics(model, seed):
    rng = np.random.default_rng(seed)
    state = ckpt.model_state(model)
    for key in state:
        if key.endswith("running_mean"):
            state[key] = rng.normal(0, 0.3, state[key].shape).astype(np.float32)
        elif key.endswith("running_var"):
            state[key] = rng.uniform(0.5, 2.0, state[key].shape).astype(np.float32)
    ckpt.load_model_state(model, state)
    return model.eval()


def test_1d_cnn_exports_float_and_int8():
    burn.seed(3)
    model = _with_statistics(kws_1d(), 4)
    x = np.random.default_rng(5).standard_normal((64, 10, 32)).astype(np.float32)
    want = to_numpy(model(to_tensor(x)))
    fgraph = to_float_graph(model, x[:4])
    assert [op.op for op in fgraph.ops] == ["conv2d", "max_pool2d", "conv2d", "max_pool2d",
                                            "mean", "fully_connected"]
    assert fgraph.tensors[fgraph.inputs[0][0]].shape == (1, 1, 32, 10)
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:8])
    np.testing.assert_allclose(got, want[:8], rtol=1e-4, atol=1e-4 * np.abs(want).max())
    qgraph = quantize(model, x, io="float32", tests=2)
    runtime = burn.load(encode_bst(qgraph))
    assert runtime.self_test() == 2
    got = _outputs(runtime, qgraph, x[:16])
    assert np.abs(got - want[:16]).max() < 0.05 * np.abs(want).max()
    assert (got.argmax(1) == want[:16].argmax(1)).mean() >= 0.8


def test_1d_batchnorm_after_a_flatten_and_a_linear_exports():
    burn.seed(6)
    model = _with_statistics(nn.Sequential(
        nn.Conv1d(2, 3, 3), nn.Flatten(), nn.BatchNorm1d(12), nn.ReLU(), nn.Linear(12, 4),
        nn.BatchNorm1d(4)), 7)
    x = np.random.default_rng(8).standard_normal((16, 2, 6)).astype(np.float32)
    want = to_numpy(model(to_tensor(x)))
    fgraph = to_float_graph(model, x[:4])  # a diagonal layer, then one folded into a Linear
    assert [op.op for op in fgraph.ops] == ["conv2d", "fully_connected", "fully_connected"]
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:4])
    np.testing.assert_allclose(got, want[:4], rtol=1e-4, atol=1e-5)


def test_qat_of_a_1d_cnn_fake_quantizes_its_convolutions_as_the_graph_does():
    """Each BatchNorm1d folds into the Conv1d before it and the folded weight is
    fake-quantized on the exported grid, so with BatchNorm on running statistics the
    training forward is within one output step of the integer graph (a quarter of the
    outputs are one step off here: the requantizations' and the mean's rounding)."""
    dev = autodiff_device("numpy")
    burn.seed(16)
    model = kws_1d().to(dev)
    x = np.random.default_rng(17).standard_normal((48, 10, 32)).astype(np.float32)
    y = np.random.default_rng(18).integers(0, 6, 48)
    qat = prepare_qat(model, x, observe_batches=2)
    assert len(qat._folds) == 2
    opt = Adam(qat.parameters(), lr=1e-3)
    for i in range(3):
        loss = cross_entropy(qat(to_tensor(x[16 * i:16 * (i + 1)], dev)),
                             to_tensor(y[16 * i:16 * (i + 1)].astype(np.int32), dev))
        opt.zero_grad()
        loss.backward()
        opt.step()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    simulated = to_numpy(qat(to_tensor(x, dev)))
    q, graph = qat.eval().int8_outputs(x)
    out = graph.tensors[graph.outputs[0][0]]
    step = np.abs(simulated - (q.astype(np.float32) - out.zero_point) * out.scale) / out.scale
    assert step.max() <= 1.01 and step.mean() < 0.4, (step.max(), step.mean())


def test_cli_exports_a_1d_cnn_checkpoint(tmp_path, capsys):
    burn.seed(9)
    model = _with_statistics(kws_1d(), 10)
    run = tmp_path / "run"
    run.mkdir()
    ckpt.write_atomic(run / "best.ckpt", ckpt.snapshot(model, None, None, 1, [], None, True))
    factory = tmp_path / "kws_models.py"
    factory.write_text("from test_export_1d import kws_1d\n")
    x = np.random.default_rng(11).standard_normal((64, 10, 32)).astype(np.float32)
    np.save(tmp_path / "calib.npy", x)
    out, fout = tmp_path / "kws.bst", tmp_path / "kws_f32.bst"
    assert burn_main(["export", str(run), "--model", str(factory) + ":kws_1d", "-o", str(out),
                      "--calibration", str(tmp_path / "calib.npy")]) == 0, \
        capsys.readouterr().err
    runtime = burn.load(str(out))
    assert runtime.self_test() == 3
    assert runtime.info()["inputs"][0]["shape"] == (1, 1, 32, 10)
    assert burn_main(["export", str(run), "--model", str(factory) + ":kws_1d", "-o", str(fout),
                      "--float", "--input-shape", "10,32"]) == 0, capsys.readouterr().err
    graph = to_float_graph(model, x[:1], tests=0)
    got = _outputs(burn.load(str(fout)), graph, x[:4])
    want = to_numpy(model(to_tensor(x[:4])))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


class _LengthMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = nn.Conv1d(2, 4, 3), nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(self.conv(x).mean(2))


def test_a_mean_over_the_length_exports():
    burn.seed(12)
    model = _LengthMean().eval()
    x = np.random.default_rng(13).standard_normal((8, 2, 7)).astype(np.float32)
    fgraph = to_float_graph(model, x[:4])
    assert [op.op for op in fgraph.ops] == ["conv2d", "mean", "fully_connected"]
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:4])
    np.testing.assert_allclose(got, to_numpy(model(to_tensor(x[:4]))), rtol=1e-4, atol=1e-6)


class _Channel(nn.Module):
    """Channel 2 of a feature map, its axis dropped ([N, H, W]), then `then`."""

    def __init__(self, then):
        super().__init__()
        self.conv, self.then = nn.Conv2d(2, 4, 3, padding=1), then

    def forward(self, x):
        return self.then(self.conv(x)[:, 2])


@pytest.mark.parametrize("then, message", [
    (lambda g: g.relu(), r"shape \(2, 5, 5\) whose elements are not in the graph's"),
    (lambda g: g.mean(1), r"mean over dims \(1,\) of a value whose elements"),
])
def test_an_index_that_drops_the_channel_axis_is_refused_where_it_cannot_be_placed(then,
                                                                                    message):
    with pytest.raises(ExportError, match=message):
        trace(_Channel(then), (2, 5, 5))

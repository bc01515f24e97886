"""Quantize and export: a digits CNN trained with the Learner, exported to int8 and float32
`.bst` files, run by the `.bst` runtime on CPython and on the real MicroPython unix port;
BatchNorm folding and activation fusion on a model that uses every supported layer; clear
errors for unsupported modules; the `burn export` command."""

import binascii
import sys
from pathlib import Path

import numpy as np
import pytest

import burn
from burn import nn
from burn.host.autodiff import autodiff_device, no_grad
from burn.host.boards import load_board
from burn.host.bst_writer import encode_bst
from burn.host.cli import main as burn_main
from burn.host.convert import to_numpy, to_tensor
from burn.host.data import DataLoader, load_digits, random_split
from burn.host.export import (
    ExportError,
    export_bst,
    graph_input,
    nhwc,
    quantize,
    to_float_graph,
    trace,
)
from burn.host.export.source import load_trained
from burn.host.mpy import unix as mp_unix
from burn.host.train import checkpoint as ckpt
from burn.host.train.learner import Learner
from burn.host.train.optim import Adam

SCRIPTS = Path(__file__).parent / "scripts"
sys.path.insert(0, str(SCRIPTS))
from train_digits import build  # noqa: E402

MP_SAMPLES = 100


@pytest.fixture(scope="module")
def digits():
    """(x_train, x_valid, y_valid) of the digits split the Learner tests use."""
    train, valid = random_split(load_digits(), [0.8, 0.2])
    xt, _yt = train.batch(np.arange(len(train)))
    xv, yv = valid.batch(np.arange(len(valid)))
    return xt, xv, yv


@pytest.fixture(scope="module")
def trained(tmp_path_factory, digits):
    """The digits CNN (conv, BatchNorm, ReLU, pool, conv, ReLU, flatten, linear) trained
    for a few epochs; returns (model, run_dir)."""
    run_dir = tmp_path_factory.mktemp("run")
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = build("cnn").to(dev)
    train, valid = random_split(load_digits(), [0.8, 0.2])
    learner = Learner(model, Adam(model.parameters(), lr=3e-3), run_dir=str(run_dir),
                      dashboard="plain", monitor="valid_accuracy", mode="max")
    learner.fit(DataLoader(train, 32, shuffle=True, device=dev),
                DataLoader(valid, 512, device=dev), 4)
    return model.eval(), run_dir


def _outputs(model, graph, xs):
    """The runtime's output array (numpy) for each model-layout sample in xs."""
    return np.stack([to_numpy(model(graph_input(graph, x))).reshape(-1) for x in xs])


def _exports_float_and_int8(model, x, atol, tol=None):
    """(float graph, int8 graph) of `model` exported with calibration inputs x: the float
    .bst within rtol 1e-4 / `atol` of the model on x[:4], the int8 one passing its two
    self-tests and, when `tol` is given, within tol times the largest output of x."""
    want = to_numpy(model(to_tensor(x)))
    if want.ndim == 4:
        want = want.transpose(0, 2, 3, 1)  # the runtime's NHWC
    want = want.reshape(len(x), -1)
    fgraph = to_float_graph(model, x[:4])
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:4])
    np.testing.assert_allclose(got, want[:4], rtol=1e-4, atol=atol)
    qgraph = quantize(model, x, io="float32", tests=2)
    runtime = burn.load(encode_bst(qgraph))
    assert runtime.self_test() == 2
    if tol is not None:
        got = _outputs(runtime, qgraph, x[:4])
        assert np.abs(got - want[:4]).max() < tol * np.abs(want).max()
    return fgraph, qgraph


@pytest.fixture(scope="module")
def int8_export(trained, digits, tmp_path_factory):
    """(path, graph, host outputs on the validation split) of the int8 export."""
    model, _run = trained
    xt, xv, _yv = digits
    path = tmp_path_factory.mktemp("int8") / "digits.bst"
    graph = export_bst(model, str(path), calibration=xt[:256],
                       labels=[str(d) for d in range(10)], metadata={"name": "digits"})
    runtime = burn.load(str(path))
    return path, graph, _outputs(runtime, graph, xv)


def _float_model_outputs(model, x):
    with no_grad():
        return to_numpy(model(to_tensor(x, next(model.parameters()).device)))


def test_int8_accuracy_is_within_one_point_of_float(trained, digits, int8_export):
    model, _run = trained
    _xt, xv, yv = digits
    path, _graph, out = int8_export
    float_acc = np.mean(_float_model_outputs(model, xv).argmax(1) == yv)
    int8_acc = np.mean(out.argmax(1) == yv)
    assert float_acc > 0.9
    assert abs(int8_acc - float_acc) <= 0.01, (int8_acc, float_acc)
    loaded = burn.load(str(path))
    assert loaded.self_test() == 3
    info = loaded.info()
    assert info["labels"] == [str(d) for d in range(10)]
    assert info["metadata"]["name"] == "digits"
    assert info["inputs"][0]["dtype"] == "int8" and info["inputs"][0]["shape"] == (1, 8, 8, 1)


def test_micropython_gives_the_host_outputs_bit_for_bit(digits, int8_export, tmp_path):
    _xt, xv, _yv = digits
    path, graph, host_out = int8_export
    xs = np.stack([graph_input(graph, x) for x in xv[:MP_SAMPLES]])
    (tmp_path / "inputs.bin").write_bytes(xs.tobytes())
    mp_unix.link_core(tmp_path)
    code = (
        "import burn, binascii\n"
        "m = burn.load(%r)\n"
        "print('selftest', m.self_test())\n"
        "f = open(%r, 'rb')\n"
        "data = f.read()\n"
        "f.close()\n"
        "n = %d\n"
        "for i in range(len(data) // n):\n"
        "    y = m.run(memoryview(data)[i * n:(i + 1) * n])\n"
        "    print(binascii.hexlify(bytes(y)).decode())\n"
    ) % (str(path), str(tmp_path / "inputs.bin"), xs[0].size)
    heap = load_board("rp2040").heap_bytes  # the RP2040 firmware's heap, measured
    proc = mp_unix.run_code(code, paths=[tmp_path], heap=str(heap), timeout=240)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[0] == "selftest 3"
    mp_out = np.stack([np.frombuffer(binascii.unhexlify(s), np.int8)
                       for s in lines[1:1 + MP_SAMPLES]])
    assert mp_out.shape == (MP_SAMPLES, 10)
    np.testing.assert_array_equal(mp_out, host_out[:MP_SAMPLES])
    assert (mp_out.argmax(1) == host_out[:MP_SAMPLES].argmax(1)).all()


def test_float_io_variant_matches_int8_io(trained, digits, int8_export):
    """The in-model quantize/dequantize ops agree with the host's input quantization."""
    model, _run = trained
    xt, xv, _yv = digits
    _path, graph, out = int8_export
    fgraph = quantize(model, xt[:256], io="float32", tests=0)
    runtime = burn.load(encode_bst(fgraph))
    got = _outputs(runtime, fgraph, xv[:20])
    out_t = graph.tensors[graph.outputs[0][0]]
    want = np.float32(out_t.scale) * (out[:20].astype(np.float32) - out_t.zero_point)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_float_export_folds_batchnorm_and_matches_the_model(trained, digits):
    model, _run = trained
    xt, xv, _yv = digits
    graph = to_float_graph(model, xt[:8])
    assert [op.op for op in graph.ops] == ["conv2d", "max_pool2d", "conv2d",
                                           "fully_connected"]
    assert [op.params.get("act") for op in graph.ops] == [1, 0, 1, 0]
    runtime = burn.load(encode_bst(graph))
    assert runtime.self_test() == 3
    got = _outputs(runtime, graph, xv[:30])
    want = _float_model_outputs(model, xv[:30])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_percentile_calibration_narrows_the_ranges(trained, digits):
    model, _run = trained
    xt, _xv, _yv = digits
    wide = quantize(model, xt[:256], tests=0)
    train = random_split(load_digits(), [0.8, 0.2])[0]
    loader = DataLoader(train, 64, device=next(model.parameters()).device)
    narrow = quantize(model, loader, method="percentile", percentile=99.0, max_samples=256,
                      tests=1)
    assert narrow.metadata["calibration_samples"] == 256
    scales = [(a.scale, b.scale) for a, b in zip(wide.tensors, narrow.tensors)]
    assert all(b <= a for a, b in scales)
    assert any(b < a for a, b in scales)
    assert narrow.metadata["calibration"] == "percentile 99"
    assert burn.load(encode_bst(narrow)).self_test() == 1


def _every_layer_model():
    burn.seed(3)
    model = nn.Sequential(
        nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8),
                      nn.ReLU6()),
        nn.Conv2d(8, 8, 3, padding="same", dilation=2, groups=8), nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.BatchNorm2d(8),
        nn.Conv2d(8, 12, 1, groups=4),
        nn.MaxPool2d(3, stride=1, padding=1),
        nn.AvgPool2d(2), nn.ReLU(), nn.Dropout(0.3),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(12, 6), nn.Softmax(dim=1))
    rng = np.random.default_rng(1)
    state = ckpt.model_state(model)
    for key in state:
        if key.endswith("running_mean"):
            state[key] = rng.normal(0, 0.3, state[key].shape).astype(np.float32)
        elif key.endswith("running_var") or (key.endswith(".weight") and
                                             state[key].ndim == 1):
            state[key] = rng.uniform(0.5, 2.0, state[key].shape).astype(np.float32)
    ckpt.load_model_state(model, state)
    return model.eval()


def test_every_supported_layer_exports_float_and_int8():
    model = _every_layer_model()
    x = np.random.default_rng(2).standard_normal((48, 3, 12, 12)).astype(np.float32)
    want = to_numpy(model(to_tensor(x)))
    fgraph = to_float_graph(model, x[:4])
    assert [op.op for op in fgraph.ops] == [
        "conv2d", "depthwise_conv2d", "depthwise_conv2d", "conv2d", "max_pool2d",
        "avg_pool2d", "mean", "fully_connected", "softmax"]
    assert [op.params.get("act") for op in fgraph.ops[:6]] == [3, 1, 0, 0, 0, 1]
    got = _outputs(burn.load(encode_bst(fgraph)), fgraph, x[:6])
    np.testing.assert_allclose(got, want[:6], rtol=1e-4, atol=1e-5)
    qgraph = quantize(model, x, io="float32", tests=2)
    runtime = burn.load(encode_bst(qgraph))
    assert runtime.self_test() == 2
    got = _outputs(runtime, qgraph, x[:6])
    assert np.abs(got - want[:6]).max() < 0.05
    assert (got.argmax(1) == want[:6].argmax(1)).mean() >= 0.8


def test_unsupported_modules_are_named_with_their_path():
    model = nn.Sequential(nn.Conv2d(1, 4, 3),
                          nn.Sequential(nn.ReLU(), nn.GELU()))
    with pytest.raises(ExportError, match=r"'1\.1' \(GELU\)"):
        trace(model, (1, 8, 8))
    flat_missing = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Linear(6, 2))
    with pytest.raises(ExportError, match=r"'1' \(Linear\).*Flatten"):
        trace(flat_missing, (1, 8, 8))
    wrong_size = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Flatten(), nn.Linear(36, 2))
    with pytest.raises(ExportError, match=r"'2' \(Linear\).*does not match"):
        trace(wrong_size, (1, 8, 8))
    with pytest.raises(ValueError, match="no samples"):
        quantize(nn.Sequential(nn.Flatten(), nn.Linear(4, 2)), np.zeros((0, 4), np.float32))


def test_nhwc_reorders_channels_last():
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    assert nhwc(x).shape == (2, 4, 5, 3)
    assert nhwc(x)[1, 2, 3, 1] == x[1, 1, 2, 3]


def test_cli_round_trip(trained, digits, tmp_path, capsys):
    _model, run_dir = trained
    _xt, xv, _yv = digits
    factory = tmp_path / "digits_model.py"
    factory.write_text("import sys\nsys.path.insert(0, %r)\nfrom train_digits import build\n\n"
                       "def cnn():\n    return build('cnn')\n" % str(SCRIPTS))
    out = tmp_path / "cli.bst"
    code = burn_main(["export", str(run_dir), "--model", str(factory) + ":cnn", "-o", str(out),
                      "--calibration", "digits", "--samples", "128"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "wrote" in printed.out
    runtime = burn.load(str(out))
    assert runtime.self_test() == 3
    meta = runtime.info()["metadata"]
    payload = ckpt.read(str(run_dir / "best.ckpt"))
    row = next(r for r in payload["history"] if r["epoch"] == payload["epoch"])
    assert meta["float_accuracy"] == pytest.approx(row["valid_accuracy"])
    assert meta["name"] == "cnn" and runtime.info()["labels"][9] == "9"
    # the same export through the Python API gives the same int8 outputs
    model, _payload, _path = load_trained(str(run_dir), str(factory) + ":cnn")
    xt = random_split(load_digits(), [0.8, 0.2])[0].batch(np.arange(128))[0]
    api = quantize(model, xt, tests=0)
    np.testing.assert_array_equal(_outputs(runtime, api, xv[:20]),
                                  _outputs(burn.load(encode_bst(api)), api, xv[:20]))
    # float export, and the errors
    fout = tmp_path / "cli_f32.bst"
    assert burn_main(["export", str(run_dir / "best.ckpt"), "--model", str(factory) + ":cnn",
                      "-o", str(fout), "--float", "--input-shape", "1,8,8"]) == 0
    assert burn.load(str(fout)).info()["inputs"][0]["dtype"] == "float32"
    npy = tmp_path / "calib.npy"
    np.save(npy, xt[:64])
    pout = tmp_path / "cli_p.bst"
    assert burn_main(["export", str(run_dir), "--model", str(factory) + ":cnn", "-o", str(pout),
                      "--calibration", str(npy), "--percentile", "99.9", "--labels",
                      "zero,one,two,three,four,five,six,seven,eight,nine"]) == 0
    info = burn.load(str(pout)).info()
    assert info["metadata"]["calibration"] == "percentile 99.9"
    assert info["metadata"]["calibration_samples"] == 64 and info["labels"][2] == "two"
    capsys.readouterr()
    assert burn_main(["export", str(tmp_path / "nowhere"), "--model", str(factory) + ":cnn",
                      "-o", str(tmp_path / "x.bst"), "--calibration", "digits"]) == 1
    assert "no such checkpoint file or run folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # a usage error, found while parsing
        burn_main(["export", str(run_dir), "--model", str(factory) + ":cnn",
                   "-o", str(tmp_path / "x.bst")])
    assert stop.value.code == 2
    assert "burn export: error: an int8 export needs --calibration" in capsys.readouterr().err
    assert burn_main(["export", str(run_dir), "--model", str(factory) + ":mlp",
                      "-o", str(tmp_path / "x.bst"), "--calibration", "digits"]) == 1
    assert "has no function mlp" in capsys.readouterr().err
    assert not (tmp_path / "x.bst").exists()


def test_conv_transpose_exports_float_and_int8():
    burn.seed(4)
    model = nn.Sequential(nn.Conv2d(2, 6, 3, stride=2, padding=1), nn.ReLU(),
                          nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1),
                          nn.BatchNorm2d(4), nn.ReLU6(),
                          nn.ConvTranspose2d(4, 3, (2, 3), stride=(1, 2))).eval()
    x = np.random.default_rng(5).standard_normal((32, 2, 8, 6)).astype(np.float32)
    fgraph, _ = _exports_float_and_int8(model, x, 1e-5, 0.05)
    assert [op.op for op in fgraph.ops] == ["conv2d", "transpose_conv2d", "transpose_conv2d"]
    assert [op.params["act"] for op in fgraph.ops] == [1, 3, 0]  # BatchNorm folded in


def test_grouped_and_dilated_conv_transpose_exports_float_and_int8():
    burn.seed(8)
    model = nn.Sequential(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2,
                                             dilation=(2, 1)), nn.ReLU(),
                          nn.ConvTranspose2d(6, 6, 2, groups=6, dilation=2)).eval()
    x = np.random.default_rng(9).standard_normal((32, 4, 5, 4)).astype(np.float32)
    fgraph, _ = _exports_float_and_int8(model, x, 1e-5, 0.05)
    assert [op.op for op in fgraph.ops] == ["transpose_conv2d", "transpose_conv2d"]
    assert fgraph.ops[0].consts["w"].shape == (6, 5, 3, 4)  # [oc, kh', kw', ic], dense


def test_leaky_relu_exports_as_the_unary_op():
    burn.seed(6)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.LeakyReLU(0.2), nn.Flatten(),
                          nn.Linear(64, 5)).eval()
    x = np.random.default_rng(7).standard_normal((32, 1, 4, 4)).astype(np.float32)
    fgraph, qgraph = _exports_float_and_int8(model, x, 1e-6, 0.02)
    assert [op.op for op in fgraph.ops] == ["conv2d", "unary", "fully_connected"]
    assert "table" in qgraph.ops[2].consts  # int8: TFLM's LEAKY_RELU results


class _Differences(nn.Module):
    """Two subtractions of computed values: equal shapes, and a per-channel value minus a
    feature map (the runtime repeats its second operand, so that one is swapped)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(1, 4, 3, padding=1), nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(64, 3)

    def forward(self, x):
        a, b = self.a(x), self.b(x)
        d = (a - b).relu()
        return self.fc((d.mean((2, 3), keepdim=True) - d).flatten(1))


def test_sub_of_computed_values_exports():
    burn.seed(8)
    model = _Differences().eval()
    x = np.random.default_rng(9).standard_normal((32, 1, 4, 4)).astype(np.float32)
    fgraph, _ = _exports_float_and_int8(model, x, 1e-6, 0.03)
    subs = [op for op in fgraph.ops if op.op == "sub"]
    assert [(op.params["act"], op.params["swap"]) for op in subs] == [(1, 0), (0, 1)]


class _Transposed(nn.Module):
    """Permutations of feature maps: H and W swapped between two convolutions, and the
    NCHW -> NHWC permutation before a flatten."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(2, 4, 3, padding=1), nn.Conv2d(4, 3, 1)
        self.fc = nn.Linear(3 * 5 * 6, 3)

    def forward(self, x):
        y = self.b(self.a(x).relu().permute(0, 1, 3, 2))
        return self.fc(y.permute(0, 2, 3, 1).flatten(1))


def test_permute_exports_as_strided_copies():
    burn.seed(10)
    model = _Transposed().eval()
    x = np.random.default_rng(11).standard_normal((32, 2, 6, 5)).astype(np.float32)
    fgraph, _ = _exports_float_and_int8(model, x, 1e-6, 0.03)
    assert [op.op for op in fgraph.ops] == ["conv2d", "strided", "conv2d", "strided",
                                            "fully_connected"]


class _Sliced(nn.Module):
    """A slice of a feature map with steps (one of them negative) before a flatten."""

    def __init__(self):
        super().__init__()
        self.a, self.fc = nn.Conv2d(2, 6, 3, padding=1), nn.Linear(2 * 2 * 3, 3)

    def forward(self, x):
        return self.fc(self.a(x).relu()[:, 1:5:2, ::-2, 1:4].flatten(1))


def test_slice_exports_as_a_strided_copy():
    burn.seed(12)
    model = _Sliced().eval()
    x = np.random.default_rng(13).standard_normal((32, 2, 4, 5)).astype(np.float32)
    fgraph, _ = _exports_float_and_int8(model, x, 1e-6)
    assert [op.op for op in fgraph.ops] == ["conv2d", "strided", "fully_connected"]
    with pytest.raises(ExportError, match="only slices of"):
        trace(nn.Sequential(nn.Flatten(), nn.Linear(4, 4), _Take()), (4,))


class _Take(nn.Module):
    def forward(self, x):
        return x[:, 1:3]

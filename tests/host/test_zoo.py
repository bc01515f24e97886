"""The model zoo and export of custom forwards: ResNet-8 (reduced width) and DS-CNN train a
few steps on synthetic data, export to int8, and the `.bst` gives identical outputs on the
pure and flex runtimes; every zoo model at full size quantizes into the op kinds and shapes
of its reference (the MLPerf Tiny ResNet-8 and KWS files, the MobileNetV1-0.25 that
tests/mobilenet_model.py builds, the published autoencoder layer list); a custom forward
with residual adds, gates, concatenation, means and padding exports exactly; a construct
the runtime lacks is refused naming the module and the op."""

import itertools

import numpy as np
import pytest
from mobilenet_model import mobilenet_v1 as mobilenet_tflite
from reference_models import model_path

import burn
import burn.nn.functional as F
from burn import nn
from burn.graph.fixedpoint import ACT_NONE, ACT_RELU
from burn.host import zoo
from burn.host.autodiff import autodiff_device
from burn.host.bst_runtime import flex_available, load
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import ExportError, graph_input, quantize, to_float_graph, trace
from burn.host.importers.tflite import import_tflite
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam

_WINDOW = ("stride_h", "stride_w", "pad_top", "pad_left")


def _signature(graph):
    """(op, input shapes, output shapes, weight shape, window) of every compute op."""
    rows = []
    for op in graph.ops:
        if op.op in ("quantize", "dequantize"):
            continue
        w = op.consts.get("w")
        rows.append((op.op, [graph.tensors[i].shape for i in op.inputs],
                     [graph.tensors[i].shape for i in op.outputs],
                     None if w is None else w.shape,
                     [op.params.get(k) for k in _WINDOW] if w is not None else None))
    return rows


def _quantized(name, **kwargs):
    burn.seed(0)
    model = zoo.BUILDERS[name](**kwargs).to(burn.device("numpy"))
    x = np.random.default_rng(0).standard_normal((4,) + zoo.INPUT_SHAPES[name])
    return quantize(model, x.astype(np.float32), tests=0)


def _reference(data):
    return import_tflite(data, tests=0)


def test_resnet8_has_the_reference_ops_and_shapes():
    ref = _reference(model_path("pretrainedResnet_quant.tflite").read_bytes())
    assert _signature(_quantized("resnet8", softmax=True)) == _signature(ref)


def test_ds_cnn_has_the_reference_ops_and_shapes():
    ref = _reference(model_path("kws_ref_model.tflite").read_bytes())
    assert _signature(_quantized("ds_cnn", softmax=True)) == _signature(ref)


def test_mobilenet_v1_has_the_reference_ops_and_shapes():
    ours = _signature(_quantized("mobilenet_v1", softmax=True))
    ref = _signature(_reference(mobilenet_tflite(seed=0)))
    # a 3x3 average pool over a 3x3 map: its stride (3 here, 1 there) changes nothing
    assert [r[:4] for r in ours] == [r[:4] for r in ref]
    assert len(ours) == 30 and ours[-3][0] == "avg_pool2d"


def test_autoencoder_has_the_published_layers():
    graph = _quantized("autoencoder")
    sizes = zoo.AUTOENCODER_LAYERS
    layers = [("fully_connected", (1, a), (1, b), (b, a)) for a, b in itertools.pairwise(sizes)]
    assert [(op.op, graph.tensors[op.inputs[0]].shape, graph.tensors[op.outputs[0]].shape,
             op.consts["w"].shape) for op in graph.ops] == layers
    # BatchNorm folded and ReLU fused into every hidden layer, none after the last
    model = zoo.autoencoder().to(burn.device("numpy"))
    acts = [op.params["act"] for op in to_float_graph(model, sample_shape=(640,)).ops]
    assert acts == [ACT_RELU] * 9 + [ACT_NONE]


def _train(model, shape, classes, steps=3, batch=8):
    """A few Adam steps on seeded random inputs and labels; returns the eval-mode model on
    the numpy device."""
    dev = autodiff_device("numpy")
    model = model.to(dev)
    rng = np.random.default_rng(1)
    opt = Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        x = to_tensor(rng.standard_normal((batch,) + shape).astype(np.float32), dev)
        y = burn.tensor(rng.integers(0, classes, batch).tolist()).to(dev)
        opt.zero_grad()
        loss = cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert all(np.isfinite(losses))
    return model.to(burn.device("numpy")).eval()


def _runtime_outputs(graph, samples, runtime):
    model = load(encode_bst(graph), runtime)
    return np.stack([to_numpy(model(graph_input(graph, s))).reshape(-1) for s in samples])


@pytest.mark.parametrize("name, kwargs, classes", [
    ("resnet8", {"width": 0.25}, 10),
    ("ds_cnn", {"width": 0.25}, 12),
])
def test_trained_zoo_model_runs_identically_on_pure_and_flex(name, kwargs, classes):
    if not flex_available():
        pytest.skip("burn._flex is not built (pip install -e . builds it)")
    shape = zoo.INPUT_SHAPES[name]
    burn.seed(0)
    model = _train(zoo.BUILDERS[name](**kwargs), shape, classes)
    x = np.random.default_rng(2).standard_normal((16,) + shape).astype(np.float32)
    graph = quantize(model, x, tests=2)
    samples = x[:3]
    pure = _runtime_outputs(graph, samples, "pure")
    flex = _runtime_outputs(graph, samples, "flex")
    assert pure.dtype == np.int8 and np.array_equal(pure, flex)
    out = graph.tensors[graph.outputs[0][0]]
    ref = to_numpy(model(to_tensor(samples, burn.device("numpy"))))
    got = (pure.astype(np.float64) - out.zero_point) * out.scale
    assert np.abs(got - ref).max() <= 0.1 * np.abs(ref).max() + 3 * out.scale


class _Gated(nn.Module):
    """Residual add, a squeeze-and-excitation gate (mean, 1x1 convs, sigmoid, product), a
    hard-swish, a side branch concatenated, TF-style padding, a functional pool, a flatten
    by reshape."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 8, 3, stride=2)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.squeeze = nn.Conv2d(8, 4, 1)
        self.excite = nn.Conv2d(4, 8, 1)
        self.side = nn.Conv2d(2, 4, 3, stride=2)
        self.head = nn.Sequential(nn.Linear(12 * 4 * 4, 16), nn.ReLU())
        self.out = nn.Linear(16, 5)

    def forward(self, x):
        a = self.stem(F.pad(x, (0, 1, 0, 1)))
        a = a * F.relu6(a + 3) / 6
        y = F.relu(self.bn(self.conv(a)))
        gate = self.excite(F.relu(self.squeeze(y.mean((2, 3), keepdim=True)))).sigmoid()
        y = F.relu(y * gate + a)
        z = F.max_pool2d(burn.cat([y, self.side(F.pad(x, (0, 1, 0, 1)))], 1), 2)
        return self.out(self.head(z.reshape((z.shape[0], -1))))


def test_custom_forward_exports_float_exactly_and_int8_identically():
    burn.seed(3)
    model = _Gated().to(burn.device("numpy")).eval()
    x = np.random.default_rng(3).standard_normal((8, 2, 16, 16)).astype(np.float32)
    ref = to_numpy(model(to_tensor(x, burn.device("numpy"))))
    graph = to_float_graph(model, x, tests=0)
    kinds = [op.op for op in graph.ops]
    assert kinds.count("add") == 1 and kinds.count("mul") == 2 and "concat" in kinds
    assert "mean" in kinds and "logistic" in kinds and "max_pool2d" in kinds
    assert "pad" not in kinds
    assert "copy" not in kinds and len([k for k in kinds if k == "fully_connected"]) == 2
    runtimes = ("pure", "flex") if flex_available() else ("pure",)
    for runtime in runtimes:
        np.testing.assert_allclose(_runtime_outputs(graph, x[:2], runtime), ref[:2],
                                   rtol=1e-4, atol=1e-5)
    q = quantize(model, x, tests=0)
    outs = [_runtime_outputs(q, x[:4], r) for r in runtimes]
    assert all(np.array_equal(outs[0], o) for o in outs)
    out = q.tensors[q.outputs[0][0]]
    got = (outs[0].astype(np.float64) - out.zero_point) * out.scale
    assert np.abs(got - ref[:4]).max() <= 0.05 * np.abs(ref).max() + 3 * out.scale


class _Unsupported(nn.Module):
    def __init__(self, op):
        super().__init__()
        self.op = op
        self.conv = nn.Conv2d(1, 2, 3)

    def forward(self, x):
        y = self.conv(x)
        return self.op(y)


class _Outer(nn.Module):
    def __init__(self, op):
        super().__init__()
        self.block = _Unsupported(op)

    def forward(self, x):
        return self.block(x)


@pytest.mark.parametrize("op, message", [
    (lambda y: y.erf(), r"'block' \(_Unsupported\): op erf is not supported"),
    (lambda y: y / y.relu(), r"'block' \(_Unsupported\): op div of two computed values"),
    (lambda y: y.permute((1, 0, 2, 3)), r"'block' \(_Unsupported\): only permutations"),
    (lambda y: y.sum((2, 3)),
     r"'block' \(_Unsupported\): .*sum.* only .*mean"),
    (lambda y: y.reshape((y.shape[0], 2, 1, 1, -1)),
     r"'block' \(_Unsupported\): values of rank 5"),
    (lambda y: y.reshape((y.shape[0], 4, -1)),  # [N, C, L] values are [N, C, 1, L] ones
     r"'block' \(_Unsupported\): a value of shape \(2, 4, 8\) whose elements are not "),
    (lambda y: y.clamp(-2, 2), r"'block' \(_Unsupported\): clamp to \[-2.0, 2.0\]"),
])
def test_unsupported_constructs_name_the_module_and_the_op(op, message):
    with pytest.raises(ExportError, match=message):
        trace(_Outer(op), (1, 6, 6))


def test_layer_norm_is_refused_inside_its_own_module():
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.LayerNorm(32))
    with pytest.raises(ExportError, match=r"'2' \(LayerNorm\): "):
        trace(model, (1, 6, 6))


class _Scaled(nn.Module):
    """A learned scalar or per-channel parameter used directly in a forward, and a
    per-feature constant subtracted from a flattened map before a Linear."""

    def __init__(self, per_channel):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3)
        self.alpha = nn.Parameter(burn.tensor([[[[0.5]]]] if not per_channel else
                                              [[[[1.0]], [[2.0]], [[3.0]]]]))
        self.mean = nn.Parameter(burn.tensor([[0.1 * k for k in range(48)]]))
        self.fc = nn.Linear(48, 2)
        self.div = nn.Parameter(burn.tensor([[2.0, 4.0]] if per_channel else [[2.0]]))

    def forward(self, x):
        y = (self.conv(x) * self.alpha).relu()
        return self.fc(y.flatten(1) - self.mean) / self.div


@pytest.mark.parametrize("per_channel", [False, True])
def test_scalar_and_per_channel_constants_fold_into_the_ops(per_channel):
    burn.seed(4)
    model = _Scaled(per_channel).to(burn.device("numpy"))
    x = np.random.default_rng(4).standard_normal((2, 1, 6, 6)).astype(np.float32)
    graph = to_float_graph(model, x, tests=0)
    # conv * alpha and relu: one conv; - mean: a diagonal fully connected (a flattened map
    # has no op to fold into); fc / alpha: folded into the fc
    assert [op.op for op in graph.ops] == ["conv2d", "fully_connected", "fully_connected"]
    assert graph.ops[0].params["act"] == ACT_RELU
    ref = to_numpy(model(to_tensor(x, burn.device("numpy"))))
    np.testing.assert_allclose(_runtime_outputs(graph, x, "pure"), ref, rtol=1e-5, atol=1e-6)


class _FullConstant(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3)
        self.bias = nn.Parameter(burn.tensor(np.arange(48.0).reshape(1, 3, 4, 4).tolist()))

    def forward(self, x):
        return self.conv(x) + self.bias


def test_a_constant_that_varies_over_positions_is_refused():
    with pytest.raises(ExportError, match=r"'<model>' \(_FullConstant\): op add with a "
                                          r"constant tensor operand of shape \(1, 3, 4, 4\)"):
        trace(_FullConstant(), (1, 6, 6))


class _TwoBranches(nn.Module):
    """Two flattened feature maps concatenated before a Linear, and a channel mean."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(1, 3, 3)
        self.b = nn.Conv2d(1, 2, 3, stride=2)
        self.fc = nn.Linear(3 * 4 * 4 + 2 * 2 * 2 + 16, 4)

    def forward(self, x):
        a = self.a(x)
        flat = [a.flatten(1), self.b(x).flatten(1), a.mean(1).flatten(1)]
        return self.fc(burn.cat(flat, 1))


def test_concatenated_flattened_maps_keep_their_element_order():
    burn.seed(5)
    model = _TwoBranches().to(burn.device("numpy"))
    x = np.random.default_rng(5).standard_normal((3, 1, 6, 6)).astype(np.float32)
    graph = to_float_graph(model, x, tests=0)
    assert [op.op for op in graph.ops] == ["conv2d", "conv2d", "mean", "concat",
                                           "fully_connected"]
    ref = to_numpy(model(to_tensor(x, burn.device("numpy"))))
    np.testing.assert_allclose(_runtime_outputs(graph, x, "pure"), ref, rtol=1e-5, atol=1e-5)
    q = quantize(model, x, tests=0)
    got = _runtime_outputs(q, x, "pure")
    out = q.tensors[q.outputs[0][0]]
    assert np.abs((got.astype(np.float64) - out.zero_point) * out.scale - ref).max() <= \
        4 * out.scale
    if flex_available():
        assert np.array_equal(_runtime_outputs(q, x, "flex"), got)


class _Moody(nn.Module):
    """A forward that takes another path on every call."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        y = self.conv(x)
        return y.relu() if self.calls % 2 else y.relu() + y


def test_a_forward_that_changes_between_calls_is_refused():
    model = _Moody().to(burn.device("numpy"))
    x = np.zeros((2, 1, 6, 6), np.float32)
    with pytest.raises(ExportError, match="ran 4 ops on calibration batch 1 but 3 when traced"):
        quantize(model, x, tests=0)


class _TwoShapes(nn.Module):
    """One Linear output read as features by a softmax and as a 1x1 map by a conv."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.conv = nn.Conv2d(6, 2, 1)

    def forward(self, x):
        y = self.fc(x)
        z = self.conv(y.reshape((y.shape[0], 6, 1, 1))).reshape((y.shape[0], 2))
        return burn.cat([y.softmax(1), z], 1)


def test_a_value_read_in_two_shapes_is_copied_once():
    burn.seed(6)
    model = _TwoShapes().to(burn.device("numpy"))
    x = np.random.default_rng(6).standard_normal((3, 4)).astype(np.float32)
    graph = to_float_graph(model, x, tests=0)
    # the conv reads the Linear's output as [1, 1, 1, 6]; the softmax gets a [1, 6] copy
    assert [op.op for op in graph.ops] == ["fully_connected", "conv2d", "copy", "softmax",
                                           "concat"]
    ref = to_numpy(model(to_tensor(x, burn.device("numpy"))))
    np.testing.assert_allclose(_runtime_outputs(graph, x, "pure"), ref, rtol=1e-5, atol=1e-6)

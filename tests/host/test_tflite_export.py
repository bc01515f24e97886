""".tflite export: TFLM runs the written file with the `.bst` runtime's outputs, bit for bit
(the trained digits CNN; a model of every window op, explicit padding and the fixed-scale
activations; add, mul and concat graphs); the file imports back into the same `.bst`;
unmappable graphs are refused with the op named; `burn export --format tflite`."""

import sys
from pathlib import Path

import numpy as np
import pytest

import burn
import burn.nn.functional as F
from burn import nn
from burn.host import zoo
from burn.host.autodiff import autodiff_device
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.cli import main as burn_main
from burn.host.convert import to_tensor
from burn.host.data import DataLoader, load_digits, random_split
from burn.host.export import ExportError, graph_input, quantize, to_float_graph
from burn.host.export.tflite import tflite_bytes, write_tflite
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflite.selftest import random_inputs
from burn.host.importers.tflite_read import read_tflite
from burn.host.train.learner import Learner
from burn.host.train.optim import Adam

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent / "scripts"))
import tflite_models
from reference_models import model_path
from tflite_builder import ModelBuilder, run_tflm
from train_digits import build

SAMPLES = 30


def tflm_outputs(data, input_sets):
    """TFLM's outputs (one interpreter, in this process) for each input set."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(data)
    outs = []
    for ins in input_sets:
        for i, x in enumerate(ins):
            interp.set_input(x, i)
        interp.invoke()
        outs.append(np.array(interp.get_output(0)).reshape(-1))
    return np.stack(outs)


def bst_outputs(graph, input_sets):
    model = burn.load(encode_bst(graph))
    return np.stack([np.array(model.run(ins[0] if len(ins) == 1 else ins)).reshape(-1)
                     for ins in input_sets])


@pytest.fixture(scope="module")
def digits():
    train, valid = random_split(load_digits(), [0.8, 0.2])
    return train, valid.batch(np.arange(SAMPLES))[0]


@pytest.fixture(scope="module")
def trained(digits, tmp_path_factory):
    """The digits CNN trained for one epoch with the Learner; (model, run folder)."""
    train, _xv = digits
    run_dir = tmp_path_factory.mktemp("run")
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = build("cnn").to(dev)
    Learner(model, Adam(model.parameters(), lr=3e-3), run_dir=str(run_dir),
            dashboard="plain").fit(DataLoader(train, 64, shuffle=True, device=dev), None, 1)
    return model.eval(), run_dir


@pytest.fixture(scope="module")
def digits_int8(trained, digits):
    """(int8 graph, its .tflite bytes) of the trained digits CNN."""
    train, _xv = digits
    graph = quantize(trained[0], train.batch(np.arange(256))[0], tests=0)
    return graph, tflite_bytes(graph)


def test_digits_cnn_runs_bit_exact_in_tflm(digits_int8, digits):
    graph, data = digits_int8
    sets = [[graph_input(graph, x)] for x in digits[1]]
    ours = bst_outputs(graph, sets)
    np.testing.assert_array_equal(tflm_outputs(data, sets), ours)
    assert len({row.tobytes() for row in ours}) > SAMPLES // 2  # the inputs matter


def test_digits_cnn_imports_back_to_the_same_bst(digits_int8):
    graph, data = digits_int8
    back = import_tflite(data, tests=0)
    assert [op.op for op in back.ops] == [op.op for op in graph.ops]
    # the same file, but for what a .tflite does not carry (the metadata) and the order
    # of each op's parameters in the JSON header
    assert [t.name for t in back.tensors] == [t.name for t in graph.tensors]
    back.metadata = graph.metadata
    assert encode_bst(_sorted_params(back)) == encode_bst(_sorted_params(graph))


def _sorted_params(graph):
    for op in graph.ops:
        op.params = dict(sorted(op.params.items()))
    return graph


@pytest.fixture(scope="module")
def wide_model(digits):
    """Every window op: a strided conv whose padding is not TFLite's (an explicit PAD),
    depthwise with a multiplier, dilation, a grouped conv, max pooling with padding that is
    not TFLite's either (a PADV2 of the lowest value), then tanh, sigmoid, a global mean
    and softmax; trained two epochs so that the outputs differ from input to input."""
    dev = autodiff_device("numpy")
    burn.seed(1)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU6(),
        nn.Conv2d(8, 16, 3, padding="same", groups=8), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.Tanh(),
        nn.Conv2d(16, 16, 1, groups=4), nn.MaxPool2d(2, stride=2, padding=1),
        nn.AvgPool2d(2, stride=1), nn.Sigmoid(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(16, 10), nn.Softmax(dim=1)).to(dev)
    Learner(model, Adam(model.parameters(), lr=1e-2), dashboard="plain").fit(
        DataLoader(digits[0], 64, shuffle=True, device=dev), None, 2)
    return model.eval()


@pytest.mark.parametrize("io", ["int8", "float32"])
def test_every_window_op_bit_exact_and_round_trip(wide_model, digits, io):
    train, xv = digits
    graph = quantize(wide_model, train.batch(np.arange(128))[0], io=io, tests=0)
    data = tflite_bytes(graph)
    sets = [[graph_input(graph, x) if io == "int8" else
             np.ascontiguousarray(x.transpose(1, 2, 0)[None])] for x in xv[:24]]
    ours = bst_outputs(graph, sets)
    np.testing.assert_array_equal(tflm_outputs(data, sets), ours)
    assert len({row.tobytes() for row in ours}) > 16
    assert [n.name for n in read_tflite(data).ops if n.name.startswith("PAD")] == \
        ["PAD", "PADV2"]  # stride 2 and padding 1: not SAME
    back = import_tflite(data, tests=0)
    assert [op.op for op in back.ops].count("pad") == 2
    np.testing.assert_array_equal(bst_outputs(back, sets), ours)


def test_float_model_agrees_with_tflm(wide_model, digits):
    graph = to_float_graph(wide_model, digits[1][:1], tests=0)
    data = tflite_bytes(graph)
    assert "PADV2" in [n.name for n in read_tflite(data).ops]
    sets = [[graph_input(graph, x)] for x in digits[1][:10]]
    np.testing.assert_allclose(tflm_outputs(data, sets), bst_outputs(graph, sets),
                               rtol=1e-5, atol=1e-5)
    back = import_tflite(data, tests=0)
    np.testing.assert_array_equal(bst_outputs(back, sets), bst_outputs(graph, sets))


@pytest.mark.parametrize("name, samples", [("resnet8", 3), ("ds_cnn", 4)])
def test_zoo_models_run_bit_exact_in_tflm(name, samples):
    """ResNet-8 (its residual adds) and DS-CNN at a quarter width, their BatchNorm
    statistics taken from synthetic inputs of varied scale."""
    burn.seed(0)
    dev = burn.device("numpy")
    model = zoo.BUILDERS[name](width=0.25).to(dev)
    shape = zoo.INPUT_SHAPES[name]
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((16 + samples,) + shape) *
         rng.uniform(0.1, 2, (16 + samples, 1, 1, 1))).astype(np.float32)
    model.train()
    for _ in range(8):
        model(to_tensor(x[:16], dev))
    graph = quantize(model.eval(), x[:16], tests=0)
    data = tflite_bytes(graph)
    sets = [[graph_input(graph, s)] for s in x[16:]]
    ours = bst_outputs(graph, sets)
    np.testing.assert_array_equal(tflm_outputs(data, sets), ours)
    assert len({row.tobytes() for row in ours}) == samples
    back = import_tflite(data, tests=0)
    assert [op.op for op in back.ops] == [op.op for op in graph.ops]
    assert ("add" in [op.op for op in graph.ops]) == (name == "resnet8")


class _Custom(nn.Module):
    """A custom forward: a residual add, a squeeze-and-excitation gate (a channel mean,
    1x1 convolutions, a sigmoid and a broadcast product), a hard-swish, a mean over the
    channels and flattened maps concatenated before a Linear."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 8, 3, padding=1)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.squeeze = nn.Conv2d(8, 4, 1)
        self.excite = nn.Conv2d(4, 8, 1)
        self.side = nn.Conv2d(1, 2, 3, stride=2)
        self.fc = nn.Linear(8 * 64 + 2 * 9 + 64, 10)

    def forward(self, x):
        a = self.stem(x)
        a = a * F.relu6(a + 3) / 6
        y = F.relu(self.conv(a))
        gate = self.excite(F.relu(self.squeeze(y.mean((2, 3), keepdim=True)))).sigmoid()
        y = F.relu(y * gate + a)
        flat = [y.flatten(1), self.side(x).flatten(1), y.mean(1).flatten(1)]
        return self.fc(burn.cat(flat, 1))


def test_a_custom_forward_runs_bit_exact_in_tflm(digits):
    train, xv = digits
    burn.seed(6)
    model = _Custom().to(burn.device("numpy")).eval()
    graph = quantize(model, train.batch(np.arange(64))[0], tests=0)
    kinds = [op.op for op in graph.ops]
    assert {"add", "mul", "concat", "mean", "logistic"} <= set(kinds)
    data = tflite_bytes(graph)
    sets = [[graph_input(graph, x)] for x in xv[:6]]
    ours = bst_outputs(graph, sets)
    np.testing.assert_array_equal(tflm_outputs(data, sets), ours)
    assert len({row.tobytes() for row in ours}) == 6
    back = import_tflite(data, tests=0)
    assert [op.op for op in back.ops] == kinds
    np.testing.assert_array_equal(bst_outputs(back, sets), ours)


def _structure(data):
    """(op, options, input shapes, output shape, scales per input) of every op of a file."""
    tf = read_tflite(data)
    return [(n.name, dict(n.options or {}), [tf.tensors[t].shape for t in n.inputs],
             tf.tensors[n.outputs[0]].shape, [len(tf.tensors[t].scales) for t in n.inputs])
            for n in tf.ops]


@pytest.mark.parametrize("name, reference", [("resnet8", "pretrainedResnet_quant.tflite"),
                                             ("ds_cnn", "kws_ref_model.tflite")])
def test_zoo_files_have_the_structure_of_the_references(name, reference):
    """Op for op the MLPerf Tiny file's builtins, options (padding, strides, fused
    activations) and shapes; only the dense layer's weights are per channel here."""
    burn.seed(0)
    model = zoo.BUILDERS[name](softmax=True).to(burn.device("numpy")).eval()
    x = np.random.default_rng(0).standard_normal((4,) + zoo.INPUT_SHAPES[name])
    ours = _structure(tflite_bytes(quantize(model, x.astype(np.float32), tests=0)))
    theirs = _structure(model_path(reference).read_bytes())
    assert ours[-2][0] == theirs[-2][0] == "FULLY_CONNECTED"
    classes = ours[-2][3][1]
    assert ours[-2][4] == [1, classes, classes]
    theirs[-2] = theirs[-2][:4] + (ours[-2][4],)
    assert ours == theirs


def concat_model():
    """Two inputs concatenated on channels, then reshaped and added to a third input."""
    mb = ModelBuilder()
    a = mb.tensor("a", (1, 3, 3, 2), "int8", scale=0.1, zero_point=3)
    b = mb.tensor("b", (1, 3, 3, 4), "int8", scale=0.1, zero_point=3)
    c = mb.tensor("c", (1, 3, 3, 6), "int8", scale=0.1, zero_point=3)
    mb.op("CONCATENATION", [a, b], [c], "ConcatenationOptions", Axis=3)
    d = mb.tensor("d", (1, 6, 3, 3), "int8", scale=0.1, zero_point=3)
    mb.op("RESHAPE", [c, mb.tensor("shape", (4,), "int32", data=[1, 6, 3, 3])], [d])
    p = mb.tensor("p", (1, 8, 5, 3), "int8", scale=0.1, zero_point=3)
    pads = mb.tensor("pads", (4, 2), "int32", data=[[0, 0], [1, 1], [1, 1], [0, 0]])
    mb.op("PAD", [d, pads], [p])
    m = mb.tensor("m", (1, 4, 2, 3), "int8", scale=0.1, zero_point=3)
    mb.op("MAX_POOL_2D", [p], [m], "Pool2DOptions", Padding=1, StrideH=2, StrideW=2,
          FilterHeight=2, FilterWidth=2)
    return mb.finish([a, b], [m])


@pytest.mark.parametrize("name", ["small_cnn", "two_inputs", "concat"])
def test_graph_ops_beyond_the_exporter(name):
    """add, mul, concat, pad and reshape copies: a TFLite model imported, written again,
    runs bit-exact in TFLM and imports into the same .bst."""
    data = concat_model() if name == "concat" else getattr(tflite_models, name)()
    graph = import_tflite(data, tests=0)
    again = tflite_bytes(graph)
    sets = random_inputs(graph, 20)
    ours = bst_outputs(graph, sets)
    np.testing.assert_array_equal(tflm_outputs(again, sets), ours)
    np.testing.assert_array_equal(tflm_outputs(data, sets), ours)
    back = import_tflite(again, tests=0)
    back.metadata = graph.metadata
    assert encode_bst(back) == encode_bst(graph)


def _conv_graph(pad_top=1, mult=None):
    """A one-conv int8 graph (3x3, stride 2, 5x5 input) with the given padding/multiplier."""
    w = np.ones((2, 3, 3, 1), np.int8)
    tensors = [GraphTensor("x", (1, 5, 5, 1), "int8", 0.5, 0),
               GraphTensor("y", (1, 3, 3, 2), "int8", 0.25, -1)]
    consts = {"w": w, "bias": np.zeros(2, np.int32),
              "mult": np.array(mult or [1 << 30] * 2, np.int32),
              "shift": np.array([0, 0], np.int32)}
    params = {"groups": 1, "stride_h": 2, "stride_w": 2, "dil_h": 1, "dil_w": 1,
              "pad_top": pad_top, "pad_left": pad_top, "in_zp": 0, "out_zp": -1,
              "act_min": -128, "act_max": 127}
    op = GraphOp("conv2d", [0], [1], consts, params)
    return Graph(tensors, [op], [(0, (1, 5, 5, 1))], [(1, (1, 3, 3, 2))])


def test_unmappable_graphs_are_refused_with_the_op_named(tmp_path):
    graph = _conv_graph()
    assert len(tflite_bytes(graph)) > 0
    graph.ops.append(GraphOp("hard_swish", [1], [1]))
    graph.ops.append(GraphOp("conv2d", [0], [1], graph.ops[0].consts,
                             dict(graph.ops[0].params, act_min=-100)))
    with pytest.raises(ExportError) as e:
        write_tflite(graph, str(tmp_path / "x.tflite"))
    assert "op 1 (hard_swish): no TFLite mapping" in str(e.value)
    assert "op 2 (conv2d): clamp [-100, 127] is none of TFLite's fused" in str(e.value)
    assert not list(tmp_path.iterdir())
    with pytest.raises(ExportError, match=r"op 0 \(conv2d\): output channel 1: its multiplier"):
        tflite_bytes(_conv_graph(mult=[1 << 30, 12345]))
    # a multiplier that underflowed to (0, 0) (vanishing activations) is TFLM's too
    vanishing = _conv_graph(mult=[1 << 30, 0])
    sets = random_inputs(vanishing, 3)
    np.testing.assert_array_equal(tflm_outputs(tflite_bytes(vanishing), sets),
                                  bst_outputs(vanishing, sets))
    pool = _conv_graph()
    pool.ops[0] = GraphOp("avg_pool2d", [0], [1], params=dict(
        kh=2, kw=2, stride_h=2, stride_w=2, pad_top=1, pad_left=1, act_min=-128,
        act_max=127))
    pool.tensors[1] = GraphTensor("y", (1, 3, 3, 1), "int8", 0.5, 0)
    with pytest.raises(ExportError, match="padding 1, 1 is not TFLite's SAME or VALID"):
        tflite_bytes(pool)


def test_cli_format_tflite(trained, digits, digits_int8, tmp_path, capsys):
    _model, run_dir = trained
    factory = tmp_path / "digits_model.py"
    factory.write_text("import sys\nsys.path.insert(0, %r)\nfrom train_digits import build\n\n"
                       "def cnn():\n    return build('cnn')\n"
                       % str(Path(__file__).parent / "scripts"))
    out = tmp_path / "digits.tflite"
    args = ["export", str(run_dir), "--model", str(factory) + ":cnn", "--calibration", "digits"]
    code = burn_main(args + ["-o", str(out), "--format", "tflite"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "no self-test vectors (.tflite)" in printed.out
    graph, data = digits_int8  # the same model and calibration through the Python API
    sets = [[graph_input(graph, x)] for x in digits[1][:20]]
    np.testing.assert_array_equal(tflm_outputs(out.read_bytes(), sets),
                                  tflm_outputs(data, sets))
    with pytest.raises(SystemExit) as stop:  # a usage error, found while parsing
        burn_main(args + ["-o", str(tmp_path / "x.tflite")])
    assert stop.value.code == 2
    assert "give the file the .bst extension (or --format tflite)" in capsys.readouterr().err
    assert not (tmp_path / "x.tflite").exists()


def test_a_flattened_output_keeps_its_shape(digits):
    """A model ending in a global mean and Flatten: the graph's output is [1, C] while its
    tensor is [1, 1, 1, C]; the file reshapes it, and it imports back the same."""
    burn.seed(3)
    model = nn.Sequential(nn.Conv2d(1, 6, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten()).to(autodiff_device("numpy")).eval()
    graph = quantize(model, digits[0].batch(np.arange(32))[0], tests=0)
    data = tflite_bytes(graph)
    sets = [[graph_input(graph, x)] for x in digits[1][:8]]
    assert run_tflm(data, sets[0])[0].shape == (1, 6)
    np.testing.assert_array_equal(tflm_outputs(data, sets), bst_outputs(graph, sets))
    assert import_tflite(data, tests=0).outputs == graph.outputs


def test_a_qat_model_runs_in_tflm_as_its_eval_forward(digits):
    """Quantization-aware training, then .tflite: TFLM's int8 outputs are the QAT model's
    eval-mode forward, bit for bit."""
    from burn.host.export import prepare_qat
    from burn.host.train.losses import cross_entropy

    train, xv = digits
    x, y = train.batch(np.arange(96))
    dev = autodiff_device("numpy")
    burn.seed(2)
    qat = prepare_qat(build("cnn").to(dev), x[:32], observe_batches=1)
    opt = Adam(qat.parameters(), lr=1e-3)
    for i in range(3):
        loss = cross_entropy(qat(to_tensor(x[32 * i:32 * (i + 1)], dev)),
                             to_tensor(y[32 * i:32 * (i + 1)].astype(np.int32), dev))
        opt.zero_grad()
        loss.backward()
        opt.step()
    graph = quantize(qat, x[:32], tests=0)
    q_eval, _graph = qat.eval().int8_outputs(xv[:8])
    sets = [[graph_input(graph, s)] for s in xv[:8]]
    np.testing.assert_array_equal(tflm_outputs(tflite_bytes(graph), sets),
                                  np.asarray(q_eval).reshape(8, -1))

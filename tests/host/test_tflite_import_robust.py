"""The TFLite importer on models that used to fail (a reshape feeding a depthwise conv, two
inputs, activations beyond TFLM's default arena, TFLM's stderr), on hostile models (one
clear error naming the node), and TFLM's child process (crashes and limits)."""

import numpy as np
import pytest
from tflite_builder import ModelBuilder, run_tflm
from tflite_models import hybrid_two_inputs, reshape_depthwise, two_inputs, wide_activations

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst, write_bst
from burn.host.cli import main as burn_main
from burn.host.importers import MAX_TESTS
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflm_child import TFLMError
from burn.host.importers.tflm_child import run_tflm as run_tflm_child


def _import(data, tests=2):
    said = []
    graph = import_tflite(data, tests=tests, progress=said.append)
    return graph, burn.load(encode_bst(graph)), said


def _agrees_with_tflm(data, model, shapes, runs=4):
    rng = np.random.default_rng(11)
    for _ in range(runs):
        xs = [rng.integers(-128, 128, s, dtype=np.int8) for s in shapes]
        want = run_tflm(data, xs, arena_size=1 << 20)[0].reshape(-1).tolist()
        got = np.array(model.run(xs[0] if len(xs) == 1 else xs), np.int8).tolist()
        assert got == want


def test_reshape_into_depthwise_keeps_the_4d_shape_bit_exact():
    data = reshape_depthwise()
    graph, model, said = _import(data)
    assert [op.op for op in graph.ops] == ["copy", "conv2d"]  # one input channel
    assert not any("burn's runtime" in m for m in said)  # the tests are TFLM's
    assert model.self_test() == 2
    _agrees_with_tflm(data, model, [(1, 1960)])
    # The copy lies over the buffer it copies: no arena beyond input + output.
    assert model.arena_bytes <= 1960 + 20 * 19 * 4


def test_two_inputs_are_both_fed_bit_exact():
    data = two_inputs()
    graph, model, _said = _import(data, tests=3)
    assert all(len(ins) == 2 for ins, _outs in graph.tests)
    assert model.self_test() == 3
    _agrees_with_tflm(data, model, [(1, 4, 4, 3), (1, 4, 4, 3)])


def test_hybrid_two_inputs_fall_back_with_tflm_said_in_one_line(capfd):
    graph, model, said = _import(hybrid_two_inputs())
    assert all(len(ins) == 2 for ins, _outs in graph.tests)
    assert model.self_test() == 2
    notes = [m for m in said if "TFLM could not run this model" in m]
    assert len(notes) == 1 and "\n" not in notes[0]
    assert "TFLM said: " in notes[0] and "not supported" in notes[0]
    assert notes[0].endswith("reference tests come from burn's runtime")
    # TFLM's own lines went to the child's captured stderr, not to this process's.
    captured = capfd.readouterr()
    assert "not supported" not in captured.err + captured.out


def test_tflm_arena_is_sized_from_the_model():
    data = wide_activations()
    assert 96 * 96 * 8 > 10 * len(data)  # beyond the Python wrapper's default arena
    graph, model, said = _import(data)
    assert not any("could not run" in m for m in said)
    assert model.self_test() == 2
    for ins, outs in graph.tests:
        want = run_tflm(data, ins, arena_size=1 << 20)[0]
        assert outs[0].reshape(-1).tolist() == want.reshape(-1).tolist()
    _agrees_with_tflm(data, model, [(1, 96, 96, 8)], runs=1)


def test_tflm_out_of_memory_is_one_clear_line():
    x = [np.zeros((1, 4, 4, 3), np.int8)] * 2
    with pytest.raises(TFLMError) as err:
        run_tflm_child(two_inputs(), [x], 1, 1 << 16, memory=48 << 20)
    text = str(err.value)
    assert text.startswith("TFLM could not run this model: ") and "\n" not in text
    assert not err.value.refused


def test_tflm_past_its_time_is_killed_with_one_clear_line():
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 64, 64, 64), "float32")
    w = mb.tensor("w", (64, 5, 5, 64), "float32",
                  data=np.ones((64, 5, 5, 64), np.float32))
    y = mb.tensor("y", (1, 64, 64, 64), "float32")
    mb.op("CONV_2D", [x, w, -1], [y], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1)
    sets = [[np.ones((1, 64, 64, 64), np.float32)]] * 40  # minutes of reference conv
    with pytest.raises(TFLMError) as err:
        run_tflm_child(mb.finish([x], [y]), sets, 1, 8 << 20, timeout=2)
    text = str(err.value)
    assert text.startswith("TFLM could not run this model: ") and "\n" not in text
    assert "no answer in 2 s" in text or "killed by SIGXCPU" in text
    assert not err.value.refused


def _conv_model(stride=1, in_index=None, bias_dtype="int32", shape=(1, 6, 6, 3)):
    rng = np.random.default_rng(0)
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "int8", scale=0.05, zero_point=0)
    w = mb.tensor("w", (4, 3, 3, 3), "int8", data=rng.integers(-127, 128, (4, 3, 3, 3)),
                  scale=0.01, zero_point=0)
    b = mb.tensor("b", (4,), bias_dtype, data=np.zeros(4), scale=0.0005, zero_point=0)
    y = mb.tensor("y", (1, 6, 6, 4), "int8", scale=0.1, zero_point=0)
    mb.op("CONV_2D", [x if in_index is None else in_index, w, b], [y], "Conv2DOptions",
          Padding=0, StrideH=stride, StrideW=1)
    return mb, x, y


@pytest.mark.parametrize("case, words", [
    ("stride 0", ["node 0 (CONV_2D)", "bad strides 0, 1"]),
    ("tensor index", ["node 0 (CONV_2D)", "tensor index 99 out of range"]),
    ("float bias", ["node 0 (CONV_2D)", "bias must be 4 values of int32"]),
    ("huge dims", ["node 0 (CONV_2D)", "too large"]),
    ("negative dim", ["tensor 0", "absurd shape"]),
    ("short buffer", ["tensor 1", "bytes of data for shape"]),
    ("4-D input", ["node 0 (CONV_2D)", "must be 4-D"]),
])
def test_hostile_models_give_one_line_naming_the_node(case, words):
    mb, x, y = _conv_model(stride=0 if case == "stride 0" else 1,
                           in_index=99 if case == "tensor index" else None,
                           bias_dtype="float32" if case == "float bias" else "int32")
    if case == "huge dims":
        mb.tensors[x]["shape"] = (1, 1 << 24, 1 << 24, 3)
    if case == "negative dim":
        mb.tensors[x]["shape"] = (1, -6, 6, 3)
    if case == "short buffer":
        mb.tensors[1]["shape"] = (4, 3, 3, 4)
    if case == "4-D input":
        mb.tensors[x]["shape"] = (108,)
    with pytest.raises(TFLiteImportError) as err:
        import_tflite(mb.finish([x], [y]), tests=0)
    text = str(err.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_tests_count_is_bounded(tmp_path, capsys):
    with pytest.raises(TFLiteImportError, match="from 0 to %d" % MAX_TESTS):
        import_tflite(two_inputs(), tests=MAX_TESTS + 1)
    src = tmp_path / "m.tflite"
    src.write_bytes(two_inputs())
    for bad in ("99999999999999999999", "-5", "many"):
        with pytest.raises(SystemExit) as stop:
            burn_main(["import", str(src), "--tests", bad])
        assert stop.value.code == 2
        assert "--tests" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tflite"]
    with pytest.raises(SystemExit):
        burn_main(["import", "--help"])
    assert "0 to %d" % MAX_TESTS in " ".join(capsys.readouterr().out.split())


def test_a_bst_that_does_not_load_is_never_left_on_disk(tmp_path):
    x = GraphTensor("x", (1, 4), "int8", 0.1, 0)
    y = GraphTensor("y", (1, 4), "int8", 0.1, 0)
    bad = GraphOp("requantize", [0], [1], params={"in_zp": 0, "out_zp": 0,
                                                   "mult": 1 << 30, "shift": 99})
    graph = Graph([x, y], [bad], [(0, (1, 4))], [(1, (1, 4))])
    out = tmp_path / "bad.bst"
    with pytest.raises(ValueError, match="does not load"):
        write_bst(graph, out)
    assert list(tmp_path.iterdir()) == []


def test_cli_error_is_one_line_and_leaves_nothing(tmp_path, capsys):
    src = tmp_path / "m.tflite"
    data = bytearray(reshape_depthwise())
    src.write_bytes(bytes(data[:len(data) // 2]))
    assert burn_main(["import", str(src), "-o", str(tmp_path / "m.bst")]) == 1
    lines = [ln for ln in capsys.readouterr().err.splitlines() if not ln.startswith("  ")]
    assert len(lines) == 1 and lines[0].startswith("burn import: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tflite"]


def test_tflm_child_gives_what_tflm_gives_in_process():
    rng = np.random.default_rng(5)
    xs = [rng.integers(-128, 128, (1, 4, 4, 3), dtype=np.int8) for _ in range(2)]
    outs, noise = run_tflm_child(two_inputs(), [xs], 1, 1 << 16)
    assert noise == ""
    assert outs[0][0].tolist() == run_tflm(two_inputs(), xs)[0].tolist()

"""`burn import --check` and `--list-ops`: every unsupported op and tensor type at once, the
figures of an importable model (against the importer, burn.load and burn-flash's fit check),
one-line errors, nothing written; the op list derived from the op table and TFLM's own."""

import numpy as np
import pytest
from onnx import TensorProto, helper
from reference_models import model_path
from tflite.TensorType import TensorType
from tflite_builder import ModelBuilder

import burn
from burn.bst import TENSOR_DTYPES
from burn.host import tflite_writer
from burn.host.boards import load_board
from burn.host.bst_writer import encode_bst
from burn.host.cli import main
from burn.host.deploy.errors import ModelTooBig
from burn.host.deploy.fit import check_fit
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.model_check import check_onnx, check_tflite
from burn.host.importers.op_coverage import kernel_type, tflite_ops, tflm_ops
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflite.registry import SUPPORTED
from burn.host.importers.tflite_prune import FOLDED_AT_IMPORT

# Builtin ops burn is not expected to import: the first two of them that it does not.
UNSUPPORTED = [n for n in ("WHILE", "CALL_ONCE", "REVERSE_V2", "CUMSUM", "FLOOR_MOD",
                          "LSH_PROJECTION", "SKIP_GRAM", "HASHTABLE_LOOKUP")
               if n not in SUPPORTED][:2]


def _int8_model(n_out=10, width=8):
    """QUANTIZE-free int8 model: conv -> fully connected -> softmax."""
    rng = np.random.default_rng(1)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, width, width, 2), "int8", scale=0.02, zero_point=3)
    w = mb.tensor("w", (4, 3, 3, 2), "int8", data=rng.integers(-127, 128, (4, 3, 3, 2)),
                  scale=[0.01] * 4, zero_point=[0] * 4)
    c = mb.tensor("c", (1, width, width, 4), "int8", scale=0.05, zero_point=-2)
    fw = mb.tensor("fw", (n_out, width * width * 4), "int8",
                   data=rng.integers(-127, 128, (n_out, width * width * 4)), scale=[0.003],
                   zero_point=[0])
    f = mb.tensor("f", (1, n_out), "int8", scale=0.1, zero_point=1)
    y = mb.tensor("y", (1, n_out), "int8", scale=1 / 256, zero_point=-128)
    mb.op("CONV_2D", [x, w, -1], [c], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1)
    mb.op("FULLY_CONNECTED", [c, fw, -1], [f], "FullyConnectedOptions")
    mb.op("SOFTMAX", [f], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [y])


def _unsupported_model(monkeypatch):
    """Two unsupported ops (three nodes), a float16 activation and a complex64 constant,
    and a supported op between them."""
    assert "float16" not in TENSOR_DTYPES
    monkeypatch.setitem(tflite_writer._TYPES, "float16", (TensorType.FLOAT16, np.float16))
    monkeypatch.setitem(tflite_writer._TYPES, "complex64",
                        (TensorType.COMPLEX64, np.complex64))
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4), "float32")
    a = mb.tensor("a", (1, 4), "float32")
    b = mb.tensor("b", (1, 4), "float16")
    k = mb.tensor("k", (2,), "complex64", data=np.zeros(2, np.complex64))
    c = mb.tensor("c", (1, 4), "float32")
    y = mb.tensor("y", (1, 4), "float32")
    mb.op(UNSUPPORTED[0], [x], [a])
    mb.op(UNSUPPORTED[1], [a, k], [b])
    mb.op("RELU", [x], [c])
    mb.op(UNSUPPORTED[0], [c], [y])
    return mb.finish([x], [y, b])  # every op feeds an output (the importer drops the others)


def _run(capsys, *argv):
    rc = main(["import", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_check_lists_every_unsupported_op_and_type_at_once(monkeypatch, tmp_path, capsys):
    data = _unsupported_model(monkeypatch)
    report = check_tflite(data)
    assert not report.importable and report.nodes == 4
    assert report.ops == dict(sorted({UNSUPPORTED[0]: [0, 3], UNSUPPORTED[1]: [1]}.items()))
    assert report.types == {"COMPLEX64": [(3, "k")], "float16": [(2, "b")]}
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    rc, out, err = _run(capsys, "--check", str(path))
    assert rc == 1 and err == ""
    assert "%s nodes 0, 3" % UNSUPPORTED[0] in " ".join(out.split())
    assert "%s node 1" % UNSUPPORTED[1] in " ".join(out.split())
    assert "1 tensor: 2 (b)" in out and "1 tensor: 3 (k)" in out
    assert out.strip().splitlines()[-1] == (
        "m.tflite: not importable: 2 unsupported ops (%s); unsupported tensor types "
        "(COMPLEX64, float16)" % ", ".join(sorted(UNSUPPORTED)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tflite"]


def test_import_names_every_unreadable_tensor_type(monkeypatch):
    with pytest.raises(TFLiteImportError, match=r"unsupported types: 3 \(k\) COMPLEX64"):
        import_tflite(_unsupported_model(monkeypatch), tests=0)


def test_check_lists_every_node_the_importer_refuses(tmp_path, capsys):
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4), "int8", scale=0.1, zero_point=0)
    ys = [mb.tensor("y%d" % i, (1, 4), "int8", scale=0.1, zero_point=0) for i in range(2)]
    for y in ys:  # TFLM too wants an int8 softmax's output at scale 1/256, zero point -128
        mb.op("SOFTMAX", [x], [y], "SoftmaxOptions", Beta=1.0)
    path = tmp_path / "s.tflite"
    path.write_bytes(mb.finish([x], ys))
    report = check_tflite(path.read_bytes())
    assert not report.ops and not report.types
    assert [p.split(":")[0] for p in report.problems] == ["node 0 (SOFTMAX)", "node 1 (SOFTMAX)"]
    rc, out, _err = _run(capsys, "--check", str(path))
    assert rc == 1 and out.strip().endswith("2 nodes the importer refuses")


def test_check_figures_match_the_import_and_the_flash_fit(tmp_path, capsys):
    data = _int8_model()
    report = check_tflite(data)
    assert report.importable and not (report.ops or report.types or report.problems)
    bst = encode_bst(import_tflite(data, tests=0))
    info = burn.load(bst).info()
    assert report.bst == bst and report.macs == info["macs"] == 8 * 8 * 4 * 9 * 2 + 256 * 10
    assert report.arena_bytes == info["arena_bytes"] > 0
    boards = {(f.board, f.placement): f for f in report.fits}
    assert ("rp2040", "stock") in boards and ("rp2040", "rom") in boards
    for (name, placement), fit in boards.items():
        if placement != "stock" or fit.flash_needed is None:
            continue
        board = load_board(name)
        core = fit.flash_needed - -(-len(bst) // board.fs_block_bytes) * board.fs_block_bytes
        if fit.fits:  # burn-flash's own check agrees
            check_fit(report.facts, board, core)
        else:
            with pytest.raises(ModelTooBig):
                check_fit(report.facts, board, core)
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    rc, out, err = _run(capsys, "--check", str(path))
    assert rc == 0, err
    assert "MACs         %d" % report.macs in out
    assert "flash        %d bytes" % len(bst) in out
    assert out.strip().splitlines()[-1].startswith("m.tflite: importable: 3 ops")
    assert "rp2040" in out.strip().splitlines()[-1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tflite"]


def test_check_names_the_ops_a_default_firmware_leaves_out(monkeypatch, tmp_path, capsys):
    from burn.graph import ops

    path = tmp_path / "m.tflite"
    path.write_bytes(_int8_model())
    assert check_tflite(path.read_bytes()).optional == sorted(
        {"conv2d", "fully_connected", "softmax"} & set(ops.OPTIONAL))
    monkeypatch.setattr(ops, "OPTIONAL", ("softmax", "tanh"))
    assert check_tflite(path.read_bytes()).optional == ["softmax"]
    rc, out, _err = _run(capsys, "--check", str(path))
    assert rc == 0 and "default burn firmware leaves out the kernels of softmax;" in out


def test_check_says_when_a_model_is_too_big_for_a_board():
    report = check_tflite(_int8_model(n_out=250, width=48))  # a 2.4 MB weight matrix
    rp = {f.placement: f for f in report.fits if f.board == "rp2040"}
    assert rp["rom"].flash_needed > rp["rom"].flash_free and rp["rom"].fits is False
    assert rp["stock"].fits is False


@pytest.mark.parametrize("name", ["kws_ref_model.tflite", "kws_ref_model_float32.tflite"])
def test_check_of_the_reference_models(name):
    data = model_path(name).read_bytes()
    report = check_tflite(data)
    info = burn.load(encode_bst(import_tflite(data, tests=0))).info()
    assert report.importable and report.macs == info["macs"] > 2_000_000
    assert any(f.fits for f in report.fits if f.board == "rp2040")


@pytest.mark.parametrize("data", [b"", b"not a model at all", _int8_model()[:200]])
def test_check_of_a_malformed_file_is_one_line(data, tmp_path, capsys):
    path = tmp_path / "bad.tflite"
    path.write_bytes(data)
    rc, out, err = _run(capsys, "--check", str(path))
    assert rc == 1 and out == ""
    assert err.startswith("burn import: %s: " % path) and err.count("\n") == 1
    assert "Traceback" not in err


def test_check_of_a_missing_file_is_one_line(tmp_path, capsys):
    rc, _out, err = _run(capsys, "--check", str(tmp_path / "none.tflite"))
    assert rc == 1 and err.count("\n") == 1 and "No such file" in err


def _onnx(tmp_path, nodes):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = tmp_path / "m.onnx"
    path.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    return path


def test_check_onnx(tmp_path, capsys):
    path = _onnx(tmp_path, [helper.make_node("Celu", ["x"], ["a"], name="e1"),
                            helper.make_node("Relu", ["a"], ["b"]),
                            helper.make_node("Celu", ["b"], ["y"], name="e2")])
    assert check_onnx(path).ops == {"Celu": [0, 2]}
    rc, out, _err = _run(capsys, "--check", str(path))
    assert rc == 1 and "Celu" in out and "nodes 0, 2" in out
    path = _onnx(tmp_path, [helper.make_node("Relu", ["x"], ["a"]),
                            helper.make_node("Sigmoid", ["a"], ["y"])])
    report = check_onnx(path)
    assert report.importable and burn.load(report.bst).info()["ops"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


def test_list_ops_is_the_op_table_and_tflm_own_list(capsys):
    rows = tflite_ops()
    assert sorted(r.name for r in rows) == sorted(SUPPORTED + FOLDED_AT_IMPORT)
    conv = next(r for r in rows if r.name == "CONV_2D")
    assert "int8" in conv.types and "float32" in conv.types and conv.hybrid
    assert not next(r for r in rows if r.name == "SOFTMAX").hybrid
    assert (kernel_type("conv_s8"), kernel_type("conv_s16"), kernel_type("copy"),
            kernel_type("conv_f32")) == ("int8", "int16", "float32", "float32")
    tflm, source = tflm_ops()
    assert "tflite-micro" in source and "CONV_2D" in tflm and "SVDF" in tflm
    assert len(tflm) >= 80 and "ETHOSU" not in tflm and "L2NORM_REF" not in tflm
    rc, out, _err = _run(capsys, "--list-ops")
    assert rc == 0
    lines = out.splitlines()
    assert all(any(line.split()[:1] == [name] for line in lines) for name in SUPPORTED)
    covered = len(set(SUPPORTED + FOLDED_AT_IMPORT) & set(tflm))
    assert "TFLM builtin ops covered: %d of %d (" % (covered, len(tflm)) in out
    assert "ONNX ops burn imports" in out and "Conv" in out


def test_list_ops_gives_each_kernels_runtimes(capsys):
    from burn.graph.ops import KERNELS, OPTIONAL
    from burn.host.importers.op_coverage import kernel_runtimes

    rows = {k.name: k for k in kernel_runtimes()}
    assert sorted(rows) == sorted(n for _m, names, _a in KERNELS for n in names.split())
    assert all(k.flex_host or not k.flex_m0plus for k in rows.values())
    conv, quantize = rows["conv_s8"], rows["quantize_s8"]
    assert conv.viper and conv.flex_host and conv.flex_m0plus and not conv.optional
    assert quantize.flex_host and not quantize.flex_m0plus  # float code: an FPU's build only
    assert not rows["conv_f32"].flex_m0plus and not rows["conv_f32"].viper
    assert {k.kind for k in rows.values() if k.optional} == set(OPTIONAL)
    rc, out, _err = _run(capsys, "--list-ops")
    assert rc == 0 and "flex M0+" in out
    assert any(line.split()[:2] == ["conv_s8", "conv2d"] for line in out.splitlines())


def test_help_explains_check_and_list_ops(capsys):
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--check" in out and "unsupported op" in out and "--list-ops" in out
    assert main(["import"]) == 2

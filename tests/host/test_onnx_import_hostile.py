"""Bad ONNX input: every case is one clear ONNXImportError (or one `burn import:` line with
exit status 1), never a traceback, and nothing is allocated or run on the file's word."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from burn.host.cli import build_parser
from burn.host.importers.onnx_import import import_onnx
from burn.host.importers.onnx_read import ONNXImportError


def _model(nodes, inits=(), opset=17, shape=(1, 4)):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _import_error(tmp_path, model, match):
    path = tmp_path / "m.onnx"
    path.write_bytes(model if isinstance(model, bytes) else model.SerializeToString())
    with pytest.raises(ONNXImportError, match=match):
        import_onnx(path)
    return path


def test_every_unsupported_node_is_listed(tmp_path):
    nodes = [helper.make_node("Celu", ["x"], ["a"], name="e1"),
             helper.make_node("Relu", ["a"], ["b"]),
             helper.make_node("Hardmax", ["b"], ["c"], name="c1"),
             helper.make_node("Cast", ["c"], ["d"], name="k1", to=TensorProto.FLOAT),
             helper.make_node("Celu", ["d"], ["y"], name="e2")]
    path = _import_error(tmp_path, _model(nodes), "unsupported ONNX ops in 4 nodes")
    with pytest.raises(ONNXImportError) as e:
        import_onnx(path)
    # Cast only folds constants: on a computed value it is listed too
    for where in ("node 0 (Celu 'e1')", "node 2 (Hardmax 'c1')", "node 3 (Cast 'k1')",
                  "node 4 (Celu 'e2')"):
        assert where in str(e.value)


def test_cycle_is_refused(tmp_path):
    nodes = [helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
             helper.make_node("Relu", ["a"], ["y"])]
    _import_error(tmp_path, _model(nodes), "cycle")


def test_dead_nodes_are_dropped_and_constants_fold(tmp_path):
    w = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(4, 2), "w")
    nodes = [helper.make_node("Celu", ["x"], ["dead"]),  # unsupported, but reaches no output
             helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),  # folded
             helper.make_node("Transpose", ["wt"], ["w2"], perm=[1, 0]),
             helper.make_node("MatMul", ["x", "w2"], ["y"])]
    path = tmp_path / "m.onnx"
    path.write_bytes(_model(nodes, [w]).SerializeToString())
    imported = import_onnx(path)
    assert [n.op for n in imported.builder.graph.nodes] == ["Transpose", "Transpose", "MatMul"]
    assert len(imported.builder.lines) == 1  # only the Linear runs in the forward


def test_malformed_protobuf_and_old_opset(tmp_path):
    _import_error(tmp_path, b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01garbage",
                  "malformed ONNX")
    _import_error(tmp_path, _model([helper.make_node("Relu", ["x"], ["y"])], opset=11),
                  "opset 11 is not supported")


def test_absurd_shape_refused_before_allocation(tmp_path):
    huge = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 20, 1 << 20])
    _import_error(tmp_path, _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [huge]),
                  "more than")
    neg = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, -3])
    _import_error(tmp_path, _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [neg]),
                  "out of range")


def _external(tmp_path, location, length=32):
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 2])
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", str(length))):
        w.external_data.append(onnx.StringStringEntryProto(key=key, value=value))
    return _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [w])


def test_external_data_must_stay_in_the_folder(tmp_path):
    secret = tmp_path.parent / "secret.bin"
    secret.write_bytes(bytes(32))
    folder = tmp_path / "model"
    folder.mkdir()
    for location in ("../secret.bin", str(secret)):
        _import_error(folder, _external(folder, location), "outside the model's folder")
    (folder / "link.bin").symlink_to(secret)
    _import_error(folder, _external(folder, "link.bin"), "outside the model's folder")
    _import_error(folder, _external(folder, "missing.bin"), "is missing")
    (folder / "short.bin").write_bytes(bytes(8))
    _import_error(folder, _external(folder, "short.bin"), "shorter")
    (folder / "w.bin").write_bytes(np.ones(8, np.float32).tobytes())
    path = folder / "m.onnx"
    path.write_bytes(_external(folder, "w.bin").SerializeToString())
    assert import_onnx(path).builder.weights["linear0.weight"].sum() == 8


def test_hostile_names_stay_in_comments(tmp_path):
    name = "x\nimport os; os.environ['BURN_PWNED'] = '1'\n"
    nodes = [helper.make_node("Relu", ["x"], ["y"], name=name)]
    path = tmp_path / "m.onnx"
    path.write_bytes(_model(nodes).SerializeToString())
    imported = import_onnx(path)
    code = imported.code()
    assert "\nimport os; os.environ" not in code and "# Relu " in code
    imported.model()
    import os
    assert "BURN_PWNED" not in os.environ


def test_cli_gives_one_line(tmp_path, capsys):
    path = tmp_path / "m.onnx"
    path.write_bytes(_model([helper.make_node("Celu", ["x"], ["y"])]).SerializeToString())
    parser = build_parser()
    args = parser.parse_args(["import", str(path), "-o", str(tmp_path / "m.py")])
    assert args.run(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("burn import: ") and "Celu" in err[-1]
    assert "Traceback" not in "".join(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


def test_broadcasts_that_would_explode_are_refused(tmp_path):
    a = numpy_helper.from_array(np.ones((4096, 1), np.float32), "a")
    b = numpy_helper.from_array(np.ones((1, 1 << 15), np.float32), "b")
    nodes = [helper.make_node("Add", ["a", "b"], ["ab"]),  # folded: 2^27 elements
             helper.make_node("Add", ["x", "ab"], ["y"])]
    _import_error(tmp_path, _model(nodes, [a, b]), "more than")
    s1 = numpy_helper.from_array(np.array([1, 4096, 1], np.int64), "s1")
    s2 = numpy_helper.from_array(np.array([1, 1, 4096], np.int64), "s2")
    nodes = [helper.make_node("Reshape", ["x", "s1"], ["c"]),
             helper.make_node("Reshape", ["x", "s2"], ["r"]),
             helper.make_node("Mul", ["c", "r"], ["y"])]  # computed: 2^24 elements
    _import_error(tmp_path, _model(nodes, [s1, s2], shape=(1, 4096)), "more than")


def test_qdq_graph_is_refused_with_a_hint(tmp_path):
    s = numpy_helper.from_array(np.array(0.1, np.float32), "s")
    z = numpy_helper.from_array(np.array(0, np.int8), "z")
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
    _import_error(tmp_path, _model(nodes, [s, z]), r"in 2 nodes.*only to an int8 \.bst")


def test_missing_onnx_package_is_one_clear_error(tmp_path, monkeypatch):
    path = tmp_path / "m.onnx"
    path.write_bytes(_model([helper.make_node("Relu", ["x"], ["y"])]).SerializeToString())
    monkeypatch.setitem(__import__("sys").modules, "onnx", None)  # `import onnx` now fails
    with pytest.raises(ONNXImportError, match="needs the onnx package"):
        import_onnx(path)

"""ONNX import of elementwise math, activations, several-input ops, reductions, comparisons,
normalizations, Split and Tile: small onnx.helper models, every output of the generated
module against onnxruntime; unsupported attribute values are refused by name."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import burn
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import export_bst, graph_input
from burn.host.importers.onnx_import import import_onnx
from burn.host.importers.onnx_read import ONNXImportError

SHAPE = (2, 3, 4, 5)


def _model(tmp_path, name, nodes, outputs, inits=(), opset=13, shape=SHAPE):
    rng = np.random.default_rng(7)
    consts = [numpy_helper.from_array(np.asarray(v), k) for k, v in inits]
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"] + list(
            shape[1:]))],
        [onnx.ValueInfoProto(name=o) for o in outputs],
        consts)
    path = tmp_path / (name + ".onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)
    x = rng.standard_normal(shape).astype(np.float32) * 2
    return path, x


def _check(path, x):
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    got = import_onnx(path).model("numpy")(to_tensor(x, "numpy"))
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = to_numpy(g)
        assert g.shape == w.shape
        if w.dtype == bool or w.dtype.kind == "i":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * max(np.abs(w).max(), 1))


def _one_input(ops):
    return [helper.make_node(op, ["x"], ["y_" + op], **attrs) for op, attrs in ops]


def test_elementwise_math_matches_onnxruntime(tmp_path):
    ops = [("Abs", {}), ("Neg", {}), ("Exp", {}), ("Sin", {}), ("Cos", {}), ("Floor", {}),
           ("Ceil", {}), ("Round", {}), ("Reciprocal", {}), ("Erf", {}), ("Sign", {})]
    nodes = _one_input(ops) + [
        helper.make_node("Abs", ["x"], ["a"]), helper.make_node("Sqrt", ["a"], ["y_sqrt"]),
        helper.make_node("Log", ["a"], ["y_log"]),
        helper.make_node("Pow", ["x", "two"], ["y_pow2"]),
        helper.make_node("Pow", ["a", "half"], ["y_pow_half"]),
        helper.make_node("Pow", ["a", "three"], ["y_pow3"])]
    outs = ["y_" + op for op, _ in ops] + ["y_sqrt", "y_log", "y_pow2", "y_pow_half", "y_pow3"]
    inits = [("two", np.float32(2.0)), ("half", np.float32(0.5)), ("three", np.float32(3.0))]
    _check(*_model(tmp_path, "math", nodes, outs, inits))


def test_activations_match_onnxruntime(tmp_path):
    ops = [("Elu", {"alpha": 0.7}), ("Selu", {}), ("Softplus", {}), ("Softsign", {}),
           ("ThresholdedRelu", {"alpha": 0.5}), ("Mish", {}), ("Gelu", {}),
           ("Gelu", {"approximate": "tanh"})]
    nodes = [helper.make_node(op, ["x"], ["y%d" % i], **a) for i, (op, a) in enumerate(ops)]
    nodes.append(helper.make_node("PRelu", ["x", "slope"], ["y_prelu"]))
    slope = np.linspace(0.1, 0.3, 3, dtype=np.float32).reshape(3, 1, 1)
    outs = ["y%d" % i for i in range(len(ops))] + ["y_prelu"]
    _check(*_model(tmp_path, "act", nodes, outs, [("slope", slope)], opset=20))


def test_several_inputs_and_reductions_match_onnxruntime(tmp_path):
    c = np.random.default_rng(2).standard_normal((5,)).astype(np.float32)
    nodes = [helper.make_node("Relu", ["x"], ["r"])]
    for op in ("Min", "Max", "Sum", "Mean"):
        nodes.append(helper.make_node(op, ["x", "r", "c"], ["y_" + op]))
    outs = ["y_" + op for op in ("Min", "Max", "Sum", "Mean")]
    for op in ("ReduceMax", "ReduceMin", "ReduceProd", "ReduceMean"):
        nodes.append(helper.make_node(op, ["x"], ["y_" + op], axes=[1, -1], keepdims=0))
        outs.append("y_" + op)
    nodes += [helper.make_node("ReduceSum", ["x", "ax"], ["y_sum"]),
              helper.make_node("GlobalMaxPool", ["x"], ["y_gmp"]),
              helper.make_node("ArgMax", ["x"], ["y_argmax"], axis=1),
              helper.make_node("ArgMin", ["x"], ["y_argmin"], axis=-1, keepdims=0)]
    outs += ["y_sum", "y_gmp", "y_argmax", "y_argmin"]
    inits = [("c", c), ("ax", np.asarray([2], np.int64))]
    _check(*_model(tmp_path, "multi", nodes, outs, inits))


def test_compare_where_and_norms_match_onnxruntime(tmp_path):
    rng = np.random.default_rng(4)
    nodes = [helper.make_node("Greater", ["x", "zero"], ["gt"]),
             helper.make_node("Less", ["x", "lim"], ["lt"]),
             helper.make_node("Equal", ["x", "x"], ["eq"]),
             helper.make_node("GreaterOrEqual", ["lim", "x"], ["ge"]),
             helper.make_node("Not", ["gt"], ["ng"]),
             helper.make_node("Where", ["lt", "x", "zero"], ["w"]),
             helper.make_node("LayerNormalization", ["x", "s", "b"], ["ln"], axis=-2,
                              epsilon=1e-3),
             helper.make_node("InstanceNormalization", ["x", "si", "bi"], ["inorm"]),
             helper.make_node("Split", ["x", "parts"], ["s0", "s1"], axis=2),
             helper.make_node("Split", ["x"], ["t0", "t1", "t2"], axis=1),
             helper.make_node("Tile", ["x", "reps"], ["tile"])]
    inits = [("zero", np.float32(0.0)), ("lim", rng.standard_normal(5).astype(np.float32)),
             ("s", rng.standard_normal((4, 5)).astype(np.float32)),
             ("b", rng.standard_normal((4, 5)).astype(np.float32)),
             ("si", rng.standard_normal(3).astype(np.float32)),
             ("bi", rng.standard_normal(3).astype(np.float32)),
             ("parts", np.asarray([1, 3], np.int64)), ("reps", np.asarray([1, 2, 1, 3], np.int64))]
    outs = ["gt", "lt", "eq", "ge", "ng", "w", "ln", "inorm", "s0", "s1", "t0", "t1", "t2",
            "tile"]
    _check(*_model(tmp_path, "cmp", nodes, outs, inits, opset=17))


@pytest.mark.parametrize("op,attrs,inits,message", [
    ("Gelu", {"approximate": "erf"}, [], "approximate 'erf' is not supported"),
    ("ArgMax", {"select_last_index": 1}, [], "select_last_index=1 is not supported"),
    ("Pow", {}, [("e", np.ones(5, np.float32))], "only a constant scalar exponent"),
    ("Split", {"split": [1, 1]}, [], "split sizes [1, 1] do not cut 3 into 2 outputs"),
])
def test_unsupported_attribute_values_are_named(tmp_path, op, attrs, inits, message):
    ins = ["x"] + [k for k, _ in inits]
    outs = ["y", "z"] if op == "Split" else ["y"]
    node = helper.make_node(op, ins, outs, axis=1, **attrs) if op == "Split" else \
        helper.make_node(op, ins, outs, **attrs)
    path, _ = _model(tmp_path, "bad", [node], outs, inits, opset=20 if op == "Gelu" else 13)
    with pytest.raises(ONNXImportError, match=op) as e:
        import_onnx(path)
    assert message in str(e.value)


def test_elementwise_math_imports_to_a_bst_that_matches_onnxruntime(tmp_path):
    w = np.random.default_rng(5).standard_normal((4, 3, 3, 3)).astype(np.float32)
    chain = ["Abs", "Sqrt", "Log", "Exp", "Neg", "Sin", "Cos"]
    names = ["a"] + ["m%d" % i for i in range(len(chain) - 1)] + ["y"]
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"], pads=[1, 1, 1, 1])] + [
        helper.make_node(op, [names[i]], [names[i + 1]]) for i, op in enumerate(chain)]
    path, x = _model(tmp_path, "chain", nodes, ["y"], [("w", w)], shape=(1, 3, 5, 5))
    fgraph = import_onnx(path).float_graph(tests=1)
    assert [op.op for op in fgraph.ops] == ["conv2d"] + ["unary"] * len(chain)
    got = np.asarray(burn.load(encode_bst(fgraph))(graph_input(fgraph, x[0])).tolist())
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(got.reshape(1, 5, 5, 4).transpose(0, 3, 1, 2), want,
                               rtol=1e-4, atol=1e-5)


def test_ops_without_a_runtime_kernel_refuse_bst_export_by_name(tmp_path):
    path, _ = _model(tmp_path, "erf", [helper.make_node("Erf", ["x"], ["y"])], ["y"])
    imported = import_onnx(path)
    with pytest.raises(ONNXImportError, match=r"does not export to \.bst: .*erf"):
        imported.float_graph(tests=1)


@pytest.mark.parametrize("nodes,kind", [
    ([helper.make_node("Exp", ["x"], ["y"])], "unary"),
    ([helper.make_node("Relu", ["x"], ["n"]), helper.make_node("Max", ["x", "n"], ["y"])],
     "maximum")])
def test_float_only_ops_are_refused_in_int8_by_name(tmp_path, nodes, kind):
    path, x = _model(tmp_path, kind, nodes, ["y"], shape=(1, 3, 4, 4))
    with pytest.raises(ValueError, match="no int8 lowering for op " + kind):
        export_bst(import_onnx(path).model("numpy"), tmp_path / "m.bst", calibration=x,
                   sample_shape=x.shape[1:], tests=1)


def test_spatial_max_imports_to_a_bst_as_a_max_pool(tmp_path):
    w = np.random.default_rng(8).standard_normal((4, 3, 3, 3)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"]),
             helper.make_node("Abs", ["a"], ["b"]),
             helper.make_node("GlobalMaxPool", ["b"], ["g"]),
             helper.make_node("ReduceMax", ["a"], ["r"], axes=[2, 3]),
             helper.make_node("Add", ["g", "r"], ["y"])]
    path, x = _model(tmp_path, "gmp", nodes, ["y"], [("w", w)], shape=(1, 3, 6, 7))
    fgraph = import_onnx(path).float_graph(tests=1)
    assert [op.op for op in fgraph.ops].count("max_pool2d") == 2
    got = np.asarray(burn.load(encode_bst(fgraph))(graph_input(fgraph, x[0])).tolist())
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-5)


def test_min_and_max_of_two_computed_values_import_to_a_bst(tmp_path):
    w = np.random.default_rng(9).standard_normal((4, 3, 3, 3)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"]),
             helper.make_node("Neg", ["a"], ["n"]), helper.make_node("Cos", ["a"], ["c"]),
             helper.make_node("Max", ["a", "n"], ["m"]),
             helper.make_node("Min", ["a", "c"], ["k"]),
             helper.make_node("Sub", ["m", "k"], ["y"])]
    path, x = _model(tmp_path, "minmax", nodes, ["y"], [("w", w)], shape=(1, 3, 6, 6))
    fgraph = import_onnx(path).float_graph(tests=1)
    assert {"maximum", "minimum"} <= {op.op for op in fgraph.ops}
    got = np.asarray(burn.load(encode_bst(fgraph))(graph_input(fgraph, x[0])).tolist())
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(got.reshape(1, 4, 4, 4).transpose(0, 3, 1, 2), want,
                               rtol=1e-4, atol=1e-5)

"""TFLite's float32 DIV (with its fused activation), FLOOR_DIV and FLOOR_MOD (the optional op
`div`), broadcast as SUB is (either operand may repeat): 40 random cases per op within 1e-5
relative of TFLM on the plain kernels, flex (host and emulated Cortex-M0+) and the
MicroPython unix port; other types refused at import; hostile parameters refused at load."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

OPS = ("DIV", "FLOOR_DIV", "FLOOR_MOD")
CASES = 40


def _model(op, shapes, out_shape, dtype="float32", act=0, q=None):
    mb = ModelBuilder()
    ta, tb = (mb.tensor(n, s, dtype, **(q or {})) for n, s in zip("ab", shapes))
    ty = mb.tensor("y", out_shape, dtype, **(q or {}))
    if op == "DIV":
        mb.op(op, [ta, tb], [ty], "DivOptions", FusedActivationFunction=act)
    else:
        mb.op(op, [ta, tb], [ty])
    return mb.finish([ta, tb], [ty])


def _values(rng, shape):
    """Values of either sign, away from 0 (the divisors), some of them whole numbers."""
    v = rng.standard_normal(shape) * 4
    v = np.where(np.abs(v) < 0.25, v + 0.5, v)
    return np.where(rng.random(shape) < 0.3, np.round(v) + (v > 0) - (v < 0), v).astype(
        np.float32)


def _case(rng, op):
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 5))))
    small = [shape, (1,) * (len(shape) - 1) + shape[-1:], (1,)][int(rng.integers(0, 3))]
    shapes = (small, shape) if rng.integers(0, 3) == 0 else (shape, small)
    act = int(rng.integers(0, 4)) if op == "DIV" else 0
    xs = [_values(rng, s) for s in shapes]
    return _model(op, shapes, shape, act=act), xs


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(1515)
    out = []
    for op in OPS:
        for i in range(CASES):
            data, xs = _case(rng, op)
            want = run_tflm(data, xs)[0].reshape(-1)
            graph = import_tflite(data, tests=0)
            name = "%s %d%s" % (op, i, " swapped" if graph.ops[0].params["swap"] else "")
            out.append((name, xs, want, encode_bst(graph)))
    return out


def test_matches_tflm_on_plain_and_flex(cases):
    assert any(c[0].endswith("swapped") for c in cases)  # the first operand repeats
    check_on_host(cases, "div")


def test_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython(cases, tmp_path)


def test_zero_divisors_give_tflm_results():
    """C's float results, DIV's clamped to the largest float32 as TFLM's activation range
    clamps them; TFLM fails a FLOOR_DIV by zero, burn gives the floor of C's quotient."""
    a = np.array([1, -1, 0, 7.5, -7.5, 3], np.float32)
    b = np.array([0, 0, 0, 0, -0.0, np.inf], np.float32)
    data = [_model(op, ((6,), (6,)), (6,)) for op in OPS]
    for op, model in zip(OPS, data):
        if op == "FLOOR_DIV":
            with pytest.raises(RuntimeError):
                run_tflm(model, [a, b])
            with np.errstate(divide="ignore", invalid="ignore"):
                want = np.floor(a / b)
        else:
            want = run_tflm(model, [a, b])[0]
        bst = encode_bst(import_tflite(model, tests=0))
        for m in (burn.load(bst, variant="plain"), burn.load(bst)):
            got = np.asarray(m.run([a, b]), np.float32)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), op)
            np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)], op)


@pytest.mark.parametrize("op", OPS[1:])  # int8 DIV: tests/host/test_tflite_div_s8.py
def test_int8_is_refused(op):
    data = _model(op, ((4,), (4,)), (4,), "int8", q={"scale": 0.1, "zero_point": 0})
    with pytest.raises(TFLiteImportError, match="%s of INT8 tensors is not supported" % op):
        import_tflite(data, tests=0)


def _div_bst(params, dtype="float32"):
    tensors = [GraphTensor(n, (4,), dtype, *((0.1, 0) if dtype == "int8" else ()))
               for n in "aby"]
    return encode_bst(Graph(tensors, [GraphOp("div", [0, 1], [2], params=params)],
                            [(0, (4,)), (1, (4,))], [(2, (4,))]))


@pytest.mark.parametrize("params,dtype,message", [
    ({"op": 3, "swap": 0, "act": 0}, "float32", "op"),
    ({"op": -1, "swap": 0, "act": 0}, "float32", "op"),
    ({"op": 0, "swap": 2, "act": 0}, "float32", "swap"),
    ({"op": 0, "swap": 0, "act": 4}, "float32", "act"),
    ({"op": 0, "swap": 0}, "float32", "act"),
    ({"op": 0, "swap": 0, "act": 0}, "int8", "a_zp"),
])
def test_bst_reader_refuses_hostile_parameters(params, dtype, message):
    with pytest.raises(ValueError, match=message):
        burn.load(_div_bst(params, dtype))


def test_c_kernel_refuses_unknown_codes():
    a, b, y = (np.ones(4, np.float32) for _ in range(3))
    with pytest.raises((ValueError, IndexError)):
        GraphKernels().div_f32(a, b, y, 4, 4, 3, 0, 0)

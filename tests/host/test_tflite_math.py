"""TFLite's float32 elementwise math: EXP, LOG, SIN, COS, FLOOR, CEIL and ROUND (fn codes of
the optional op `unary`) and SQUARE (a `mul` of the input by itself), within 1e-5 relative
of TFLM on the plain kernels, flex (host and emulated Cortex-M0+) and the MicroPython unix
port's plain kernels; 40 random cases per op, with ties, zeros, infinities and NaN among
the inputs. TFLM has no int8 kernel for any of them: burn refuses one at import, and an
unknown fn code at load."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.graph import unary
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
UNARY = ("EXP", "LOG", "SIN", "COS", "FLOOR", "CEIL", "ROUND")
OPS = UNARY + ("SQUARE",)
ATOL = 1e-6  # SIN and COS near their zeros, whose relative error is that of pi's rounding


def _model(op, shape, dtype="float32", q=None):
    mb = ModelBuilder()
    x = mb.tensor("x", shape, dtype, **(q or {}))
    y = mb.tensor("y", shape, dtype, **(q or {}))
    mb.op(op, [x], [y])
    return mb.finish([x], [y])


def _input(rng, op, shape):
    """Values where `op` is interesting: ties of ROUND, positives (and a few zeros and
    negatives) for LOG, a few infinities and NaN."""
    x = rng.standard_normal(shape) * 4
    if op in ("FLOOR", "CEIL", "ROUND"):
        x = np.where(rng.random(shape) < 0.4, np.round(x) + 0.5, x)
    elif op == "LOG":
        x = np.where(rng.random(shape) < 0.9, np.abs(x) + 1e-3, np.round(x / 8))
    elif op in ("SIN", "COS"):
        x = x * 3
    x = x.astype(np.float32)
    if rng.random() < 0.2:
        x.reshape(-1)[:3] = [np.inf, -np.inf, np.nan][:x.size]
    return x


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(2615)
    out = []
    for op in OPS:
        for i in range(CASES):
            shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 4))))
            data, x = _model(op, shape), _input(rng, op, shape)
            want = run_tflm(data, [x])[0].reshape(-1)
            out.append(("%s %d" % (op, i), x, want, encode_bst(import_tflite(data, tests=0))))
    return out


def test_unary_matches_tflm_on_plain_and_flex(cases):
    check_on_host([c for c in cases if not c[0].startswith("SQUARE")], "unary", ATOL)


def test_square_is_a_mul_within_tflm_on_plain_and_flex(cases):
    squares = [c for c in cases if c[0].startswith("SQUARE")]
    assert len(squares) == CASES
    check_on_host(squares, "mul")


def test_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython(cases, tmp_path, ATOL)


@pytest.mark.parametrize("op", OPS)
def test_int8_is_refused_as_tflm_has_no_kernel(op):
    data = _model(op, (4,), "int8", {"scale": 0.1, "zero_point": 0})
    with pytest.raises(TFLiteImportError, match="TFLM has no int8 %s kernel" % op):
        import_tflite(data, tests=0)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros(4, np.int8)])


@pytest.mark.parametrize("fn", [8, 9, 10, 14, 36, -1])
def test_bst_reader_refuses_unknown_fn_codes(fn):
    tensors = [GraphTensor("x", (4,), "float32"), GraphTensor("y", (4,), "float32")]
    graph = Graph(tensors, [GraphOp("unary", [0], [1], params={"fn": fn, "alpha": 0.0})],
                  [(0, (4,))], [(1, (4,))])
    with pytest.raises(ValueError, match="fn"):
        burn.load(encode_bst(graph))


def test_every_code_is_a_flex_code():
    assert set(unary.FN) >= {unary.EXP, unary.LOG, unary.SIN, unary.COS, unary.FLOOR,
                             unary.CEIL, unary.ROUND}
    assert len(set(unary.FN)) == len(unary.FN)

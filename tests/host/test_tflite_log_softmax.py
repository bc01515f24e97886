"""TFLite LOG_SOFTMAX (the optional op `log_softmax`) over the last axis: int8 bit for bit
with TFLM on the plain kernels, flex (host and emulated Cortex-M0+) and MicroPython, float32
within 1e-5 relative; an int8 output TFLM refuses is refused at import, hostile parameters
at load."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
OUT_Q = (16.0 / 256, 127)
# x - max - log(sum) cancels near 0 for the largest inputs: TFLM's float32 sum of exps
# (about 1e-7 off) then shows as an absolute error, not a relative one
ATOL = 1e-6


def _model(shape, dtype="int8", q_in=None, q_out=OUT_Q):
    mb = ModelBuilder()
    qi = {} if dtype == "float32" else {"scale": q_in[0], "zero_point": q_in[1]}
    qo = {} if dtype == "float32" else {"scale": q_out[0], "zero_point": q_out[1]}
    x = mb.tensor("x", shape, dtype, **qi)
    y = mb.tensor("y", shape, dtype, **qo)
    mb.op("LOG_SOFTMAX", [x], [y])
    return mb.finish([x], [y])


@pytest.fixture(scope="module")
def cases():
    """[(name, input, TFLM's output, .bst bytes)]: CASES int8 cases, then CASES float32."""
    out = []
    for dtype in ("int8", "float32"):
        rng = np.random.default_rng([15, dtype == "int8"])
        for _ in range(CASES):
            shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(0, 3)))) + \
                (int(rng.integers(1, 50)),)
            if dtype == "int8":
                q = (float(np.float32(rng.uniform(0.005, 0.5))), int(rng.integers(-128, 128)))
                data, x = _model(shape, dtype, q), rng.integers(-128, 128, shape, np.int8)
            else:
                data, x = _model(shape, dtype), (rng.standard_normal(shape) * 4).astype(
                    np.float32)
            want = run_tflm(data, [x], arena_size=1 << 16)[0].reshape(-1)
            out.append(("LOG_SOFTMAX " + dtype, x, want,
                        encode_bst(import_tflite(data, tests=0))))
    return out


def test_log_softmax_matches_tflm_on_plain_flex_and_emulated_m0(cases):
    check_on_host(cases, "log_softmax", ATOL)


def test_log_softmax_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython(cases, tmp_path, ATOL)


def test_an_int8_output_scale_tflm_refuses_is_refused():
    data = _model((1, 8), "int8", (0.1, 0), (1.0 / 256, -128))
    with pytest.raises(RuntimeError, match="TFLM failed to allocate"):  # its Prepare fails
        run_tflm(data, [np.zeros((1, 8), np.int8)])
    with pytest.raises(TFLiteImportError, match="scale 16/256 and zero point 127"):
        import_tflite(data, tests=0)


def _bst(**params):
    p = {"in_mult": 1 << 30, "in_left_shift": 20, "reverse_mult": 1 << 30,
         "reverse_shift": -10, "diff_min": -100}
    p.update(params)
    tensors = [GraphTensor("x", (2, 4), "int8", 0.1, 0),
               GraphTensor("y", (2, 4), "int8", 16 / 256, 127)]
    op = GraphOp("log_softmax", [0], [1], params=p)
    return encode_bst(Graph(tensors, [op], [(0, (2, 4))], [(1, (2, 4))]))


@pytest.mark.parametrize("params,message", [
    ({"in_left_shift": 32}, "in_left_shift"),
    ({"reverse_shift": 1}, "reverse_shift"),
    ({"diff_min": 1}, "diff_min"),
    ({"reverse_mult": -1}, "reverse_mult"),
])
def test_hostile_log_softmax_ops_are_refused_at_load(params, message):
    burn.load(_bst())
    with pytest.raises(ValueError, match=message):
        burn.load(_bst(**params))

"""TFLite's one-input activations (the optional op `unary`): ABS, RSQRT, ELU, HARD_SWISH and
LEAKY_RELU on int8, bit for bit with TFLM on the plain kernels, the flex C kernels (host,
and built for the Cortex-M0+ run in unicorn) and the viper kernels (MicroPython unix port);
those and NEG and SQRT on float32 within 1e-5 relative of TFLM. Parameters TFLM refuses
are refused at import, and a hostile table or fn code at load."""

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
INT8_OPS = ("ABS", "RSQRT", "ELU", "HARD_SWISH", "LEAKY_RELU")
FLOAT_OPS = INT8_OPS + ("NEG", "SQRT")


def _f32(v):
    return float(np.float32(v))


def _model(op, shape, dtype="int8", q_in=None, q_out=None, alpha=None):
    """A one-op model of TFLite `op` on `shape`; q_* are (scale, zero point) for int8."""
    mb = ModelBuilder()
    qi = {} if q_in is None else {"scale": q_in[0], "zero_point": q_in[1]}
    qo = {} if q_out is None else {"scale": q_out[0], "zero_point": q_out[1]}
    x = mb.tensor("x", shape, dtype, **qi)
    y = mb.tensor("y", shape, dtype, **qo)
    if alpha is None:
        mb.op(op, [x], [y])
    else:
        mb.op(op, [x], [y], "LeakyReluOptions", Alpha=alpha)
    return mb.finish([x], [y])


def _shape(rng, count):
    """A random shape of `count` elements (count is a power of two), 1 to 4 dims."""
    dims, left = [], count
    for _ in range(int(rng.integers(0, 4))):
        d = 1 << int(rng.integers(0, 3))
        if left % d == 0:
            dims.append(d)
            left //= d
    return tuple(dims + [left])


def _int8_case(rng, op):
    """(model, input): every int8 value once (RSQRT: the valid ones, x >= zero point)."""
    in_scale, out_scale = _f32(rng.uniform(0.003, 0.3)), _f32(rng.uniform(0.003, 0.3))
    in_zp, out_zp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    if op == "HARD_SWISH":  # TFLM needs the output scale above the input scale / 128
        out_scale = max(out_scale, in_scale / 64)
    alpha = _f32(rng.uniform(-1.0, 2.0)) if op == "LEAKY_RELU" else None
    x = rng.permutation(np.arange(-128, 128)).astype(np.int8)
    if op == "RSQRT":
        x = np.maximum(x, in_zp).astype(np.int8)
    shape = _shape(rng, 256)
    data = _model(op, shape, "int8", (in_scale, in_zp), (out_scale, out_zp), alpha)
    return data, x.reshape(shape)


def _float_case(rng, op):
    shape = _shape(rng, 64)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    if op in ("SQRT", "RSQRT"):
        x = np.abs(x) + np.float32(0.01)
    alpha = _f32(rng.uniform(-1.0, 2.0)) if op == "LEAKY_RELU" else None
    return _model(op, shape, "float32", alpha=alpha), x


@pytest.fixture(scope="module")
def cases():
    """[(op, input, TFLM's output, .bst bytes)]: CASES int8 cases of each int8 op, then
    CASES float32 cases of each op."""
    out = []
    for kind, ops, make in (("int8", INT8_OPS, _int8_case), ("float32", FLOAT_OPS, _float_case)):
        for k, op in enumerate(ops):
            rng = np.random.default_rng([15, k, kind == "int8"])
            for _ in range(CASES):
                data, x = make(rng, op)
                want = run_tflm(data, [x])[0].reshape(-1)
                out.append((op, x, want, encode_bst(import_tflite(data, tests=0))))
    return out


def test_unary_matches_tflm_on_plain_flex_and_emulated_m0(cases):
    check_on_host(cases, "unary")
    assert {(op, want.dtype == np.int8) for op, _x, want, _bst in cases} == \
        {(op, True) for op in INT8_OPS} | {(op, False) for op in FLOAT_OPS}


def test_unary_matches_tflm_on_viper(cases, tmp_path):
    check_on_micropython(cases, tmp_path)


def test_int8_ops_without_a_tflm_int8_kernel_are_refused():
    for op in ("NEG", "SQRT"):
        data = _model(op, (4,), "int8", (0.1, 0), (0.1, 0))
        with pytest.raises(TFLiteImportError, match="TFLM has no int8 %s kernel" % op):
            import_tflite(data, tests=0)


def test_list_ops_shows_neg_and_sqrt_as_float32_only():
    from burn.host.importers.op_coverage import tflite_ops

    types = {r.name: r.types for r in tflite_ops()}
    assert types["NEG"] == types["SQRT"] == ("float32",)
    assert types["ABS"] == ("int8", "int16", "float32")  # int16: as LEAKY_RELU's kernel
    assert types["LEAKY_RELU"] == ("int8", "int16", "float32")  # int16: burn.graph.s16_unary


def test_hard_swish_with_a_too_small_output_scale_is_refused_as_tflm_does():
    data = _model("HARD_SWISH", (4,), "int8", (0.5, 0), (0.001, 0))
    with pytest.raises(RuntimeError, match="TFLM failed to allocate"):  # its Prepare fails
        run_tflm(data, [np.zeros(4, np.int8)])
    with pytest.raises(TFLiteImportError, match="output_multiplier_exponent <= 0"):
        import_tflite(data, tests=0)


def test_leaky_relu_without_options_has_alpha_zero():
    x = np.linspace(-3, 3, 8, dtype=np.float32)
    data = _model("LEAKY_RELU", (8,), "float32")
    model = burn.load(encode_bst(import_tflite(data, tests=0)))
    got = np.array(model.run(x))
    assert got.tolist() == run_tflm(data, [x])[0].tolist() == np.maximum(x, 0).tolist()


def _unary_bst(dtype, consts=None, params=None):
    q = (0.1, 0) if dtype == "int8" else (None, None)
    tensors = [GraphTensor("x", (8,), dtype, *q), GraphTensor("y", (8,), dtype, *q)]
    return encode_bst(Graph(tensors, [GraphOp("unary", [0], [1], consts, params)],
                            [(0, (8,))], [(1, (8,))]))


@pytest.mark.parametrize("dtype,consts,params,message", [
    ("int8", None, None, "missing constant table"),
    ("int8", {"table": np.zeros(255, np.int8)}, None, "constant table"),
    ("int8", {"table": np.zeros(256, np.int32)}, None, "constant table"),
    ("float32", None, {"fn": 8, "alpha": 0.0}, "unknown fn code 8"),
    ("float32", None, {"fn": 99, "alpha": 0.0}, "fn"),
    ("float32", None, {"alpha": 0.0}, "missing parameter fn"),
])
def test_hostile_unary_ops_are_refused_at_load(dtype, consts, params, message):
    with pytest.raises(ValueError, match=message):
        burn.load(_unary_bst(dtype, consts, params))


def test_the_table_is_the_ops_results_by_input_byte():
    table = np.arange(256).astype(np.uint8).astype(np.int8)[::-1].copy()  # y = -1 - x
    model = burn.load(_unary_bst("int8", {"table": table}), variant="plain")
    x = np.array([-128, -1, 0, 1, 5, 127, -7, 64], np.int8)
    assert np.array(model.run(x)).tolist() == (-1 - x.astype(int)).tolist()
    assert unary.FN == (0, 1, 4, 5, 32, 33, 34, 35, 2, 3, 6, 7, 11, 12, 13)  # flex.h codes


def test_rsqrt_inputs_below_the_zero_point_saturate():
    """TFLM fails an inference on them; burn's table gives 127 (1/sqrt(0) saturates)."""
    from burn.host.importers import unary_tables

    t = unary_tables.table("RSQRT", (0.05, 10), (0.1, -3))
    below = [b for b in range(256) if (b if b < 128 else b - 256) <= 10]
    assert len(below) == 139 and all(t[b] == 127 for b in below)
    assert all(t[b] < 127 for b in range(12, 128))

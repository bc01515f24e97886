"""TFLite PRELU (the optional op `prelu`), alpha a constant repeated along the innermost
dims: int8, and int16 with an int8 alpha, bit for bit with TFLM on the plain, flex (host and
emulated Cortex-M0+) and viper kernels (plain ones for int16), float32 within 1e-5
relative; what the runtimes cannot run is refused at import and hostile parameters at
load."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40


def _f32(v):
    return float(np.float32(v))


def _model(shape, alpha, dtype="int8", q=None, out_shape=None):
    """A one-op PRELU model; q: ((scale, zp) of x, alpha, y) for int8 and int16 (whose alpha
    is int8)."""
    mb = ModelBuilder()
    qx, qa, qy = ({"scale": s, "zero_point": z} for s, z in q) if q else ({}, {}, {})
    x = mb.tensor("x", shape, dtype, **qx)
    a = mb.tensor("alpha", alpha.shape, alpha.dtype.name, data=alpha, **qa)
    y = mb.tensor("y", out_shape or shape, dtype, **qy)
    mb.op("PRELU", [x, a], [y])
    return mb.finish([x], [y])


def _case(rng, dtype):
    shape = tuple(int(d) for d in rng.integers(1, 6, size=int(rng.integers(1, 5))))
    keep = int(rng.integers(1, len(shape) + 1))  # alpha: the innermost `keep` dims
    ashape = (1,) * int(rng.integers(0, len(shape) - keep + 1)) + shape[len(shape) - keep:]
    if rng.random() < 0.3:
        ashape = (1,) * keep
    if dtype == "float32":
        alpha = rng.uniform(-0.5, 1.5, size=ashape).astype(np.float32)
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        return _model(shape, alpha, dtype), x
    alpha = rng.integers(-128, 128, size=ashape, dtype=np.int8)
    q = [(_f32(rng.uniform(0.005, 0.2)), int(rng.integers(-128, 128))) for _ in range(3)]
    if dtype == "int16":  # few saturated outputs; zero points mostly 0
        zps = [int(rng.choice([0, rng.integers(-300, 300)])) for _ in range(2)]
        in_scale = _f32(rng.uniform(1e-4, 1e-3))
        q = [(in_scale, zps[0]), (_f32(rng.uniform(0.002, 0.02)), q[1][1]),
             (_f32(in_scale * rng.uniform(0.7, 3)), zps[1])]
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return _model(shape, alpha, dtype, q), x


@pytest.fixture(scope="module")
def cases():
    """[("PRELU", input, TFLM's output, .bst bytes)]: CASES int8 cases, then CASES float32,
    then CASES int16."""
    out = []
    for dtype in ("int8", "float32", "int16"):
        rng = np.random.default_rng([15, ("float32", "int8", "int16").index(dtype)])
        for _ in range(CASES):
            data, x = _case(rng, dtype)
            want = run_tflm(data, [x])[0].reshape(-1)
            out.append(("PRELU " + dtype, x, want, encode_bst(import_tflite(data, tests=0))))
    return out


def test_prelu_matches_tflm_on_plain_flex_and_emulated_m0(cases):
    check_on_host(cases, "prelu")


def test_prelu_matches_tflm_on_viper(cases, tmp_path):
    check_on_micropython(cases, tmp_path)


def test_alpha_that_does_not_repeat_along_the_innermost_dims_is_refused():
    data = _model((1, 2, 3), np.ones((2, 1), np.float32), "float32")
    with pytest.raises(TFLiteImportError, match="alpha must repeat along the innermost"):
        import_tflite(data, tests=0)


def test_more_than_four_dims_are_refused_as_tflm_does():
    data = _model((1, 2, 3), np.ones((1, 1, 1, 1, 3), np.float32), "float32")
    with pytest.raises(TFLiteImportError, match="at most 4 dims"):
        import_tflite(data, tests=0)


def test_scales_that_need_a_large_left_shift_are_refused():
    q = [(1.0, 0), (1.0, 0), (1e-6, 0)]
    data = _model((4,), np.ones(4, np.int8), "int8", q)
    with pytest.raises(TFLiteImportError, match="left shift beyond 15"):
        import_tflite(data, tests=0)


def test_int16_prelu_takes_an_int8_alpha_as_tflm():
    q = [(0.001, 0), (0.01, 0), (0.001, 0)]
    data = _model((4,), np.ones(4, np.int16), "int16", q)
    with pytest.raises(TFLiteImportError, match="int16 PRELU takes an int8 alpha"):
        import_tflite(data, tests=0)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros(4, np.int16)])
    q = [(1.0, 0), (1.0, 0), (1e-3, 0)]  # the negative side's shift: 10, beyond int16's 7
    with pytest.raises(TFLiteImportError, match="left shift beyond 7"):
        import_tflite(_model((4,), np.ones(4, np.int8), "int16", q), tests=0)


def _prelu_bst(alpha, **params):
    p = {"in_zp": 0, "alpha_zp": 0, "out_zp": 0, "pos_mult": 1 << 30, "pos_shift": 0,
         "neg_mult": 1 << 30, "neg_shift": 0}
    p.update(params)
    tensors = [GraphTensor("x", (8,), "int8", 0.1, 0), GraphTensor("y", (8,), "int8", 0.1, 0)]
    op = GraphOp("prelu", [0], [1], {} if alpha is None else {"alpha": alpha}, p)
    return encode_bst(Graph(tensors, [op], [(0, (8,))], [(1, (8,))]))


@pytest.mark.parametrize("alpha,params,message", [
    (None, {}, "missing constant alpha"),
    (np.ones(3, np.int8), {}, "alpha of 3 values does not broadcast over 8"),
    (np.ones(4, np.float32), {}, "constant alpha"),
    (np.ones(4, np.int8), {"neg_shift": 16}, "neg_shift"),
    (np.ones(4, np.int8), {"pos_mult": -1}, "pos_mult"),
    (np.ones(4, np.int8), {"alpha_zp": 200}, "alpha_zp"),
])
def test_hostile_prelu_ops_are_refused_at_load(alpha, params, message):
    with pytest.raises(ValueError, match=message):
        burn.load(_prelu_bst(alpha, **params))


def test_alpha_repeats_along_the_innermost_dims():
    tensors = [GraphTensor("x", (2, 4), "float32"), GraphTensor("y", (2, 4), "float32")]
    op = GraphOp("prelu", [0], [1], {"alpha": np.array([1, 2, 3, 4], np.float32)})
    bst = encode_bst(Graph(tensors, [op], [(0, (2, 4))], [(1, (2, 4))]))
    x = np.array([-1, -1, -1, -1, -1, 5, -1, -1], np.float32)
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        assert np.array(model.run(x)).tolist() == [-1, -2, -3, -4, -1, 5, -3, -4]

"""TFLite L2_NORMALIZATION imports as the optional l2norm kind: bit for bit with TFLM (its
fixed-point inverse square root) on the plain kernels, the flex C kernels (host, and built
for the Cortex-M0+ run in unicorn) and the viper kernels (MicroPython unix port); float32
within 1e-5 of TFLM."""


import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.graph.l2norm import inv_sqrt
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40


def _model(shape, dtype="int8", in_zp=3, out_q=(1 / 128, 0), act=0):
    """A one-op L2_NORMALIZATION model of an input of `shape`."""
    mb = ModelBuilder()
    qi = {} if dtype == "float32" else {"scale": 0.05, "zero_point": in_zp}
    qo = {} if dtype == "float32" else {"scale": out_q[0], "zero_point": out_q[1]}
    x = mb.tensor("x", shape, dtype, **qi)
    y = mb.tensor("y", shape, dtype, **qo)
    mb.op("L2_NORMALIZATION", [x], [y], "L2NormOptions", FusedActivationFunction=act)
    return mb.finish([x], [y])


def _cases(dtype, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(CASES):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(d) for d in rng.integers(1, 4, size=rank - 1)) + (
            int(rng.integers(1, 40)),)
        in_zp = int(rng.integers(-128, 128))
        data = _model(shape, dtype, in_zp)
        if dtype == "float32":
            x = (rng.standard_normal(shape) * 3).astype(np.float32)
        else:
            x = rng.integers(-128, 128, size=shape, dtype=np.int8)
            if i % 5 == 0:  # rows near the zero point: small sums of squares (0, 1, ...)
                x = np.clip(in_zp + rng.integers(-1, 2, size=shape), -128, 127).astype(np.int8)
        want = run_tflm(data, [x], arena_size=1 << 16)[0].reshape(-1)
        out.append((x, want, encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def int8_cases():
    """(input, TFLM's output, .bst bytes) of 40 int8 cases."""
    return _cases("int8", 181)


def test_int8_l2norm_matches_tflm_on_plain_and_flex(int8_cases):
    check_on_host([("l2norm",) + case for case in int8_cases], "l2norm")


def test_inv_sqrt_of_large_and_tiny_sums():
    """TFLM's special cases: 0 and 1 give INT32_MAX; sums past 2**29 are scaled down."""
    assert inv_sqrt(0) == inv_sqrt(1) == (2147483647, 0)
    for acc in (2, 3, 1000, 1 << 29, (1 << 31) - 1):
        mult, shift = inv_sqrt(acc)
        assert abs(mult * 2.0 ** (shift - 31) * np.sqrt(acc) - 1) < 1e-3, acc


def test_int8_l2norm_matches_tflm_on_viper(int8_cases, tmp_path):
    check_on_micropython([("l2norm",) + case for case in int8_cases], tmp_path)


def test_float_l2norm_matches_tflm():
    """40 float32 cases, plain and flex, within 1e-5 relative."""
    for x, want, bst in _cases("float32", 182):
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            got = np.array(model.run(x.reshape(-1)), np.float32).reshape(-1)
            assert np.allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs,match", [
    ({"act": 1}, "TFLM supports none"),
    ({"out_q": (1 / 64, 0)}, "scale 1/128"),
])
def test_what_tflm_refuses_is_refused_at_import(kwargs, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(_model((2, 5), **kwargs), tests=0)
    with pytest.raises(TFLiteImportError, match="1 to 4"):
        import_tflite(_model((1, 1, 1, 2, 5)), tests=0)


@pytest.mark.parametrize("params,shape,match", [
    ({"in_zp": 300}, (2, 5), "in_zp"),
    ({}, (1, 40000), "depth 40000"),
])
def test_hostile_l2norm_parameters_are_refused_by_the_reader(params, shape, match):
    tensors = [GraphTensor("x", shape, "int8", 0.05, 0),
               GraphTensor("y", shape, "int8", 1 / 128, 0)]
    bst = encode_bst(Graph(tensors, [GraphOp("l2norm", [0], [1], params=dict(
        {"in_zp": 0}, **params))], [(0, shape)], [(1, shape)]))
    with pytest.raises(ValueError, match=match):
        burn.load(bst)

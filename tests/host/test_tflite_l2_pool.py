"""TFLite's L2_POOL_2D (float32 only, as in TFLM) imports as ops burn has: a `mul` of the
input by itself, an `avg_pool2d`, a `unary` SQRT and a `clamp` for a fused activation. 40
random cases (window, strides, SAME or VALID padding, activation) within 1e-5 relative of
TFLM on the plain kernels, flex (host and emulated Cortex-M0+) and the MicroPython unix
port; int8 refused as TFLM has no kernel for it."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

from burn.graph import geometry
from burn.host.bst_writer import encode_bst
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
KINDS = ("mul", "avg_pool2d", "unary", "clamp")


def _model(shape, k, stride, same, act, dtype="float32", q=None):
    n, h, w, ch = shape
    oh, ow = (geometry.out_size(d, kk, s, 1, same) for d, kk, s in zip((h, w), k, stride))
    mb = ModelBuilder()
    x = mb.tensor("x", shape, dtype, **(q or {}))
    y = mb.tensor("y", (n, oh, ow, ch), dtype, **(q or {}))
    mb.op("L2_POOL_2D", [x], [y], "Pool2DOptions", Padding=0 if same else 1,
          StrideW=stride[1], StrideH=stride[0], FilterWidth=k[1], FilterHeight=k[0],
          FusedActivationFunction=act)
    return mb.finish([x], [y])


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(2020)
    out = []
    for i in range(CASES):
        shape = (int(rng.integers(1, 3)),) + tuple(int(d) for d in rng.integers(2, 7, 2)) + \
            (int(rng.integers(1, 4)),)
        k = tuple(int(rng.integers(1, min(4, d + 1))) for d in shape[1:3])
        stride = tuple(int(s) for s in rng.integers(1, 3, 2))
        data = _model(shape, k, stride, bool(rng.integers(0, 2)), int(rng.integers(0, 4)))
        x = (rng.standard_normal(shape) * 2).astype(np.float32)
        want = run_tflm(data, [x])[0].reshape(-1)
        out.append(("L2_POOL_2D %d" % i, x, want, encode_bst(import_tflite(data, tests=0))))
    return out


def test_matches_tflm_on_plain_and_flex(cases):
    check_on_host(cases, KINDS)


def test_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython(cases, tmp_path)


def test_int8_is_refused():
    data = _model((1, 4, 4, 1), (2, 2), (2, 2), False, 0, "int8",
                  {"scale": 0.1, "zero_point": 0})
    with pytest.raises(TFLiteImportError, match="TFLM has no int8 or int16 L2_POOL_2D"):
        import_tflite(data, tests=0)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros((1, 4, 4, 1), np.int8)])

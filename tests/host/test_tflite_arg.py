"""TFLite ARG_MAX and ARG_MIN import as the optional arg kind, whose index output is an
int32 tensor (files made before int32 tensors hold them in float32, and still load): equal to
TFLM's on the plain kernels, the flex C kernels (host, and built for the Cortex-M0+ run in
unicorn) and the viper kernels (MicroPython unix port), int8 and float32."""


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
OPS = ("ARG_MAX", "ARG_MIN")
_OPTIONS = {"ARG_MAX": "ArgMaxOptions", "ARG_MIN": "ArgMinOptions"}


def _model(name, shape, axis, dtype="int8", out_dtype="int32", axis_dtype="int32",
           consumer=False):
    """A one-op ARG_MAX / ARG_MIN model over `axis` of an input of `shape`."""
    mb = ModelBuilder()
    q = {} if dtype == "float32" else {"scale": 0.05, "zero_point": 3}
    x = mb.tensor("x", shape, dtype, **q)
    a = mb.tensor("axis", (1,), axis_dtype, data=np.array([axis], axis_dtype))
    out = tuple(d for i, d in enumerate(shape) if i != axis % len(shape))
    y = mb.tensor("y", out, out_dtype)
    mb.op(name, [x, a], [y], _OPTIONS[name])
    if consumer:
        z = mb.tensor("z", out, out_dtype)
        mb.op("LOGISTIC", [y], [z])  # no int32 kernel
        return mb.finish([x], [z])
    return mb.finish([x], [y])


def _cases(dtype, seed):
    rng = np.random.default_rng(seed)
    out = []
    for name in OPS:
        for _ in range(CASES):
            rank = int(rng.integers(1, 5))
            shape = tuple(int(d) for d in rng.integers(1, 6, size=rank))
            axis = int(rng.integers(-rank, rank))
            data = _model(name, shape, axis, dtype)
            if dtype == "float32":  # few distinct values: ties, and a NaN now and then
                x = rng.integers(-3, 4, size=shape).astype(np.float32)
                if rng.integers(0, 4) == 0:
                    x.reshape(-1)[int(rng.integers(0, x.size))] = np.nan
            else:
                x = rng.integers(-128, 128, size=shape, dtype=np.int8)
                if rng.integers(0, 2):
                    x = (x // 32).astype(np.int8)  # ties: the first index wins
            want = run_tflm(data, [x])[0].reshape(-1)
            out.append((name, x, want, encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def int8_cases():
    """(op, input, TFLM's output, .bst bytes) of 40 int8 cases per op."""
    return _cases("int8", 171)


def test_int8_args_match_tflm_on_plain_and_flex(int8_cases):
    check_on_host(int8_cases, "arg")


def test_int8_args_match_tflm_on_viper(int8_cases, tmp_path):
    check_on_micropython(int8_cases, tmp_path)


def test_float_args_match_tflm():
    """40 float32 cases per op with ties and NaNs, plain and flex: the same indices."""
    for name, x, want, bst in _cases("float32", 172):
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            got = np.array(model.run(x.reshape(-1)), np.float32).reshape(-1)
            assert got.tolist() == want.astype(np.float32).tolist(), name


def test_old_files_with_float32_indices_still_load():
    """A file of an arg op into a float32 tensor (as burn wrote them before int32 tensors):
    the same indices, as floats, on plain and flex."""
    x = np.array([[1, 7, 7, -2], [0, -5, 3, -5]], np.int8)
    for op, want in ((0, [1.0, 2.0]), (1, [3.0, 1.0])):
        tensors = [GraphTensor("x", (2, 4), "int8", 0.05, 0), GraphTensor("y", (2,), "float32")]
        bst = encode_bst(Graph(tensors, [GraphOp("arg", [0], [1], params={
            "outer": 2, "reduce": 4, "inner": 1, "op": op})], [(0, (2, 4))], [(1, (2,))]))
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            got = model.run(x.reshape(-1))
            assert list(got) == want and isinstance(got[0], float)


def test_large_indices_are_exact():
    """Indices up to 2**13 through the integer-made float32 bits of the flex kernels."""
    x = np.zeros((1, 9000), np.int8)
    x[0, 8191] = 5
    data = _model("ARG_MAX", x.shape, 1)
    bst = encode_bst(import_tflite(data, tests=0))
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        want = run_tflm(data, [x], arena_size=1 << 20)[0].tolist()
        assert list(model.run(x.reshape(-1))) == [8191.0] == want


@pytest.mark.parametrize("kwargs,match", [
    ({"out_dtype": "int16"}, "Only int32_t are supported currently, got int16"),
    ({"axis_dtype": "int16"}, "Only int32_t are supported currently, got int16"),
    ({"consumer": True}, "this op takes int32 tensors only as indices"),
])
def test_what_tflm_or_the_bst_cannot_hold_is_refused_at_import(kwargs, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(_model("ARG_MAX", (2, 3), 1, **kwargs), tests=0)


@pytest.mark.parametrize("params,out_dtype,match", [
    ({"reduce": 4}, "float32", "tensor sizes do not match"),
    ({"op": 2}, "float32", "op"),
    ({"reduce": (1 << 24) + 1}, "float32", "reduce"),
    ({}, "int8", "int32 or float32 out"),
])
def test_hostile_arg_parameters_are_refused_by_the_reader(params, out_dtype, match):
    tensors = [GraphTensor("x", (2, 3), "int8", 0.05, 0), GraphTensor("y", (2,), out_dtype,
                                                                       0.05, 0)]
    base = dict({"outer": 2, "reduce": 3, "inner": 1, "op": 0}, **params)
    bst = encode_bst(Graph(tensors, [GraphOp("arg", [0], [1], params=base)], [(0, (2, 3))],
                           [(1, (2,))]))
    with pytest.raises(ValueError, match=match):
        burn.load(bst)

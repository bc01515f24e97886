"""TFLite SUM, REDUCE_MAX, REDUCE_MIN (and MEAN over axes that are not one block) import as
the optional reduce kind, or the mean kind where an int8 sum covers one block of axes: bit
for bit with TFLM on the plain kernels, the flex C kernels (host, and built for the
Cortex-M0+ run in unicorn) and the viper kernels (MicroPython unix port); float32 within
1e-5 of TFLM."""


import numpy as np
import pytest
from one_op_runtimes import check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
OPS = ("SUM", "REDUCE_MAX", "REDUCE_MIN")


def _model(name, shape, axes, dtype="int8", in_q=(0.05, 3), out_q=(0.05, 3), keep=True,
           axes_dtype="int32"):
    """A one-op reduction model of an input of `shape` over `axes` (as given to TFLite)."""
    mb = ModelBuilder()
    resolved = {a % len(shape) for a in axes}
    out = [1 if i in resolved else d for i, d in enumerate(shape) if keep or i not in resolved]
    qi = {} if dtype == "float32" else {"scale": in_q[0], "zero_point": in_q[1]}
    qo = {} if dtype == "float32" else {"scale": out_q[0], "zero_point": out_q[1]}
    x = mb.tensor("x", shape, dtype, **qi)
    a = mb.tensor("axes", (len(axes),), axes_dtype, data=np.array(axes, axes_dtype))
    y = mb.tensor("y", tuple(out) or (1,), dtype, **qo)
    mb.op(name, [x, a], [y], "ReducerOptions", KeepDims=keep)
    return mb.finish([x], [y])


def _random_case(rng, name, dtype):
    rank = int(rng.integers(3 if name == "MEAN" else 1, 5))
    shape = tuple(int(d) for d in rng.integers(2 if name == "MEAN" else 1, 5, size=rank))
    count = int(rng.integers(1, rank + 1))
    axes = [int(a) for a in rng.choice(rank, size=count, replace=False)]
    if name == "MEAN":  # two blocks of axes: one block is the mean kind's, tested with it
        axes = [0, int(rng.integers(2, rank))]
    axes = [a - rank if rng.integers(0, 2) else a for a in axes]
    if rng.integers(0, 4) == 0:
        axes.append(axes[0])  # a repeated axis counts once
    keep = bool(rng.integers(0, 2)) or len({a % rank for a in axes}) == rank
    if dtype == "float32":
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        return _model(name, shape, axes, dtype, keep=keep), x
    in_q = (float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-128, 128)))
    out_q = in_q
    if name in ("SUM", "MEAN"):
        n = int(np.prod([shape[a % rank] for a in set(axes)]))
        grow = np.sqrt(n) if name == "SUM" else 1.0
        out_q = (float(np.float32(in_q[0] * grow * rng.uniform(0.5, 2))),
                 int(rng.integers(-128, 128)))
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    return _model(name, shape, axes, dtype, in_q, out_q, keep), x


def _cases(dtype, names, seed):
    rng = np.random.default_rng(seed)
    out = []
    for name in names:
        for _ in range(CASES):
            data, x = _random_case(rng, name, dtype)
            want = run_tflm(data, [x])[0].reshape(-1)
            out.append((name, x, want, encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def int8_cases():
    """(op, input, TFLM's output, .bst bytes) of each int8 case: 40 per op, and 20 MEANs."""
    return _cases("int8", OPS, 151) + _cases("int8", ("MEAN",), 152)[:20]


def test_int8_reductions_match_tflm_on_plain_and_flex(int8_cases):
    m0 = EmulatedLib("cortex-m0plus")
    kinds = set()
    for name, x, want, bst in int8_cases:
        plain = burn.load(bst, variant="plain")
        kinds.add((name, plain.info()["ops"][0]["op"]))
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            got = np.array(model.run(x.reshape(-1))).reshape(-1)
            assert got.tolist() == want.tolist(), (name, x.shape)
    # int8 SUM and MEAN take the mean kind over one block of axes, reduce over two
    assert kinds >= {("SUM", "mean"), ("SUM", "reduce"), ("MEAN", "reduce"),
                     ("REDUCE_MAX", "reduce"), ("REDUCE_MIN", "reduce")}


def test_int8_reductions_match_tflm_on_viper(int8_cases, tmp_path):
    check_on_micropython(int8_cases, tmp_path)


def test_float_reductions_match_tflm():
    """40 float32 cases per op (and 20 MEANs), plain and flex: max and min exactly, sums
    and means within 1e-5 of the magnitude summed."""
    for name, x, want, bst in _cases("float32", OPS, 153) + _cases("float32", ("MEAN",),
                                                                   154)[:20]:
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            got = np.array(model.run(x.reshape(-1)), np.float32).reshape(-1)
            if name.startswith("REDUCE"):
                assert got.tolist() == want.tolist(), name
            else:
                assert np.abs(got - want).max() <= 1e-5 * np.abs(x).sum(), name


@pytest.mark.parametrize("name,q,match", [
    ("REDUCE_MAX", ((0.05, 3), (0.06, 3)), "same scale and zero point"),
    ("REDUCE_MIN", ((0.05, 3), (0.05, 4)), "same scale and zero point"),
])
def test_tflm_rejections_are_refused_at_import(name, q, match):
    data = _model(name, (2, 3), [1], "int8", *q)
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(data, tests=0)


def test_bad_axes_are_refused_at_import():
    with pytest.raises(TFLiteImportError, match="out of range"):
        import_tflite(_model("SUM", (2, 3), [2], "float32"), tests=0)
    with pytest.raises(TFLiteImportError, match="int32"):
        import_tflite(_model("SUM", (2, 3), [1], "float32", axes_dtype="int16"), tests=0)
    with pytest.raises(TFLiteImportError, match="two separate blocks"):
        import_tflite(_model("REDUCE_MAX", (2, 3, 2, 3, 2, 3), [0, 2, 4], "float32"), tests=0)


def _reduce_bst(params, dtype="int8", shape=(2, 3), out=(2,)):
    tensors = [GraphTensor("x", shape, dtype, 0.05, 0), GraphTensor("y", out, dtype, 0.05, 0)]
    base = {"outer": 2, "reduce": 3, "mid": 1, "reduce2": 1, "inner": 1, "op": 2,
            "in_zp": 0, "out_zp": 0, "mult": 0, "shift": 0}
    base.update(params)
    return encode_bst(Graph(tensors, [GraphOp("reduce", [0], [1], params=base)],
                            [(0, shape)], [(1, out)]))


@pytest.mark.parametrize("params,match", [
    ({"reduce": 4}, "tensor sizes do not match"),
    ({"mid": 0}, "mid"),
    ({"op": 4}, "op"),
    ({"op": 1}, "int8 mean"),
    ({"op": 0, "shift": 40}, "shift"),
    ({"in_zp": 200}, "in_zp"),
    ({"reduce": 1 << 23, "reduce2": 2, "outer": 1, "op": 0}, "tensor sizes|more than"),
])
def test_hostile_reduce_parameters_are_refused_by_the_reader(params, match):
    with pytest.raises(ValueError, match=match):
        burn.load(_reduce_bst(params))

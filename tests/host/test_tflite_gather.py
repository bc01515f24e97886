"""TFLite GATHER at positions computed at run time (or of a constant table) and
EMBEDDING_LOOKUP import as the optional gather op with int32 positions: equal to TFLM's
output on the plain kernels, flex on the host, flex built for the Cortex-M0+ (unicorn) and
the MicroPython unix port, int8 and float32; a position outside the table is a clear error
on every runtime; what TFLM refuses is refused at import, and hostile gather fields in a
.bst are refused by the reader."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
_Q = {"scale": 0.05, "zero_point": 3}
_HYBRID_Q = {"scale": 0.0371, "zero_point": 0}  # TFLM's hybrid lookup takes zero point 0


def _data(rng, shape, dtype):
    if dtype == "int8":
        return rng.integers(-128, 128, size=shape, dtype=np.int8)
    return rng.standard_normal(shape).astype(np.float32)


def gather_model(shape, pos_shape, axis, dtype, table=None, pos_dtype="int32",
                 out_dtype=None, batch_dims=0):
    """GATHER of params `shape` (a model input, or the constant `table`) at positions of
    `pos_shape` (a model input) along `axis`."""
    mb = ModelBuilder()
    q = _Q if dtype == "int8" else {}
    x = mb.tensor("x", shape, dtype, data=table, **q)
    p = mb.tensor("pos", pos_shape, pos_dtype)
    a = axis % len(shape)
    y = mb.tensor("y", tuple(shape[:a]) + tuple(pos_shape) + tuple(shape[a + 1:]),
                  out_dtype or dtype, **q)
    mb.op("GATHER", [x, p], [y], "GatherOptions", Axis=axis, BatchDims=batch_dims)
    return mb.finish([p] if table is not None else [x, p], [y])


def lookup_model(table, count, out_dtype=None, ids_shape=None):
    """EMBEDDING_LOOKUP of `count` int32 ids (a model input) in the constant `table` (int8:
    quantized, with zero point 0 into a float32 `out_dtype`, the hybrid lookup)."""
    mb = ModelBuilder()
    dtype = table.dtype.name
    q = {} if dtype != "int8" else _Q if out_dtype in (None, "int8") else _HYBRID_Q
    ids = mb.tensor("ids", ids_shape or (count,), "int32")
    v = mb.tensor("table", table.shape, dtype, data=table, **q)
    y = mb.tensor("y", (count,) + table.shape[1:], out_dtype or dtype,
                  **(_Q if (out_dtype or dtype) == "int8" else {}))
    mb.op("EMBEDDING_LOOKUP", [ids, v], [y])
    return mb.finish([ids], [y])


def _gather_cases(dtype, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(CASES):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(d) for d in rng.integers(1, 5, size=rank))
        axis = int(rng.integers(-rank, rank))
        pos_shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3))))
        pos = rng.integers(0, shape[axis % rank], size=pos_shape).astype(np.int32)
        params = _data(rng, shape, dtype)
        const = i % 3 == 0  # a constant params tensor: the data is the op's constant
        data = gather_model(shape, pos_shape, axis, dtype, params if const else None)
        inputs = [pos] if const else [params, pos]
        want = run_tflm(data, inputs)[0].reshape(-1)
        out.append(("GATHER %s axis %d" % (shape, axis), pos if const else inputs, want,
                    encode_bst(import_tflite(data, tests=0))))
    return out


def _lookup_cases(dtype, seed):
    """EMBEDDING_LOOKUP cases of int8 or float32 tables, or "hybrid" ones (an int8 table,
    float32 out: TFLM dequantizes the rows it reads)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(CASES):
        rank = int(rng.integers(2, 5))
        shape = tuple(int(d) for d in rng.integers(1, 6, size=rank))
        count = int(rng.integers(1, 7))
        ids = rng.integers(0, shape[0], size=count).astype(np.int32)
        hybrid = dtype == "hybrid"
        data = lookup_model(_data(rng, shape, "int8" if hybrid else dtype), count,
                            out_dtype="float32" if hybrid else None)
        want = run_tflm(data, [ids])[0].reshape(-1)
        out.append(("EMBEDDING_LOOKUP %s" % (shape,), ids, want,
                    encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def cases():
    """(name, input(s), TFLM's output, .bst bytes): 40 cases per op and dtype, and of the
    hybrid EMBEDDING_LOOKUP."""
    found = {(op, dt): make(dt, seed) for op, make in (("gather", _gather_cases),
                                                       ("lookup", _lookup_cases))
             for dt, seed in (("int8", 31), ("float32", 32))}
    found["lookup", "hybrid"] = _lookup_cases("hybrid", 33)
    return found


@pytest.mark.parametrize("op,dtype", [("gather", "int8"), ("gather", "float32"),
                                      ("lookup", "int8"), ("lookup", "float32"),
                                      ("lookup", "hybrid")])
def test_matches_tflm_on_plain_and_flex(cases, op, dtype):
    check_on_host(cases[op, dtype], "gather")


def test_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython([c for group in cases.values() for c in group], tmp_path,
                         int8_runtime="plain")


def test_a_position_outside_the_table_is_a_clear_error_on_every_runtime():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    bst = encode_bst(import_tflite(lookup_model(table, 2), tests=0))
    with pytest.raises(RuntimeError):  # TFLM fails the lookup too
        run_tflm(lookup_model(table, 2), [np.array([1, 4], np.int32)])
    runtimes = [burn.load(bst, variant="plain"), use_flex(burn.load(bst)),
                use_flex(burn.load(bst), EmulatedLib("cortex-m0plus"))]
    for model in runtimes:
        for ids in ([1, 4], [-1, 0]):
            with pytest.raises(ValueError, match=r"\[0, 4\)"):
                model.run(ids)
        assert list(model.run([3, 0])) == [9.0, 10.0, 11.0, 0.0, 1.0, 2.0]


@pytest.mark.parametrize("data,match", [
    (gather_model((3, 4), (2,), 0, "int8", pos_dtype="int16"),
     "Positions of type 'int16' are not supported by gather"),
    (gather_model((3, 4), (2,), 0, "int32"), "Type 'int32' is not supported by gather"),
    (gather_model((3, 4), (2,), 2, "float32"), "axis 2 is out of range"),
    (gather_model((3, 4), (3,), 1, "float32", batch_dims=1), "batch_dims 1"),
    (lookup_model(np.zeros((3, 2), np.int8), 2, out_dtype="int16"), "hybrid"),
    (lookup_model(np.zeros((3,), np.float32), 2), "at least 2 dims"),
    (lookup_model(np.zeros((3, 2), np.float32), 2, ids_shape=(1, 2)), "1 dim"),
])
def test_what_tflm_or_burn_refuses_is_refused_at_import(data, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(data, tests=0)


def _hostile(params=None, dtypes=("int8", "int32", "int8"), shapes=((3, 4), (2,), (2, 4))):
    tensors = [GraphTensor("x", shapes[0], dtypes[0], *((0.05, 0) if dtypes[0] == "int8"
                                                         else ())),
               GraphTensor("pos", shapes[1], dtypes[1]),
               GraphTensor("y", shapes[2], dtypes[2], *((0.05, 0) if dtypes[2] == "int8"
                                                        else ()))]
    base = dict({"outer": 1, "size": 3, "inner": 4, "count": 2}, **(params or {}))
    return encode_bst(Graph(tensors, [GraphOp("gather", [0, 1], [2], params=base)],
                            [(0, shapes[0]), (1, shapes[1])], [(2, shapes[2])]))


@pytest.mark.parametrize("bst,match", [
    (_hostile({"size": 4}), "tensor sizes do not match"),
    (_hostile({"count": 3}), "tensor sizes do not match"),
    (_hostile({"inner": 0}), "inner"),
    (_hostile({"outer": 1 << 30}), "outer"),
    (_hostile(dtypes=("int8", "int8", "int8")), "expected int32"),
    (_hostile(dtypes=("int32", "int32", "int32")), "expected int8 or float32"),
    (_hostile(dtypes=("int8", "int32", "float32")), "expected int8"),
])
def test_hostile_gather_fields_are_refused_by_the_reader(bst, match):
    with pytest.raises(ValueError, match=match):
        burn.load(bst)


def test_reference_tests_of_an_int32_input_stay_within_the_table():
    """burn import's stored tests draw int32 ids within the table; the file's self-test
    passes on plain and flex."""
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    bst = encode_bst(import_tflite(lookup_model(table, 7), tests=6))
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        assert model.self_test() == 6

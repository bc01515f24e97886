"""TFLite ops that import through kinds burn already has, with no kernel of their own:
REVERSE_V2, BROADCAST_TO and GATHER_ND (strided copies, the pieces of a GATHER_ND joined by
concats), SPACE_TO_BATCH_ND (a pad and a strided copy), BATCH_TO_SPACE_ND (strided
copies) and FILL of a computed value (a copy with zero strides); CAST, ADD_N, REDUCE_ALL and
ZEROS_LIKE (dequantize, requantize, copy, add, reduce and select ops), DYNAMIC_UPDATE_SLICE
with constant start indices (strided copies and concats) and float32 CUMSUM (strided
copies, adds, a select and a concat), and the CASTs no other op computes (the cast op:
narrowing, truncation of float32 values within the target's range, int32 to float32).
40 random int8 cases
and 10 float32 ones per op (CAST: 40 per pair of types) against TFLM, on the plain kernels,
flex (host and emulated Cortex-M0+) and the MicroPython unix port (viper for int8 where
the op has it); what TFLM refuses is refused at import with its reason."""

import numpy as np
import pytest
from import_only_cases import (
    CASTS,
    OPS,
    add_n_case,
    cast_case,
    cumsum_case,
    make_cases,
    reduce_all_case,
    update_slice_case,
    zeros_like_case,
)
from move_cases import model
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

COUNTS = {"int8": 40, "float32": 10}
KINDS = ("strided", "concat", "pad")
ZERO_POINT = -7  # of move_cases.model's int8 tensors


def _collect(op, dtype):
    """COUNTS[dtype] cases of `op` that import as ops (identities fold away, checked below):
    (name, input, TFLM's flat output, .bst bytes)."""
    out = []
    for data, x, padded in make_cases(op, dtype):
        graph = import_tflite(data, tests=0)
        if graph.ops:
            want = run_tflm(data, [x])[0].reshape(-1)
            if padded is not None:
                want[padded] = ZERO_POINT if dtype == "int8" else 0
            out.append(("%s %s %d" % (op, dtype, len(out)), x, want, encode_bst(graph)))
        if len(out) == COUNTS[dtype]:
            return out


@pytest.fixture(scope="module")
def cases():
    return [case for op in OPS for dtype in COUNTS for case in _collect(op, dtype)]


def test_matches_tflm_on_plain_and_flex(cases):
    assert len(cases) == len(OPS) * sum(COUNTS.values())
    check_on_host(cases, KINDS)


def test_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython(cases, tmp_path)


VALUE_KINDS = ("dequantize", "requantize", "copy", "add", "reduce", "select", "strided",
               "concat", "cast")
CUMSUM_CASES = 40
CASTS_PER_PAIR = 40
ADD_N_COUNTS = {"int8": 40, "float32": 10}
REDUCE_ALL_CASES = 40


def _case(name, made, outputs=1):
    """(name, burn's input, TFLM's flat output (BOOL as int8 0/1), .bst bytes)."""
    data, x, tflm_x = made
    want = run_tflm(data, tflm_x if isinstance(tflm_x, list) else [tflm_x])[0].reshape(-1)
    graph = import_tflite(data, tests=0)
    return (name, x, want.astype(np.int8) if want.dtype == bool else want, encode_bst(graph))


@pytest.fixture(scope="module")
def value_cases():
    """{MicroPython runtime of int8 inputs: cases} of CAST, ADD_N and REDUCE_ALL."""
    rng = np.random.default_rng(15)
    out = {"viper": [], "plain": []}
    for src, dst, runtime in CASTS:
        out[runtime] += [_case("CAST %s %s %d" % (src, dst, i), cast_case(rng, src, dst))
                         for i in range(CASTS_PER_PAIR)]
    for dtype, count in ADD_N_COUNTS.items():
        out["viper"] += [_case("ADD_N %s %d" % (dtype, i), add_n_case(rng, dtype))
                         for i in range(count)]
    out["viper"] += [_case("REDUCE_ALL %d" % i, reduce_all_case(rng))
                     for i in range(REDUCE_ALL_CASES)]
    for dtype, count in COUNTS.items():
        out["viper"] += [_case("ZEROS_LIKE %s %d" % (dtype, i), zeros_like_case(rng, dtype))
                         for i in range(count)]
        out["viper"] += [_case("DYNAMIC_UPDATE_SLICE %s %d" % (dtype, i),
                               update_slice_case(rng, dtype)) for i in range(count)]
    out["plain"] += [_case("CUMSUM %d" % i, cumsum_case(rng)) for i in range(CUMSUM_CASES)]
    return out


def test_values_match_tflm_on_plain_and_flex(value_cases):
    cases = value_cases["viper"] + value_cases["plain"]
    assert len(cases) == len(CASTS) * CASTS_PER_PAIR + sum(ADD_N_COUNTS.values()) + \
        REDUCE_ALL_CASES + 2 * sum(COUNTS.values()) + CUMSUM_CASES
    check_on_host(cases, VALUE_KINDS)


def test_int32_to_float32_casts_round_as_tflm(value_cases):
    """The float32 results of CAST int32 -> float32 equal TFLM's bit for bit (the host check
    allows 1e-5): the nearest float32, ties to even, on plain, flex and flex Cortex-M0+."""
    m0 = EmulatedLib("cortex-m0plus")
    cases = [c for c in value_cases["plain"] if c[0].startswith("CAST int32 float32")]
    assert len(cases) == CASTS_PER_PAIR
    for name, x, want, bst in cases:
        for runtime in (burn.load(bst, variant="plain"), use_flex(burn.load(bst)),
                        use_flex(burn.load(bst), m0)):
            assert np.asarray(runtime.run(x.reshape(-1))).reshape(-1).tobytes() == \
                want.tobytes(), name


def test_values_match_tflm_on_micropython(value_cases, tmp_path):
    for runtime, cases in value_cases.items():
        (tmp_path / runtime).mkdir()
        check_on_micropython(cases, tmp_path / runtime, int8_runtime=runtime)


def test_identity_folds_away():
    x = np.arange(-12, 12, dtype=np.int8).reshape(2, 1, 12)
    i32 = np.int32
    for data in (model("REVERSE_V2", x, [x.shape], "int8", [(1, np.array([1], i32))]),
                 model("BROADCAST_TO", x, [x.shape], "int8", [(1, np.array(x.shape, i32))])):
        assert import_tflite(data, tests=0).ops == []


def _refused():
    """(model, the reason burn gives, whether TFLM refuses it too)."""
    x = np.zeros((2, 3, 4), np.int8)
    x5 = np.zeros((1, 1, 1, 1, 1), np.int8)
    i32 = np.int32

    def rev(axes, kind=i32):
        return model("REVERSE_V2", x, [x.shape], "int8", [(1, np.array(axes, kind))])

    def gnd(idx, out):
        return model("GATHER_ND", x, [out], "int8", [(1, np.array(idx, idx.dtype))])

    def cast(src, dst):
        mb = ModelBuilder()
        tx, ty = mb.tensor("x", (2, 3, 4), src), mb.tensor("y", (2, 3, 4), dst)
        mb.op("CAST", [tx], [ty])
        return mb.finish([tx], [ty])

    def add_n(count, zp):
        mb = ModelBuilder()
        ins = [mb.tensor("x%d" % i, (2, 3, 4), "int8", scale=0.1, zero_point=zp)
               for i in range(count)]
        y = mb.tensor("y", (2, 3, 4), "int8", scale=0.2, zero_point=0)
        mb.op("ADD_N", ins, [y])
        return mb.finish(ins, [y])

    def update(ushape, index_type=np.int32):
        mb = ModelBuilder()
        ta, tu = (mb.tensor(n, s, "int8", scale=0.1, zero_point=0)
                  for n, s in (("a", (2, 3, 4)), ("u", ushape)))
        ti = mb.tensor("i", (3,), np.dtype(index_type).name, data=np.zeros(3, index_type))
        ty = mb.tensor("y", (2, 3, 4), "int8", scale=0.1, zero_point=0)
        mb.op("DYNAMIC_UPDATE_SLICE", [ta, tu, ti], [ty])
        return mb.finish([ta, tu], [ty])

    def cumsum(dtype, n):
        mb = ModelBuilder()
        q = {"scale": 0.1, "zero_point": 0} if dtype == "int8" else {}
        tx, ty = (mb.tensor(name, (2, n), dtype, **q) for name in "xy")
        ta = mb.tensor("a", (), "int32", data=np.array(1, np.int32))
        mb.op("CUMSUM", [tx, ta], [ty], "CumsumOptions", Exclusive=False, Reverse=False)
        return mb.finish([tx], [ty])

    def zeros():
        mb = ModelBuilder()
        tx, ty = (mb.tensor(n, (2, 3, 4), "int16", scale=0.1, zero_point=0) for n in "xy")
        mb.op("ZEROS_LIKE", [tx], [ty])
        return mb.finish([tx], [ty])

    return [
        (cast("float32", "bool"), "CAST from FLOAT32 to BOOL is not supported", False),
        (cast("int8", "bool"), "CAST from INT8 to BOOL is not supported", False),
        (add_n(3, 0), "int8 ADD_N of 3 inputs", False),
        (zeros(), "int16 tensors are not supported by this op", True),
        (cumsum("int8", 3), "CUMSUM of INT8 is not supported", False),
        (cumsum("float32", 33), "an axis of 33 elements, more than the 32", False),
        (update((2, 4, 4)), "update \\(2, 4, 4\\) does not fit in operand", False),
        (update((1, 1, 1), np.int16), "start indices must be 3 int32 or int64 values", False),
        (model("FILL", np.zeros(1, np.int8), [(2, 3)], "int8", [(0, np.array([2, 3], i32))]),
         "must be a scalar", True),
        (model("FILL", np.zeros((), np.int8), [(2, 3)], "int8", [(0, np.array([3, 2], i32))]),
         "do not match the output's shape", True),
        (add_n(2, 85), "input zero point 85", False),
        (rev([0, 2]), "Non-contiguous `axes` not supported", True),
        (rev([0], np.int64), "Axis Type 'int64' is not supported by reverse", True),
        (rev([3]), "axis 3 is out of range for 3 dims", True),
        (model("BROADCAST_TO", x, [(2, 2, 4)], "int8", [(1, np.array([2, 2, 4], i32))]),
         "does not broadcast to", True),
        (model("BROADCAST_TO", x, [(1, 1, 1, 2, 3, 4)], "int8",
               [(1, np.array([1, 1, 1, 2, 3, 4], i32))]), "only supports 1-5D", True),
        (gnd(np.zeros((2, 4), np.int32), (2,)), "must be <= params rank", True),
        (gnd(np.zeros((2, 1), np.int64), (2, 3, 4)), "Indices of type 'int64'", True),
        (gnd(np.array([[2]], np.int32), (1, 3, 4)), "outside params", False),
        (model("SPACE_TO_BATCH_ND", x5, [x5.shape], "int8", [(1, np.array([1, 1, 1], i32)),
                                                            (2, np.zeros((3, 2), i32))]),
         "must be 3-D or 4-D", True),
        (model("SPACE_TO_BATCH_ND", x, [(4, 2, 4)], "int8", [(1, np.array([2], i32)),
                                                             (2, np.array([[0, 0]], i32))]),
         "padded size 3x1 is not a multiple of block_shape 2x1", False),
        (model("BATCH_TO_SPACE_ND", x, [(1, 6, 4)], "int8", [(1, np.array([3], i32)),
                                                             (2, np.array([[0, 0]], i32))]),
         "batch 2 is not a multiple of block_shape 3x1", False),
        (model("BATCH_TO_SPACE_ND", x, [(1, 1, 4)], "int8", [(1, np.array([2], i32)),
                                                             (2, np.array([[3, 3]], i32))]),
         "leave nothing", False),
    ]


def test_refused_with_the_reason():
    for data, reason, tflm_refuses in _refused():
        with pytest.raises(TFLiteImportError, match=reason):
            import_tflite(data, tests=0)
        if tflm_refuses:
            with pytest.raises(RuntimeError):
                run_tflm(data, [np.zeros(*_input(data))])


def _input(data):
    """(shape, dtype) of the model's first input."""
    from burn.host.importers.tflite_read import read_tflite

    tf = read_tflite(data)
    return tf.tensors[tf.inputs[0]].shape, tf.tensors[tf.inputs[0]].dtype

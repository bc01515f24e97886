"""TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
GATHER and MIRROR_PAD import as strided copies (burn.graph.strided; the pieces of a GATHER
or MIRROR_PAD joined by concats): bit for bit with TFLM, int8 and float32 (and int16 for
the moves TFLM runs on int16: move_cases.INT16_OPS, and int32 for move_cases.INT32_OPS), on
the plain kernel, the flex C kernel (host, and built for the Cortex-M0+ run in unicorn) and
the viper kernel (MicroPython unix port); identities fold away; what TFLM refuses, and what
would read outside the input, is refused."""


import numpy as np
import pytest
from move_cases import INT16_OPS, INT32_OPS, OPS, make_cases, model
from mp_models import run_models
from tflite_builder import run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflm_child import TFLMError
from burn.host.importers.tflm_child import run_tflm as run_tflm_child

COUNTS = {"int8": 40, "float32": 10, "int16": 20, "int32": 40}
TYPED = {"int16": INT16_OPS, "int32": INT32_OPS}  # the ops of these types; the rest: all
ARENA = 1 << 16


def _collect(op, dtype):
    """COUNTS[dtype] cases of `op` that import as strided ops (identities fold away or
    become a copy, tested below): (input, TFLM's flat outputs, .bst bytes)."""
    out = []
    for data, x in make_cases(op, dtype):
        graph = import_tflite(data, tests=0)
        if any(op.op == "strided" for op in graph.ops):
            want = run_tflm(data, [x], len(graph.outputs), ARENA)
            out.append((x, [w.reshape(-1).tolist() for w in want], encode_bst(graph)))
        if len(out) == COUNTS[dtype]:
            return out


@pytest.fixture(scope="module")
def cases():
    return {(op, dt): _collect(op, dt) for op in OPS for dt in COUNTS
            if op in TYPED.get(dt, OPS)}


@pytest.fixture(scope="module")
def m0():
    return EmulatedLib("cortex-m0plus")


def _outputs(m, x):
    got = m.run(x.reshape(-1))
    return [np.array(g).reshape(-1).tolist() for g in (got if isinstance(got, tuple) else [got])]


@pytest.mark.parametrize("op", OPS)
def test_matches_tflm_on_plain_flex_and_m0(cases, m0, op):
    for dtype in COUNTS:
        for x, want, bst in cases.get((op, dtype), ()):
            plain = burn.load(bst, variant="plain")
            kinds = {s.kind for s in plain._steps}
            assert "strided" in kinds and kinds <= {"strided", "concat"}
            assert {s.runtime for s in plain._steps} == {"plain"}
            flex, emulated = use_flex(burn.load(bst)), use_flex(burn.load(bst), m0)
            # a box of consecutive elements is a copy (burn.graph.strided), which stays in Python
            moved = len([s for s in plain._steps if len(s.a) > 3])
            assert flex.flex_ops == emulated.flex_ops == moved
            for m in (plain, flex, emulated):
                assert _outputs(m, x) == want


@pytest.mark.parametrize("step, planned", [(1, True), (2, False)])
def test_a_slice_of_consecutive_elements_joins_the_plan_as_a_copy(step, planned):
    """A STRIDED_SLICE that reads one run of consecutive elements (a streaming model's last
    frames: [1, 7, 1, 40] -> its last 4 frames) is bound to the copy kernel at load, a byte
    copy of the flex plan; one with a step of 2 along time keeps the strided kernel, which
    has no plan step. Both give TFLM's outputs on every runtime, run twice (the second run
    by the plan, if any)."""
    x = np.random.default_rng(15).integers(-128, 128, (1, 7, 1, 40)).astype(np.int8)
    begin, end = [0, -4 if step == 1 else 1, 0, 0], [1, 7, 1, 40]
    shape = x[:, begin[1]::step].shape
    data = model("STRIDED_SLICE", x, [shape], "int8",
                 [(k + 1, np.array(v, np.int32)) for k, v in
                  enumerate((begin, end, [1, step, 1, 1]))], {}, "StridedSliceOptions")
    want = run_tflm(data, [x], 1, ARENA)[0].reshape(-1).tolist()
    bst = encode_bst(import_tflite(data, tests=0))
    plain = burn.load(bst, variant="plain")
    assert [s.kind for s in plain._steps] == ["strided"]
    assert (len(plain._steps[0].a) == 3) == planned  # the copy's (src, dst, count)
    flex = use_flex(burn.load(bst))
    for m in (plain, flex, flex):
        assert _outputs(m, x) == [want]
    assert (flex.invoke.plan is not None) == planned


def test_matches_tflm_on_viper(cases, tmp_path):
    models, wants = [], []
    for op in OPS:
        for x, want, bst in cases[op, "int8"]:
            models.append((bst, [x]))
            wants.append(want)
    assert len(wants) == len(OPS) * COUNTS["int8"]
    results = run_models(tmp_path, models, heap="1m")
    for want, result in zip(wants, results):
        assert set(result.runtimes) == {"viper"}, result.runtimes
        assert result.outputs[0] == want


def test_int32_moves_match_tflm_on_micropython(cases, tmp_path):
    """int32 data on the board's runtime: the generic kernels, in MicroPython."""
    models, wants = [], []
    for op in INT32_OPS:
        for x, want, bst in cases[op, "int32"]:
            models.append((bst, [x]))
            wants.append(want)
    results = run_models(tmp_path, models, heap="1m")
    assert [r.outputs[0] for r in results] == wants


def _identities():
    """(model, input, the ops it imports as): moves that keep every element in place."""
    x = np.arange(-12, 12, dtype=np.int8).reshape(1, 4, 1, 6)
    i32 = np.int32
    return [
        (model("TRANSPOSE", x, [(1, 1, 4, 6)], "int8", [(1, np.array([2, 0, 1, 3], i32))]), x,
         []),
        (model("SLICE", x, [x.shape], "int8", [(1, np.zeros(4, i32)),
                                               (2, np.array([-1, 4, 1, 6], i32))]), x, []),
        (model("SPLIT", x, [x.shape], "int8", [(0, np.array(3, i32))], {"NumSplits": 1},
               "SplitOptions"), x, []),
        (model("DEPTH_TO_SPACE", x, [x.shape], "int8", [], {"BlockSize": 1},
               "DepthToSpaceOptions"), x, []),
        (model("MIRROR_PAD", x, [x.shape], "int8", [(1, np.zeros((4, 2), i32))], {"Mode": 0},
               "MirrorPadOptions"), x, ["copy"]),
    ]


def test_identities_fold_into_a_rename_or_a_copy():
    for data, x, kinds in _identities():
        graph = import_tflite(data, tests=0)
        assert [op.op for op in graph.ops] == kinds
        got = burn.load(encode_bst(graph)).run(x.reshape(-1))
        assert np.array(got).reshape(-1).tolist() == run_tflm(data, [x])[0].reshape(-1).tolist()


def _refused():
    """(model, the reason burn gives, whether TFLM refuses it too when preparing it)."""
    x4 = np.zeros((2, 3, 4, 5), np.int8)
    x5 = np.zeros((1, 2, 1, 2, 2), np.int8)
    x6 = np.zeros((1, 1, 2, 1, 2, 2), np.int8)
    i32 = np.int32

    def ss(x, begin, end, strides, out, **masks):
        consts = [(1, np.array(begin, i32)), (2, np.array(end, i32)), (3, np.array(strides, i32))]
        return model("STRIDED_SLICE", x, [out], "int8", consts, masks, "StridedSliceOptions")

    def gather(idx, **options):
        shape = x4.shape[:1] + idx.shape + x4.shape[2:]
        return model("GATHER", x4, [shape], "int8", [(1, idx)], dict(Axis=1, **options),
                     "GatherOptions")

    def mirror(pads, mode):
        shape = [d + a + b for d, (a, b) in zip(x4.shape, pads)]
        return model("MIRROR_PAD", x4, [shape], "int8", [(1, np.array(pads, i32))],
                     {"Mode": mode}, "MirrorPadOptions")

    return [
        (model("TRANSPOSE", x6, [x6.shape], "int8", [(1, np.arange(6, dtype=i32))]),
         "only supports 1D-5D", True),
        (model("TRANSPOSE", x4, [x4.shape], "int8", [(1, np.array([0, 1, 2, 4], i32))]),
         "permutations array is out of bounds", True),
        (model("TRANSPOSE", x4, [x4.shape], "int8", [(1, np.array([0, 1, 1, 3], i32))]),
         "not a permutation", False),
        (model("SLICE", x4, [(2, 3, 4, 2)], "int8", [(1, np.array([0, 0, 0, 4], i32)),
                                                     (2, np.array([2, 3, 4, 2], i32))]),
         "do not fit shape", False),  # TFLM checks it in Eval, and writes nothing
        (ss(x5, [0] * 5, [1] * 5, [1] * 5, (1, 1, 1, 1, 1)), "should not exceed 4", True),
        (ss(x4, [0] * 4, [1] * 4, [1, 1, 0, 1], (1, 1, 1, 1)), "has to be non-zero", True),
        (ss(x4, [0] * 4, [1] * 4, [1] * 4, (1, 1, 1, 1), EllipsisMask=2), "ellipsis_mask",
         False),
        (ss(x4, [0] * 4, [1] * 4, [1] * 4, (1, 1, 1, 1), NewAxisMask=1), "new_axis_mask",
         False),
        (ss(x4, [0] * 4, [2, 3, 4, 5], [1] * 4, (2, 3, 4, 4)), "expected \\(2, 3, 4, 5\\)", True),
        (model("SPLIT", x4, [(2, 3, 2, 5)] * 3, "int8", [(0, np.array(2, i32))],
               {"NumSplits": 3}, "SplitOptions"), "Not an even split", False),
        (model("SPLIT_V", x4, [(2, 1, 4, 5), (2, 1, 4, 5)], "int8",
               [(1, np.array([1, 1], i32)), (2, np.array([1], i32))], {"NumSplits": 2},
               "SplitVOptions"), "do not add up", False),
        (model("UNPACK", x4, [(2, 4, 5)] * 2, "int8", [], {"Num": 2, "Axis": 1},
               "UnpackOptions"), "do not match axis size", False),
        (model("DEPTH_TO_SPACE", x4, [(2, 6, 8, 1)], "int8", [], {"BlockSize": 2},
               "DepthToSpaceOptions"), "not a multiple of block_size", True),
        (model("SPACE_TO_DEPTH", x4, [(2, 1, 2, 20)], "int8", [], {"BlockSize": 2},
               "SpaceToDepthOptions"), "multiples of block_size", True),
        (model("SPACE_TO_DEPTH", x4, [x4.shape], "int8", [], {"BlockSize": 0},
               "SpaceToDepthOptions"), "at least 1", True),
        (gather(np.array([0, 2], np.int64)), "Positions of type 'int64' are not supported",
         True),
        (gather(np.array([0, 3], i32)), "outside the axis of 3", False),
        (gather(np.array([[0], [1]], i32), BatchDims=1), "batch_dims 1 is not supported",
         False),
        (mirror([[0, 0], [3, 0], [0, 0], [0, 0]], 0), "at most 2 on axis 1 in REFLECT", False),
        (mirror([[0, 0], [0, 0], [0, 0], [0, 6]], 1), "at most 5 on axis 3 in SYMMETRIC",
         False),
    ]


def test_refused_with_the_reason():
    for data, reason, tflm_refuses in _refused():
        with pytest.raises(TFLiteImportError, match=reason):
            import_tflite(data, tests=0)
        if tflm_refuses:
            with pytest.raises(TFLMError):
                run_tflm_child(data, [[np.zeros(_input_shape(data), np.int8)]], 1, ARENA)


def _input_shape(data):
    from burn.host.importers.tflite_read import read_tflite

    tf = read_tflite(data)
    return tf.tensors[tf.inputs[0]].shape


def _strided_graph(offset, dims, strides, out=(4,)):
    tensors = [GraphTensor("x", (2, 3), "int8", 0.1, 0), GraphTensor("y", out, "int8", 0.1, 0)]
    ops = [GraphOp("strided", [0], [1], params={"offset": offset, "dims": dims,
                                                "strides": strides})]
    return encode_bst(Graph(tensors, ops, [(0, (2, 3))], [(1, out)]))


@pytest.mark.parametrize("offset,dims,strides,reason", [
    (3, [1, 1, 1, 1, 2, 2], [0, 0, 0, 0, 3, 1], "reads elements 3 to 7 of an input of 6"),
    (1, [1, 1, 1, 1, 1, 4], [0, 0, 0, 0, 0, -1], "reads elements -2 to 1"),
    (0, [1, 1, 1, 1, 2, 3], [0, 0, 0, 0, 3, 1], "does not hold the output's 4 elements"),
    (6, [1, 1, 1, 1, 1, 4], [0, 0, 0, 0, 0, 0], "offset"),
    (0, [1, 1, 1, 1, 4], [0, 0, 0, 0, 1], "list of 6 integers"),
    (0, [1, 1, 1, 1, 1, 4], [0, 0, 0, 0, 0, 1 << 40], "strides"),
])
def test_bst_reader_refuses_reads_outside_the_input(offset, dims, strides, reason):
    with pytest.raises(ValueError, match=reason):
        burn.load(_strided_graph(offset, dims, strides))


def test_c_kernel_refuses_reads_outside_the_input(m0):
    x, y = np.arange(6, dtype=np.int8), np.zeros(4, np.int8)
    for kernels in (GraphKernels(), GraphKernels(m0)):
        kernels.strided_s8(x, y, 2, 1, 1, 1, 1, 2, 2, 0, 0, 0, 0, 2, 1)
        assert y.tolist() == [2, 3, 4, 5]
        for offset, s4, s5 in ((3, 3, 1), (0, 0, -1), (0, 1 << 20, 1)):
            with pytest.raises(ValueError, match="bad window"):
                kernels.strided_s8(x, y, offset, 1, 1, 1, 1, 2, 2, 0, 0, 0, 0, s4, s5)

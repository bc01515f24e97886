"""int32 tensors in .bst files: inputs given as a list of ints, array('i') or numpy int32,
outputs as ints, on the plain runtime and on flex; an arena plan of 4-byte items; and the
reader's checks of hostile int32 fields (arena size and tensor offsets beyond the arena,
int32 tensors fed to an op whose kernels do not take them)."""

from array import array

import numpy as np
import pytest
from test_bst_hostile import reencode

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.runtime import use_flex

IDS = [3, -7, 2**31 - 1, -2**31, 0, 12]


def _graph(kind="copy"):
    """int32 ids [2, 3] -> copy -> int32 [6], beside a float32 copy (two arenas)."""
    tensors = [GraphTensor("ids", (2, 3), "int32"), GraphTensor("out", (6,), "int32"),
               GraphTensor("x", (2,), "float32"), GraphTensor("y", (2,), "float32")]
    ops = [GraphOp(kind, [0], [1]), GraphOp("copy", [2], [3])]
    return Graph(tensors, ops, [(0, (2, 3)), (2, (2,))], [(1, (6,)), (3, (2,))])


GOOD = encode_bst(_graph())


@pytest.mark.parametrize("ids", [IDS, array("i", IDS), np.array(IDS, np.int32).reshape(2, 3),
                                 np.array(IDS, np.int64)])
def test_int32_inputs_and_outputs_are_exact_ints(ids):
    for model in (burn.load(GOOD, variant="plain"), use_flex(burn.load(GOOD))):
        out, y = model.run([ids, [0.5, -1.0]])
        assert list(out) == IDS and all(type(v) is int for v in out)
        assert list(y) == [0.5, -1.0]
        t = model([ids, [0.5, -1.0]])[0]
        assert t.dtype.name == "int32" and t.tolist() == IDS


def test_int32_tensors_have_an_arena_of_their_own():
    model = burn.load(GOOD)
    assert model.info()["inputs"][0]["dtype"] == "int32"
    assert model.info()["arena_bytes"] == 24 + 8  # in place: 6 int32 and 2 float32 items
    assert b'"arena_int32":24' in GOOD
    assert b"arena_int32" not in encode_bst(Graph(
        [GraphTensor("x", (2,), "float32"), GraphTensor("y", (2,), "float32")],
        [GraphOp("copy", [0], [1])], [(0, (2,))], [(1, (2,))]))  # old files stay as they were


def _set(key, value):
    def mutate(h):
        h[key] = value
    return mutate


def _tensor(index, name, value):
    def mutate(h):
        h["tensors"][index][name] = value
    return mutate


@pytest.mark.parametrize("mutate,reason", [
    (_set("arena_int32", 1 << 30), "int32 arena"),
    (_set("arena_int32", -4), "int32 arena"),
    (lambda h: h.pop("arena_int32"), "int32 arena of 0 bytes"),
    (_tensor(1, "arena", 4), "do not fit"),
    (_tensor(1, "arena", 2), "do not fit"),  # not a multiple of 4
    (_tensor(0, "shape", [1 << 24, 1 << 24]), "do not fit"),
    (_tensor(1, "dtype", "uint64"), "dtype must be one of"),
])
def test_hostile_int32_fields_are_refused(mutate, reason):
    with pytest.raises(ValueError, match=reason):
        burn.load(reencode(GOOD, mutate), max_arena=1 << 20)


@pytest.mark.parametrize("kind", ["relu", "logistic", "softmax", "unary"])
def test_int32_tensors_into_other_ops_are_refused(kind):
    with pytest.raises(ValueError, match="no int32 kernel for this op"):
        burn.load(encode_bst(_graph(kind)))


def test_bad_int32_input_is_a_clear_error():
    model = burn.load(GOOD, variant="plain")
    with pytest.raises(ValueError, match="expected 6 int32 values"):
        model.run([[1, 2], [0.0, 0.0]])

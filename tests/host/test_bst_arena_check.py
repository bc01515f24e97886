"""The `.bst` reader refuses an arena plan that overwrites a tensor still needed
(burn.graph.in_place): an op's output may overlap only its dying input, and no further than
the kernel reads ahead of where it writes. Every plan it accepts computes what the planned
file computes."""

import json
import struct
from array import array

import bst_fuzz_models
import pytest
from test_bst_hostile import reencode

import burn
from burn.graph.in_place import overlap_delta


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plans")
    return {name: open(make(folder / (name + ".bst")), "rb").read()
            for name, make in (("cnn", bst_fuzz_models.cnn), ("others", bst_fuzz_models.others))}


def _header(data):
    return json.loads(data[48:48 + struct.unpack_from("<I", data, 8)[0]])


def _moved(data, tid, offset):
    def move(h):
        h["tensors"][tid]["arena"] = offset
    return reencode(data, move)


def _run(data):
    model = burn.load(data, variant="plain")
    n = 1
    for d in model.info()["inputs"][0]["shape"]:
        n *= d
    return list(model.run(array("b", [(i * 37) % 256 - 128 for i in range(n)])))


def test_an_output_over_a_tensor_still_needed_is_refused(files):
    # others: op 1 adds tensor 1 to itself into tensor 2; op 2 reads tensor 1 again
    data = _moved(files["others"], 2, _header(files["others"])["tensors"][1]["arena"])
    with pytest.raises(ValueError, match=r"op 1 \(add\) writes tensor 2 over tensor 1, "
                                         r"which is still needed"):
        burn.load(data)


def test_a_strided_conv_over_its_own_input_is_refused(files):
    # cnn: op 0, a stride-2 conv, reads ahead of where it writes: its output may not start
    # where its input does
    head = _header(files["cnn"])
    data = _moved(files["cnn"], 0, head["tensors"][1]["arena"])
    with pytest.raises(ValueError, match=r"op 0 \(conv2d\) writes tensor 1 at arena offset "
                                         r"\d+ over its input tensor 0"):
        burn.load(data)


def _delta(head, op):
    o = head["ops"][op]
    x, y = head["tensors"][o["in"][0]], head["tensors"][o["out"][0]]
    return overlap_delta(o["op"], o["params"], x["shape"], y["shape"], 1)


def test_in_place_overlap_is_accepted_exactly_as_far_as_the_kernel_allows(files):
    """cnn: op 1, a depthwise conv, writes tensor 2 (128 bytes) over its input tensor 1 (at
    128 in a 192-byte arena), and op 2, an average pool, writes tensor 3 (at 0) over tensor
    2. Every offset of tensor 2 is tried: those both kernels allow load and compute the
    planned result, the others are refused naming the op, the tensors and the distance."""
    grown = bytearray(files["cnn"])
    struct.pack_into("<I", grown, 28, 192)  # the int8 arena, 32 bytes more
    data = _moved(bytes(grown), 1, 128)  # tensor 1 moves up with the arena's end
    head = _header(data)
    at1, at3 = head["tensors"][1]["arena"], head["tensors"][3]["arena"]
    depthwise, pool = _delta(head, 1), _delta(head, 2)
    assert depthwise > 0 and pool > 0
    expected = _run(data)
    accepted = refused = 0
    for offset in range(0, 192 - 128 + 1):
        moved = _moved(data, 2, offset)
        if offset + depthwise > at1:
            message = (r"op 1 \(depthwise_conv2d\) writes tensor 2 at arena offset %d over its "
                       r"input tensor 1 at %d: .* at least %d bytes" % (offset, at1, depthwise))
        elif at3 + pool > offset:
            message = (r"op 2 \(avg_pool2d\) writes tensor 3 at arena offset %d over its input "
                       r"tensor 2 at %d: .* at least %d bytes" % (at3, offset, pool))
        else:
            assert _run(moved) == expected, offset
            accepted += 1
            continue
        with pytest.raises(ValueError, match=message):
            burn.load(moved)
        refused += 1
    assert accepted >= 8 and refused >= 8, (accepted, refused)


def _in_place(data, op):
    """`data` with op `op` writing its output over its own input (the next op reads it)."""
    def edit(h):
        tid = h["ops"][op]["in"][0]
        h["ops"][op + 1]["in"] = [tid]
        h["ops"][op]["out"] = [tid]
    return reencode(data, edit)


def test_an_op_writes_over_itself_only_where_its_kernel_may(files):
    # others: op 12 clamps tensor 12 into 13 (elementwise: delta 0); op 10, a softmax,
    # reads its whole row before it writes it
    data = files["others"]
    assert _run(_in_place(data, 12)) == _run(data)
    with pytest.raises(ValueError, match=r"op 10 \(softmax\) writes tensor 10 over itself"):
        burn.load(_in_place(data, 10))

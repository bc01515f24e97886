"""int64, uint8 and uint32 tensors (plain integers, docs/bst-format.md) on both
interpreters: each has an arena of its own ('q', 'B' and 'I' arrays), moves carry their
values whole (beyond int32, beyond int8), a reference test checks them, and a file that
misaligns them or gives a variable a rest value beyond their range is refused.

The model, encoded by bst_encode.py: concat of an int64 input with itself, a uint32 input
reversed (strided), a uint8 input copied, and the int64 input compared with a constant
(GREATER, on burn.graph.s32_arith's Python kernel: int8 0/1 out).
"""

import struct
from array import array

from bst_encode import encode

import burn
from burn.graph.logic import OPS

BIG = [(1 << 62) + 5, -(1 << 40), -1]
U32 = [4294967295, 1 << 31, 7, 0]
U8 = [255, 128, 1]


def _model(tensor3=None, rest=None):
    """The model's bytes; `tensor3` updates tensor 3's entry, `rest` adds a uint8
    variable of that rest value."""
    t = [{"shape": [3], "dtype": "int64", "arena": 0},
         {"shape": [4], "dtype": "uint32", "arena": 0},
         {"shape": [3], "dtype": "uint8", "arena": 0},
         {"shape": [6], "dtype": "int64", "arena": 24},
         {"shape": [4], "dtype": "uint32", "arena": 16},
         {"shape": [3], "dtype": "uint8", "arena": 3},
         {"shape": [3], "dtype": "int8", "arena": 0}]
    t[3].update(tensor3 or {})
    header = {"tensors": t, "arena_int64": 72, "arena_uint32": 32, "arena_uint8": 6,
              "ops": [{"op": "concat", "in": [0, 0], "out": [3],
                       "params": {"outer": 1, "inner_sizes": [3, 3]}},
                      {"op": "strided", "in": [1], "out": [4],
                       "params": {"offset": 3, "dims": [1, 1, 1, 1, 1, 4],
                                  "strides": [0, 0, 0, 0, 0, -1]}},
                      {"op": "copy", "in": [2], "out": [5]},
                      {"op": "compare", "in": [0], "out": [6], "consts": {"b": 6},
                       "params": {"op": OPS.index("GREATER")}}],
              "inputs": [{"tensor": k, "shape": t[k]["shape"]} for k in (0, 1, 2)],
              "outputs": [{"tensor": k, "shape": t[k]["shape"]} for k in (3, 4, 5, 6)],
              "tests": [{"inputs": [0, 1, 2], "outputs": [3, 4, 5, 7]}]}
    if rest is not None:
        header["variables"] = [{"name": "v", "shape": [2], "dtype": "uint8", "rest": rest}]
    blobs = [("int64", [3], struct.pack("<3q", *BIG)), ("uint32", [4], struct.pack("<4I", *U32)),
             ("uint8", [3], bytes(U8)), ("int64", [6], struct.pack("<6q", *(BIG + BIG))),
             ("uint32", [4], struct.pack("<4I", *U32[::-1])), ("uint8", [3], bytes(U8)),
             ("int64", [1], struct.pack("<q", -(1 << 40))), ("int8", [3], bytes([1, 0, 1]))]
    return encode(header, blobs, 3)


def _refused(data, words):
    try:
        burn.load(data)
    except ValueError as e:
        assert words in str(e), str(e)
        return
    raise AssertionError("no ValueError")


def test_moves_carry_plain_integers_whole():
    m = burn.load(_model())
    y, v, c, g = m.run([array("q", BIG), array("I", U32), bytes(U8)])
    assert list(y) == BIG + BIG and list(v) == U32[::-1] and list(c) == U8
    assert list(g) == [1, 0, 1]  # BIG > -2**40
    assert m.self_test() == 1
    assert [o["dtype"] for o in m.info()["outputs"]] == ["int64", "uint32", "uint8", "int8"]
    assert m.arena_bytes == 72 + 32 + 6 + 3
    out = m([array("q", BIG), array("I", U32), bytes(U8)])
    assert [t.dtype for t in out[:3]] == [burn.dtype.int64, burn.dtype.uint32, burn.dtype.uint8]
    assert out[0].tolist() == BIG + BIG


def test_bad_plain_integer_tensors_are_refused():
    _refused(_model({"arena": 4}), "tensor 3")  # int64 at an offset that is not 8-aligned
    _refused(_model({"dtype": "uint64"}), "dtype must be one of")
    _refused(_model(rest=256), "variable 0 rest")
    _refused(_model(rest=-1), "variable 0 rest")
    _refused(_model(rest=255), "never assigned")  # the rest value passes, the rest not

"""Hostile .bst files: truncation, bit flips and absurd sizes always give a clear ValueError,
in bounded memory and time (MicroPython runs the same kind of checks in
tests/core/test_bst_reader.py)."""

import binascii
import json
import struct
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst

HOSTILE = settings(max_examples=150, deadline=2000,
                   suppress_health_check=[HealthCheck.too_slow])


def fc_model():
    """x[1, 8] -> fully connected (int8, per-channel) -> copy -> y[4]."""
    rng = np.random.default_rng(0)
    tensors = [GraphTensor("x", (1, 8), "int8", 0.1, 3), GraphTensor("h", (1, 4), "int8", 0.2, -2),
               GraphTensor("y", (4,), "int8", 0.2, -2)]
    consts = {"w": rng.integers(-127, 128, (4, 8)).astype(np.int8),
              "bias": rng.integers(-50, 50, 4).astype(np.int32),
              "mult": np.full(4, 1 << 30, np.int32), "shift": np.full(4, -3, np.int32)}
    ops = [GraphOp("fully_connected", [0], [1], consts,
                   {"in_zp": 3, "out_zp": -2, "act_min": -128, "act_max": 127}),
           GraphOp("copy", [1], [2])]
    x = rng.integers(-128, 128, (1, 8)).astype(np.int8)
    return Graph(tensors, ops, [(0, (1, 8))], [(2, (4,))], tests=[([x], [np.zeros(4, np.int8)])])


GOOD = encode_bst(fc_model())


def reencode(data, mutate, edit_text=None):
    """`data` with its JSON header changed by `mutate(header)`, then its text by
    `edit_text(text)`, and valid checksums."""
    fields = list(struct.unpack("<4sHHII8I", data[:48]))
    hlen, doff = fields[3], fields[5]
    header = json.loads(data[48:48 + hlen])
    mutate(header)
    text = json.dumps(header).encode()
    if edit_text is not None:
        text = edit_text(text)
    new_doff = (48 + len(text) + 15) // 16 * 16
    fields[3], fields[5] = len(text), new_doff
    rest = struct.pack("<8I", *fields[5:])
    pad = bytes(new_doff - 48 - len(text))
    fields[4] = binascii.crc32(rest + text + pad)
    return struct.pack("<4sHHII", *fields[:5]) + rest + text + pad + data[doff:]


def _assert_value_error(data):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError):
            burn.load(data)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(data) + (1 << 20), "reader used %d bytes" % peak


def _requantized(acc, out_zp):
    """TFLM's MultiplyByQuantizedMultiplier(acc, 1 << 30, -3) + out_zp, clamped to int8:
    the rounding doubling high half, then a rounding shift right by 3."""
    product = acc * (1 << 30)
    nudged = product + ((1 << 30) if product >= 0 else 1 - (1 << 30))
    high = nudged // (1 << 31) if nudged >= 0 else -(-nudged // (1 << 31))  # C truncation
    shifted = (high >> 3) + (1 if (high & 7) > 3 + (high < 0) else 0)
    return min(127, max(-128, shifted + out_zp))


def test_good_file_loads_and_computes_the_layer():
    graph = fc_model()
    fc = graph.ops[0].consts
    x = np.arange(8, dtype=np.int8)
    acc = fc["w"].astype(np.int64) @ (x.astype(np.int64) - 3) + fc["bias"]
    want = [_requantized(int(a), -2) for a in acc]
    assert len(set(want)) > 1  # the layer's outputs differ (not all clamped)
    assert list(burn.load(GOOD).run(x)) == want


@HOSTILE
@given(st.integers(min_value=0, max_value=len(GOOD) - 1))
def test_truncated_file(n):
    _assert_value_error(GOOD[:n])


@HOSTILE
@given(st.lists(st.integers(min_value=0, max_value=len(GOOD) * 8 - 1), min_size=1,
                max_size=3, unique=True))
def test_flipped_bits(bits):
    data = bytearray(GOOD)
    for bit in bits:
        data[bit // 8] ^= 1 << (bit % 8)
    _assert_value_error(bytes(data))


_HUGE = st.one_of(st.integers(min_value=1 << 24, max_value=1 << 70),
                  st.integers(max_value=-(1 << 24), min_value=-(1 << 40)),
                  st.just(None), st.just("x"), st.just(1.5), st.just([]), st.just({}))


def _set_path(header, path, value):
    node = header
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


_PATHS = [("tensors", 0, "shape", 1), ("tensors", 1, "arena"), ("tensors", 0, "dtype"),
          ("tensors", 2, "zero_point"), ("blobs", 0, 1), ("blobs", 1, 0), ("blobs", 0, 3, 0),
          ("ops", 0, "in", 0), ("ops", 0, "consts", "w"), ("ops", 0, "params", "in_zp"),
          ("ops", 0, "params", "act_max"), ("ops", 1, "out", 0), ("inputs", 0, "tensor"),
          ("outputs", 0, "shape", 0), ("tests", 0, "inputs", 0), ("ops", 0, "op"),
          ("ops",), ("tensors",), ("blobs",)]


@HOSTILE
@given(st.sampled_from(_PATHS), _HUGE)
def test_absurd_header_values(path, value):
    _assert_value_error(reencode(GOOD, lambda h: _set_path(h, path, value)))


@pytest.mark.parametrize("field,value", [(8, 1 << 31), (9, (4 << 30) - 4), (10, 1 << 30),
                                         (11, 7), (3, 1 << 30)])
def test_absurd_fixed_header_sizes(field, value):
    fields = list(struct.unpack("<4sHHII8I", GOOD[:48]))
    fields[field] = value
    rest = struct.pack("<8I", *fields[5:])
    doff = fields[5]
    fields[4] = binascii.crc32(rest + GOOD[48:doff])
    data = struct.pack("<4sHHII", *fields[:5]) + rest + GOOD[48:]
    _assert_value_error(data)


def test_hostile_file_in_file_mode(tmp_path):
    path = tmp_path / "bad.bst"
    path.write_bytes(GOOD[:-1])
    with pytest.raises(ValueError, match="size"):
        burn.load(str(path))
    with open(path, "rb") as f, pytest.raises(ValueError):
        burn.load(f)


def _mul_model(shift):
    tensors = [GraphTensor(n, (4,), "int8", 0.1, -3) for n in ("a", "b", "y")]
    op = GraphOp("mul", [0, 1], [2], params={"a_zp": -3, "b_zp": -3, "out_zp": -3,
                                             "mult": 1 << 30, "shift": shift,
                                             "act_min": -128, "act_max": 127})
    return encode_bst(Graph(tensors, [op], [(0, (4,)), (1, (4,))], [(2, (4,))]))


def test_a_mul_shift_that_overflows_int32_is_refused():
    """The C kernels wrap a left-shifted product that the Python ones keep exact: a shift
    beyond 15 would make the runtimes disagree (found by the .bst fuzz)."""
    burn.load(_mul_model(15))
    with pytest.raises(ValueError, match=r"op 0 \(mul\) shift"):
        burn.load(_mul_model(16))

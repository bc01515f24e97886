"""The .bst reader and runtime on both interpreters, with model files encoded here.

The files come from the tiny encoder of bst_encode.py. The model is an int8 fully connected
layer whose weights are the identity and whose requantization multiplier is exactly 1.0
(mult 2**30, shift 1), followed by a reshape copy, so its output must equal its input
clamped to [act_min, act_max].
"""

import gc
import os
import struct
from array import array

from bst_encode import encode

import burn


def _i32(values):
    return struct.pack("<%di" % len(values), *values)


def identity_model(n=4, lo=-100, hi=100, w_shape=None):
    """The identity fc model of n features described in the module docstring."""
    w = bytearray(n * n)
    for i in range(n):
        w[i * n + i] = 1
    blobs = [("int8", w_shape or [n, n], bytes(w)), ("int32", [n], _i32([0] * n)),
             ("int32", [n], _i32([1 << 30] * n)), ("int32", [n], _i32([1] * n)),
             ("int8", [1, n], bytes(range(n))), ("int8", [1, n], bytes(range(n)))]
    tensors = [{"shape": [1, n], "dtype": "int8", "scale": 0.5, "zero_point": 0,
                "arena": 0, "name": "x"},
               {"shape": [1, n], "dtype": "int8", "scale": 0.5, "zero_point": 0,
                "arena": n, "name": "h"},
               {"shape": [n], "dtype": "int8", "scale": 0.5, "zero_point": 0, "arena": 0,
                "name": "y"}]
    ops = [{"op": "fully_connected", "in": [0], "out": [1],
            "consts": {"w": 0, "bias": 1, "mult": 2, "shift": 3},
            "params": {"in_zp": 0, "out_zp": 0, "act_min": lo, "act_max": hi}},
           {"op": "copy", "in": [1], "out": [2]}]
    header = {"tensors": tensors, "ops": ops, "inputs": [{"tensor": 0, "shape": [1, n]}],
              "outputs": [{"tensor": 2, "shape": [n]}],
              "tests": [{"inputs": [4], "outputs": [5]}], "labels": ["a", "b", "c", "d"],
              "metadata": {"name": "identity"}}
    return encode(header, blobs, arena8=2 * n, layer8=n * n, layer32=48 + 4 * n)


def _raises_value_error(data):
    try:
        burn.load(data)
    except ValueError:
        return True
    return False


def test_identity_model_runs_from_bytes():
    m = burn.load(identity_model())
    x = array("b", [5, -7, 120, -128])
    assert list(m.run(x)) == [5, -7, 100, -100]
    assert m.arena_bytes == 8
    assert m.self_test() == 1
    info = m.info()
    assert info["params"] == 20 and info["macs"] == 16
    assert info["labels"] == ["a", "b", "c", "d"] and info["metadata"]["name"] == "identity"
    assert info["outputs"][0]["shape"] == (4,)


def test_call_returns_a_tensor():
    m = burn.load(identity_model())
    y = m(burn.tensor([[1, 2, 3, 4]], dtype=burn.int8))
    assert y.shape == (4,) and y.dtype is burn.int8
    assert y.tolist() == [1, 2, 3, 4]


def test_open_file_reads_layers_into_one_buffer():
    path = "bst_reader_test.bst"
    with open(path, "wb") as f:
        f.write(identity_model())
    try:
        m = burn.load(path)
        assert m.layer_bytes == 16 + 48 + 16
        assert list(m.run(array("b", [9, 8, -1, 0]))) == [9, 8, -1, 0]
        assert m.self_test() == 1
        m.close()
    finally:
        os.remove(path)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def test_a_relative_name_is_looked_for_in_romfs_too():
    from burn import bst

    rom = os.getcwd() + "/bst_rom_test"
    os.mkdir(rom)
    saved = bst.ROM_DIR
    bst.ROM_DIR = rom  # stands for /rom, where a board mounts its ROMFS partition
    try:
        _write(rom + "/only_in_rom.bst", identity_model(lo=-5))
        _write(rom + "/in_both.bst", identity_model(lo=-5))
        _write("in_both.bst", identity_model())
        x = array("b", [9, 8, -100, 0])
        assert list(burn.load("only_in_rom.bst").run(x)) == [9, 8, -5, 0]
        assert list(burn.load("in_both.bst").run(x)) == [9, 8, -100, 0]  # cwd first
        for name in ("/only_in_rom.bst", "nowhere.bst"):  # absolute: no second place
            try:
                burn.load(name)
            except OSError:
                pass
            else:
                raise AssertionError("%s was found" % name)
    finally:
        bst.ROM_DIR = saved
        for path in (rom + "/only_in_rom.bst", rom + "/in_both.bst", "in_both.bst"):
            os.remove(path)
        os.rmdir(rom)


def test_second_inference_allocates_nothing():
    m = burn.load(identity_model())
    x = array("b", [1, 2, 3, 4])
    m.run(x)
    gc.collect()
    before = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    m.run(x)
    after = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    assert after == before


def test_wrong_input_size_is_a_value_error():
    m = burn.load(identity_model())
    try:
        m.run(array("b", [1, 2, 3]))
    except ValueError as e:
        assert "expected 4" in str(e)
    else:
        raise AssertionError("no error")


def test_every_truncation_is_a_value_error():
    data = identity_model()
    for n in range(0, len(data), 7):
        assert _raises_value_error(data[:n]), n


def test_every_bit_flip_is_a_value_error():
    data = identity_model()
    for pos in range(0, len(data), 5):
        flipped = bytearray(data)
        flipped[pos] ^= 1 << (pos % 8)
        assert _raises_value_error(bytes(flipped)), pos


def test_bad_magic_and_version():
    assert _raises_value_error(b"not a model at all, just text" * 3)
    header = {"tensors": [], "ops": [], "inputs": [], "outputs": []}
    assert _raises_value_error(encode(header, [], 0, magic=b"\x89BSU"))
    assert _raises_value_error(encode(header, [], 0, version=2))


def test_absurd_sizes_are_rejected_before_allocating():
    huge = encode({"tensors": [], "ops": [], "inputs": [], "outputs": []}, [], 1 << 31)
    assert _raises_value_error(huge)
    try:
        burn.load(identity_model(), max_arena=4)
    except ValueError as e:
        assert "arena" in str(e)
    else:
        raise AssertionError("no error")


def test_op_shape_mismatch_names_the_op():
    try:
        burn.load(identity_model(w_shape=[2, 8]))
    except ValueError as e:
        assert "op 0 (fully_connected)" in str(e)
    else:
        raise AssertionError("no error")

"""Creating tensors, dtypes, conversions back to Python, repr, devices."""

from checks import assert_close, assert_message, raises

import burn


def test_dtype_inference_from_python_data():
    assert burn.tensor([1.0, 2]).dtype is burn.float32
    assert burn.tensor([1, 2]).dtype is burn.int32
    assert burn.tensor([True, False]).dtype is burn.bool_
    assert burn.tensor([True, 2]).dtype is burn.int32
    assert burn.tensor(3.5).dtype is burn.float32
    assert burn.bool is burn.bool_


def test_nested_lists_give_shape_and_values():
    t = burn.tensor([[1, 2, 3], [4, 5, 6]])
    assert t.shape == (2, 3)
    assert t.ndim == 2
    assert t.numel() == 6
    assert len(t) == 2
    assert t.size() == (2, 3)
    assert t.size(-1) == 3
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert burn.tensor(((1.5,), (2.5,))).tolist() == [[1.5], [2.5]]
    assert burn.tensor([]).shape == (0,)
    assert burn.tensor([[], []]).shape == (2, 0)


def test_scalar_tensor_and_item():
    t = burn.tensor(7)
    assert t.shape == ()
    assert t.item() == 7
    assert t.tolist() == 7
    assert burn.tensor([2.5]).item() == 2.5
    assert burn.tensor([True]).item() is True
    assert float(burn.tensor(1.5)) == 1.5
    assert int(burn.tensor([[3]])) == 3
    assert_message(ValueError, "item: a tensor of 2 elements has no single value",
                   burn.tensor([1, 2]).item)


def test_values_round_to_float32_and_ints_convert():
    assert burn.tensor([0.1]).item() != 0.1  # stored as float32
    assert_close(burn.tensor([0.1]).item(), 0.1, 1e-7)
    assert burn.tensor([1.9, -1.9], dtype=burn.int32).tolist() == [1, -1]
    assert burn.tensor([0, 2, -1], dtype=burn.bool).tolist() == [False, True, True]
    assert burn.tensor([-128, 127], dtype=burn.int8).tolist() == [-128, 127]
    assert burn.tensor([255], dtype="uint8").tolist() == [255]


def test_creation_errors():
    assert_message(ValueError, "tensor: value 128 is out of range for burn.int8",
                   burn.tensor, [1, 128], burn.int8)
    assert_message(ValueError, "tensor: ragged nested sequence at dim 1 (expected length 2, "
                   "got 1)", burn.tensor, [[1, 2], [3]])
    assert_message(TypeError, "tensor: unsupported element of type str", burn.tensor, ["a"])
    assert_message(TypeError, "tensor: unknown dtype 'float64'", burn.tensor, [1], "float64")
    assert_message(ValueError, "zeros: invalid shape (2, -1)", burn.zeros, (2, -1))


def test_filled_tensors():
    assert burn.zeros((2, 3)).tolist() == [[0.0] * 3] * 2
    assert burn.ones(2, dtype=burn.int8).tolist() == [1, 1]
    f = burn.full((2,), 7)
    assert f.dtype is burn.int32 and f.tolist() == [7, 7]
    assert burn.full((1,), 0.5).dtype is burn.float32
    x = burn.tensor([[1, 2]], dtype=burn.int8)
    z = burn.zeros_like(x)
    assert z.shape == (1, 2) and z.dtype is burn.int8 and z.tolist() == [[0, 0]]
    assert burn.ones_like(x, dtype=burn.float32).tolist() == [[1.0, 1.0]]
    assert burn.full_like(x, 3).tolist() == [[3, 3]]


def test_arange_and_eye():
    assert burn.arange(4).tolist() == [0, 1, 2, 3]
    assert burn.arange(4).dtype is burn.int32
    assert burn.arange(2, 11, 3).tolist() == [2, 5, 8]
    assert burn.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert burn.arange(3, 1).tolist() == []
    a = burn.arange(0, 1, 0.25)
    assert a.dtype is burn.float32 and a.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert burn.arange(3, dtype=burn.float32).tolist() == [0.0, 1.0, 2.0]
    assert_message(ValueError, "arange: step must not be zero", burn.arange, 0, 3, 0)
    assert burn.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert burn.eye(2, 3, dtype=burn.int32).tolist() == [[1, 0, 0], [0, 1, 0]]


def test_from_bytes_little_endian():
    t = burn.from_bytes(b"\x01\x00\x00\x00\xff\xff\xff\xff", (2,), burn.int32)
    assert t.tolist() == [1, -1]
    t = burn.from_bytes(bytearray(b"\x00\x00\x80\x3f"), (1, 1), burn.float32)
    assert t.tolist() == [[1.0]]
    assert burn.from_bytes(memoryview(b"\x80\x7f"), 2, burn.int8).tolist() == [-128, 127]
    assert_message(ValueError, "from_bytes: 3 bytes do not fill shape (1,) of burn.float32 "
                   "(4 bytes)", burn.from_bytes, b"abc", (1,), burn.float32)


def test_tensor_from_tensor_copies_and_converts():
    a = burn.tensor([1, 2])
    b = burn.tensor(a)
    assert b is not a and b.tolist() == [1, 2]
    c = burn.tensor(a, dtype=burn.float32)
    assert c.dtype is burn.float32 and c.tolist() == [1.0, 2.0]


def test_casts():
    x = burn.tensor([-1.5, 0.0, 2.7])
    assert x.int().tolist() == [-1, 0, 2]
    assert x.bool().tolist() == [True, False, True]
    assert x.to(burn.int8).dtype is burn.int8
    assert x.int().float().tolist() == [-1.0, 0.0, 2.0]
    assert x.to(burn.float32) is x
    assert burn.tensor([300]).to(burn.uint8).tolist() == [44]  # wraps like C


def test_repr_is_compact_and_elided():
    assert repr(burn.tensor([[1.0, 2.0]])) == "tensor([[1.0, 2.0]], dtype=burn.float32)"
    assert repr(burn.tensor([1, -2], dtype=burn.int8)) == "tensor([1, -2], dtype=burn.int8)"
    assert repr(burn.tensor(True)) == "tensor(True, dtype=burn.bool)"
    assert repr(burn.tensor([0.5, 1e-9])) == "tensor([0.5, 1e-09], dtype=burn.float32)"
    text = repr(burn.arange(2000))
    assert text == "tensor([0, 1, 2, ..., 1997, 1998, 1999], dtype=burn.int32)"


def test_devices():
    d = burn.device("pure")
    assert d == burn.Device("pure") and d.name == "pure"
    assert repr(d) == "device('pure')"
    x = burn.tensor([1, 2], device="pure")
    assert x.device == d
    assert x.to("pure") is x
    assert x.to(d, burn.float32).tolist() == [1.0, 2.0]
    e = raises(ValueError, burn.device, "nosuch")
    assert str(e).startswith("unknown backend 'nosuch'")


def test_bool_of_tensors():
    assert bool(burn.tensor([1]))
    assert not bool(burn.tensor([0.0]))
    e = raises(ValueError, bool, burn.tensor([1, 2]))
    assert str(e).startswith("bool: the truth value of a tensor of 2 elements is ambiguous")


def test_grad_attributes_default():
    x = burn.tensor([1.0])
    assert x.requires_grad is False and x.grad is None
    assert x.requires_grad_() is x and x.requires_grad is True

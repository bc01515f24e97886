# Runs ON the board (MicroPython-safe): the burn core imported from the board's flash.
import gc

import burn


def test_core_imports_from_flash():
    # uploaded .mpy files in /lib/burn, or bytecode frozen into the firmware (relative path)
    assert burn.__file__.startswith("/lib/burn") or not burn.__file__.startswith("/")


def test_tensor_arithmetic():
    x = burn.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert x.shape == (2, 2)
    assert x.relu().tolist() == [[1.0, 0.0], [3.0, 4.0]]
    assert (x * 2).sum().item() == 12.0
    assert x.reshape((4,)).tolist() == [1.0, -2.0, 3.0, 4.0]


def test_int8_tensor_keeps_its_dtype():
    x = burn.tensor([1, -128, 127], dtype=burn.int8)
    assert x.dtype == burn.int8
    assert x.tolist() == [1, -128, 127]


def test_float_tensor_storage_is_compact():
    # 1000 float32 values must cost about 4 KB of heap, not a list of boxed floats.
    gc.collect()
    before = gc.mem_alloc()
    x = burn.zeros((1000,))
    gc.collect()
    used = gc.mem_alloc() - before
    assert x.shape == (1000,)
    assert 4000 <= used < 16000, used

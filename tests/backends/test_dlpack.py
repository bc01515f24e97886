"""DLPack interchange (burn.host.from_dlpack, Tensor.__dlpack__): burn tensors share memory
with numpy and PyTorch on the CPU, and with CuPy and PyTorch on a GPU (skipped without
one)."""

import numpy as np
import pytest

import burn
import burn.host
from burn.host import from_dlpack
from burn.host.autodiff import autodiff_device

torch = pytest.importorskip("torch", reason="PyTorch missing: pip install torch")

CPU_DEVICES = ("numpy", "autodiff<numpy>", "fusion<numpy>")


def _device(name):
    return autodiff_device("numpy") if name == "autodiff<numpy>" else burn.device(name)


@pytest.mark.parametrize("name", CPU_DEVICES)
def test_numpy_sees_writes_to_burn_storage(name):
    t = burn.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=_device(name))
    a = np.from_dlpack(t)
    assert a.shape == (2, 3) and a.dtype == np.float32
    a[1, 2] = -7.5
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, -7.5]]


@pytest.mark.parametrize("name", CPU_DEVICES)
def test_burn_sees_writes_to_torch_memory(name):
    src = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = from_dlpack(src, device=name)
    assert t.shape == (3, 4) and t.device.name == name
    src[2, 1] = 100.0
    assert t.tolist()[2][1] == 100.0
    assert (t * 2).sum().item() == 2 * float(src.sum())


def test_torch_sees_burn_storage_and_round_trips():
    t = burn.tensor([1.0, 2.0], device="numpy")
    back = torch.from_dlpack(t)
    back[0] = 9.0
    assert t.tolist() == [9.0, 2.0]
    assert from_dlpack(back).tolist() == [9.0, 2.0]


@pytest.mark.parametrize("np_dtype, dtype", [
    (np.float32, burn.float32), (np.int8, burn.int8), (np.uint8, burn.uint8),
    (np.int32, burn.int32), (np.bool_, burn.bool_)])
def test_every_burn_dtype_crosses_both_ways(np_dtype, dtype):
    a = np.array([[0, 1, 3], [1, 0, 2]]).astype(np_dtype)
    t = from_dlpack(a)
    assert t.dtype is dtype and t.tolist() == a.tolist()
    assert np.from_dlpack(t).dtype == a.dtype
    assert np.shares_memory(np.from_dlpack(t), a)


def test_strided_input_is_copied_unless_copy_false():
    src = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()
    t = from_dlpack(src)
    assert t.tolist() == src.tolist()
    src[0, 0] = 50.0
    assert t.tolist()[0][0] == 0.0
    with pytest.raises(ValueError, match="not row-major"):
        from_dlpack(src, copy=False)
    a = np.ones(3, dtype=np.float32)
    assert not np.shares_memory(np.from_dlpack(from_dlpack(a, copy=True)), a)


def test_clear_errors():
    with pytest.raises(ValueError, match="int64 has no burn dtype"):
        from_dlpack(torch.arange(3))
    with pytest.raises(TypeError, match="expected an object with __dlpack__"):
        from_dlpack([1.0, 2.0])
    with pytest.raises(ValueError, match="cannot live on device 'pure'"):
        from_dlpack(np.ones(2, dtype=np.float32), device="pure")
    with pytest.raises(TypeError, match=r"no DLPack storage.*to\('numpy'\)"):
        np.from_dlpack(burn.tensor([1.0]))


@pytest.fixture(scope="module")
def cupy():
    try:
        from burn.host.backends import cupy_backend  # noqa: F401
    except ImportError as e:
        pytest.skip("cupy: %s (the GPU tests need CuPy and a CUDA GPU)" % e)
    import cupy

    return cupy


@pytest.mark.parametrize("name", ("cupy", "fusion<cupy>"))
def test_gpu_memory_is_shared_with_cupy_and_torch(cupy, name):
    src = cupy.arange(8, dtype=cupy.float32).reshape(2, 4)
    t = from_dlpack(src, device=name)
    src[1, 3] = -1.0
    assert t.tolist()[1][3] == -1.0
    if torch.cuda.is_available():
        view = torch.from_dlpack(t)
        assert view.is_cuda
        view[0, 0] = 42.0
        assert t.tolist()[0][0] == 42.0
    out = cupy.from_dlpack(t * 3)
    assert float(out[1, 3]) == -3.0

"""DLPack interchange: burn tensors to and from PyTorch, numpy, CuPy, JAX ... without copies.

A tensor on the numpy backend (CPU) or the cupy backend (CUDA), under any stack of
decorators (`autodiff<...>`, `fusion<...>`), *is* an array of that library, so it exports
that array's DLPack capsule: `np.from_dlpack(t)`, `torch.from_dlpack(t)` and
`cupy.from_dlpack(t)` see the same memory, and a write on one side shows on the other.
`from_dlpack(obj)` goes the other way. Importing the numpy backend installs
`Tensor.__dlpack__` and `Tensor.__dlpack_device__` (burn's core stays free of them: it
runs on microcontrollers, where no such library exists).
"""

import numpy as np

import burn
from burn import dtype as _dt
from burn.tensor import Tensor

_DTYPES = {np.dtype(np.float32): _dt.float32, np.dtype(np.int8): _dt.int8,
           np.dtype(np.uint8): _dt.uint8, np.dtype(np.int32): _dt.int32,
           np.dtype(np.bool_): _dt.bool_}
_CPU, _CUDA = 1, 2  # DLPack device types


def _base(backend):
    """The backends from `backend` inward, down to the one that owns the storage."""
    chain = [backend]
    while getattr(chain[-1], "inner", None) is not None:
        chain.append(chain[-1].inner)
    return chain


def storage(t):
    """(backend, handle) that hold `t`'s values under its decorators (Autodiff, Fusion);
    pending Fusion chains are run."""
    backend, h = t.backend, t.handle
    while getattr(backend, "inner", None) is not None:
        h = backend.unwrap(h)
        backend = backend.inner
    return backend, h


def native(t):
    """The numpy or CuPy array that stores `t`, in `t`'s shape: a view of its storage (a
    copy only where the backend holds the values in another layout, after a permute, say).
    Pending Fusion chains are run first."""
    backend, h = storage(t)
    if getattr(backend, "xp", None) is None:
        raise TypeError("DLPack: tensors on device " + repr(t.device.name) + " have no "
                        "DLPack storage; move the tensor first: t.to('numpy') or "
                        "t.to('cupy')")
    return h.reshape(t.shape)


def _dlpack(self, **kwargs):
    """A DLPack capsule sharing this tensor's memory (numpy and cupy backends)."""
    return native(self).__dlpack__(**kwargs)


def _dlpack_device(self):
    """(device type, device id) of this tensor's memory, as DLPack numbers it."""
    return native(self).__dlpack_device__()


def install():
    """Give burn's Tensor the DLPack protocol (done when the numpy backend is imported)."""
    Tensor.__dlpack__ = _dlpack
    Tensor.__dlpack_device__ = _dlpack_device


def from_dlpack(obj, device=None, copy=None):
    """A burn tensor sharing the memory of `obj` (anything with `__dlpack__`: a PyTorch,
    numpy, CuPy or JAX array).

    CPU memory becomes a `numpy` tensor, CUDA memory a `cupy` one, unless `device` names
    another device over the same backend (`"autodiff<numpy>"`, `"fusion<cupy>"`, ...).
    Storage must be row-major (burn has no strides): with `copy=None` a strided `obj` is
    copied, `copy=False` raises instead, `copy=True` always copies. The dtype must be one
    of burn's (float32, int8, uint8, int32, bool); convert others first.
    """
    if not hasattr(obj, "__dlpack_device__"):
        raise TypeError("from_dlpack: expected an object with __dlpack__ (a PyTorch, numpy "
                        "or CuPy array), got " + type(obj).__name__)
    kind = obj.__dlpack_device__()[0]
    if kind == _CPU:
        arr, base = np.from_dlpack(obj), "numpy"
    elif kind == _CUDA:
        try:
            import cupy
        except ImportError as e:
            raise ValueError("from_dlpack: CUDA memory needs CuPy "
                             "(pip install 'burn-micro[gpu]')") from e
        arr, base = cupy.from_dlpack(obj), "cupy"
    else:
        raise ValueError("from_dlpack: DLPack device type " + str(kind) + " is not "
                         "supported (CPU is 1, CUDA 2)")
    dtype = _DTYPES.get(np.dtype(arr.dtype))
    if dtype is None:
        raise ValueError("from_dlpack: dtype " + str(arr.dtype) + " has no burn dtype; "
                         "convert first (float32, int8, uint8, int32 or bool)")
    if copy or not arr.flags.c_contiguous:
        if copy is False:
            raise ValueError("from_dlpack: the array is not row-major, so sharing it "
                             "needs a copy; pass copy=None or copy=True")
        arr = arr.copy(order="C")
    dev = burn.device(device or base)
    chain = _base(dev.backend)
    if getattr(chain[-1], "xp", None) is None or chain[-1].xp.__name__ != base:
        raise ValueError("from_dlpack: " + base + " memory cannot live on device " +
                         repr(dev.name) + "; pick a device over the " + base + " backend")
    h = arr.reshape(-1)
    for backend in reversed(chain[:-1]):
        h = backend.wrap(h, h.size)
    return Tensor(h, tuple(arr.shape), dtype, dev)

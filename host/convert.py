"""Conversion between burn tensors and numpy arrays on the host, through raw bytes."""

import numpy as np

import burn

_NUMPY = {"float32": np.float32, "int8": np.int8, "uint8": np.uint8, "int32": np.int32,
          "bool": np.bool_}


def numpy_dtype(dtype):
    """The numpy dtype that stores a burn dtype."""
    return _NUMPY[dtype.name]


def to_tensor(a, device=None):
    """A burn tensor from a numpy array, through raw bytes (no Python lists). Floats
    become float32, bools bool, int8/uint8 keep their type, other integers int32."""
    a = np.asarray(a, order="C")
    if a.dtype.kind == "f":
        dtype = burn.float32
    elif a.dtype.kind == "b":
        dtype = burn.bool_
    elif a.dtype in (np.int8, np.uint8):
        dtype = burn.int8 if a.dtype == np.int8 else burn.uint8
    else:
        dtype = burn.int32
    a = a.astype(numpy_dtype(dtype))
    t = burn.from_bytes(a.tobytes(), a.shape, dtype)
    return t.to(device) if device is not None else t


def to_numpy(t, copy=True):
    """A numpy copy of a burn tensor on any device. With copy=False, a read-only view of
    the tensor's own storage where it already is a numpy array (numpy backend, under
    Autodiff or not), else a copy."""
    if not copy:
        handle = t.handle
        handle = getattr(handle, "value", handle)  # an Autodiff node's inner handle
        if isinstance(handle, np.ndarray) and handle.size == t.numel():
            view = handle.reshape(t.shape)
            view.flags.writeable = False
            return view
    raw = t.backend.to_bytes(t.handle, t.numel(), t.dtype)
    return np.frombuffer(raw, dtype=numpy_dtype(t.dtype)).reshape(t.shape).copy()

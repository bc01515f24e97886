"""The `cupy` backend: the numpy backend's primitives on a CUDA GPU through CuPy.

Registered as "cupy", "cuda" and "cuda:0" when this module is imported on a machine with
CuPy and a GPU (one GPU: the current CUDA device). Importing it elsewhere raises
ImportError with the reason.
"""

from burn import backend as _backend

from .numpy_backend import NumpyBackend

try:
    import cupy
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("the cupy backend needs CuPy (pip install 'burn-micro[gpu]')") from e

try:
    _GPUS = cupy.cuda.runtime.getDeviceCount()
except cupy.cuda.runtime.CUDARuntimeError as e:  # pragma: no cover
    raise ImportError("the cupy backend needs a CUDA GPU: " + str(e)) from e
if _GPUS < 1:  # pragma: no cover
    raise ImportError("the cupy backend needs a CUDA GPU; none was found")

BACKEND = _backend.register(NumpyBackend(xp=cupy, name="cupy"))
for _alias in ("cuda", "cuda:0"):
    _backend.register(NumpyBackend(xp=cupy, name=_alias))

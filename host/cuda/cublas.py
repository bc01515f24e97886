"""float32 matrix products through cuBLAS directly (ctypes), for the cupy backend.

CuPy refuses every cuBLAS call while a stream is being captured into a CUDA graph. This
handle of our own has a workspace set once, so cuBLAS allocates nothing during a capture
and its products can be recorded. The cupy backend uses it for float32 products inside
`direct_blas()` (graph recording enters it) or everywhere when `ALWAYS[0]` is True; outside,
CuPy's own matmul, which picked faster kernels for the convolutions measured here. Both are
float32 cuBLAS products, but their kernels may round differently: set ALWAYS[0] for a
recorded step that is bit for bit the direct one.
"""

import ctypes
import ctypes.util

import numpy as np

WORKSPACE = 32 << 20
_N, _T = 0, 1
ALWAYS = [False]
_ACTIVE = [0]
_SHARED = []


def shared(cupy):
    """The process's one `Blas` (made on first use, which must not be during a capture)."""
    if not _SHARED:
        _SHARED.append(Blas(cupy))
    return _SHARED[0]


class direct_blas:
    """Context manager: float32 products of the cupy backend go through `Blas` inside."""

    def __enter__(self):
        _ACTIVE[0] += 1
        return self

    def __exit__(self, *exc):
        _ACTIVE[0] -= 1
        return False


def active():
    """Whether float32 products go through `Blas` now."""
    return ALWAYS[0] or _ACTIVE[0] > 0


def _library():
    """libcublas as this process loaded it for CuPy, else as the linker finds it."""
    from cupy_backends.cuda.libs import cublas  # noqa: F401  (loads libcublas)

    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libcublas.so" in path:
                return ctypes.CDLL(path)
    name = ctypes.util.find_library("cublas")
    if name is None:
        raise ImportError("libcublas was not found")
    return ctypes.CDLL(name)


def _check(status, what):
    if status != 0:
        raise RuntimeError("cuBLAS %s failed with status %d" % (what, status))


class Blas:
    """One cuBLAS handle with its own workspace, following CuPy's current stream."""

    def __init__(self, cupy):
        self.cupy = cupy
        self.lib = lib = _library()
        self.handle = ctypes.c_void_p()
        _check(lib.cublasCreate_v2(ctypes.byref(self.handle)), "create")
        self.workspace = cupy.empty(WORKSPACE, dtype=np.uint8)
        _check(lib.cublasSetWorkspace_v2(self.handle, ctypes.c_void_p(self.workspace.data.ptr),
                                         ctypes.c_size_t(WORKSPACE)), "workspace")
        self.stream = None
        self.one, self.zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
        fn = lib.cublasSgemmStridedBatched
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                       ctypes.c_longlong, ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong,
                       ctypes.c_int]
        self.gemm = fn

    def matmul(self, a, b):
        """a [Ba, M, K] @ b [Bb, K, N] -> [max(Ba, Bb), M, N] (float32 CuPy arrays, a batch
        of 1 broadcasts)."""
        cp = self.cupy
        batch = max(a.shape[0], b.shape[0])
        m, k, n = a.shape[1], a.shape[2], b.shape[2]
        out = cp.empty((batch, m, n), dtype=np.float32)
        if out.size == 0 or k == 0:
            out[...] = 0
            return out
        stream = cp.cuda.get_current_stream().ptr
        if stream != self.stream:
            _check(self.lib.cublasSetStream_v2(self.handle, ctypes.c_void_p(stream)), "stream")
            self.stream = stream
        a, op_a, ld_a, stride_a = _operand(cp, a)
        b, op_b, ld_b, stride_b = _operand(cp, b)
        # Row-major C = A B is column-major C^T = B^T A^T: B comes first.
        _check(self.gemm(self.handle, op_b, op_a, n, m, k, ctypes.byref(self.one),
                         b.data.ptr, ld_b, stride_b, a.data.ptr, ld_a, stride_a,
                         ctypes.byref(self.zero), out.data.ptr, n, m * n, batch), "sgemm")
        return out


def _operand(cp, x):
    """(array, operation, leading dimension, batch stride in elements) of a [B, R, C]
    float32 operand: a row-major matrix as it is, a transposed view through the transpose
    operation, anything else copied to row-major first."""
    size = x.itemsize
    rows, cols = x.shape[1], x.shape[2]
    s0, s1, s2 = x.strides
    if not (s2 == size and (s1 == cols * size or rows == 1)) and \
            not (s1 == size and (s2 == rows * size or cols == 1)):
        x = cp.ascontiguousarray(x)
        s0, s1, s2 = x.strides
    batch_stride = 0 if x.shape[0] == 1 else s0 // size
    if s2 == size and (s1 == cols * size or rows == 1):
        return x, _N, max(cols, 1), batch_stride
    return x, _T, max(rows, 1), batch_stride

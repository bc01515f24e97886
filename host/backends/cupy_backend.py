"""The `cupy` backend: the numpy backend's primitives on a CUDA GPU through CuPy.

Registered as "cupy", "cuda" and "cuda:0" when this module is imported on a machine with
CuPy and a GPU (one GPU: the current CUDA device). Importing it elsewhere raises
ImportError with the reason. While a CUDA graph is recorded, float32 matrix products
(matmul, and the convolutions built on them) go through burn.host.cuda.cublas, whose
products a graph can hold (CuPy refuses cuBLAS calls during a capture).
"""

import numpy as np

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


class _InPlace:
    """A convolution's input kept for its weight gradient, whose kernel reads the windows
    from it in place (burn.host.cuda.conv)."""

    def __init__(self, x, stride, padding, dilation):
        self.x, self.stride, self.padding, self.dilation = x, stride, padding, dilation
        self.dtype = x.dtype  # numpy_conv reads the dtype of what it is given


class _CupyModule:
    """CuPy as the numpy backend sees it (`xp`), with float32 matmul through our cuBLAS
    handle when burn.host.cuda.cublas.active(), and the convolution windows of
    burn.host.cuda.windows (one kernel each) for numpy_conv."""

    __name__ = "cupy"

    def __init__(self):
        from ..cuda import conv, cublas, windows

        self.conv = conv
        self.cublas = cublas
        self.windows = windows

    def im2col(self, x, kernel, stride, padding, dilation, out_hw):
        """burn.host.cuda.windows.im2col."""
        return self.windows.im2col(cupy, x, kernel, stride, padding, dilation, out_hw)

    def scatter_windows(self, blocks, shape, kernel, stride, padding, dilation, out_hw):
        """burn.host.cuda.windows.scatter_windows."""
        return self.windows.scatter_windows(cupy, blocks, shape, kernel, stride, padding,
                                            dilation, out_hw)

    def conv2d_by_image(self, x, w, stride, padding, dilation, out_hw):
        """numpy_conv.conv2d_columns with one group: [n, o, oh, ow] as it comes, with no copy
        to move the channels; and the input's windows as grad_weight_by_image takes them.
        burn.host.cuda.conv's kernel reads the windows in place where it applies (the
        input itself is kept); elsewhere the product of the weights [o, K] with each image's
        columns [K, oh*ow] (a batched product) multiplies them (the columns are kept)."""
        n, (o, c, kh, kw) = x.shape[0], w.shape
        if self.conv.supported(x, w.shape, out_hw):
            out = self.conv.forward(cupy, x, w, stride, padding, dilation, out_hw)
            return out, _InPlace(x, stride, padding, dilation)
        cols = self._columns(x, (kh, kw), stride, padding, dilation, out_hw)
        out = self.matmul(w.reshape(1, o, c * kh * kw), cols)
        return out.reshape(n, o, out_hw[0], out_hw[1]), cols

    def grad_weight_by_image(self, g, windows, w_shape):
        """numpy_conv.conv2d_grad_weight_columns with one group from the windows
        conv2d_by_image or windows_by_image gave: burn.host.cuda.conv's kernel over the
        input, or per image g [o, oh*ow] times its columns transposed, summed over the
        batch (no copy of g to move its channels)."""
        if isinstance(windows, _InPlace):
            return self.conv.grad_weight(cupy, g, windows.x, w_shape, windows.stride,
                                         windows.padding, windows.dilation)
        n, o = g.shape[:2]
        per_image = self.matmul(g.reshape(n, o, -1), windows.transpose(0, 2, 1))
        return per_image.sum(axis=0).reshape(w_shape)

    def windows_by_image(self, x, w_shape, stride, padding, dilation, out_hw):
        """The windows of x as grad_weight_by_image takes them for weights of `w_shape`:
        x itself where burn.host.cuda.conv reads them in place, else columns [n, K, oh*ow]
        of each image."""
        if self.conv.supported(x, w_shape, out_hw):
            return _InPlace(x, stride, padding, dilation)
        return self._columns(x, tuple(w_shape[2:]), stride, padding, dilation, out_hw)

    def _columns(self, x, kernel, stride, padding, dilation, out_hw):
        """Columns [n, K, oh*ow] of each image (burn.host.cuda.windows.im2col by_image)."""
        cols = self.windows.im2col(cupy, x, kernel, stride, padding, dilation, out_hw,
                                   by_image=True)
        return cols.reshape(x.shape[0], -1, out_hw[0] * out_hw[1])

    def __getattr__(self, name):
        return getattr(cupy, name)

    def matmul(self, a, b):
        """numpy's matmul; float32 operands of rank 2 or 3 through cuBLAS directly."""
        if not self.cublas.active() or a.dtype != np.float32 or b.dtype != np.float32 or \
                not 2 <= a.ndim == b.ndim <= 3:
            return cupy.matmul(a, b)
        blas = self.cublas.shared(cupy)
        if a.ndim == 2:
            return blas.matmul(a[None], b[None])[0]
        return blas.matmul(a, b)


class CupyBackend(NumpyBackend):
    """The numpy backend over CuPy, with batch normalisation and cross-entropy as one
    kernel each way (burn.host.cuda.batch_norm, burn.host.cuda.cross_entropy)."""

    def batch_norm_forward(self, x, shape, mean, var, weight, bias, eps):
        """See burn.host.autodiff.helpers.Inner.batch_norm_forward."""
        from ..cuda import batch_norm

        return batch_norm.forward(cupy, x, shape, mean, var, weight, bias, eps)

    def batch_norm_backward(self, g, saved, weight, need_x):
        """See burn.host.autodiff.helpers.Inner.batch_norm_backward."""
        from ..cuda import batch_norm

        return batch_norm.backward(cupy, g, saved, weight, need_x)

    def cross_entropy_forward(self, logits, target, n, c, smoothing, reduction):
        """See burn.host.autodiff.helpers.Inner.cross_entropy_forward."""
        from ..cuda import cross_entropy

        return cross_entropy.forward(cupy, logits, target, n, c, smoothing, reduction)

    def cross_entropy_backward(self, g, saved):
        """See burn.host.autodiff.helpers.Inner.cross_entropy_backward."""
        from ..cuda import cross_entropy

        return cross_entropy.backward(cupy, g, saved)


_XP = _CupyModule()
BACKEND = _backend.register(CupyBackend(xp=_XP, name="cupy"))
for _alias in ("cuda", "cuda:0"):
    _backend.register(CupyBackend(xp=_XP, name=_alias))

"""The `flex` backend: the numpy backend with its float32 hot ops (matmul, convolution and
its gradients, pooling, elementwise math, reductions) running in flex_c through cffi.

Storage is the numpy backend's (flat ndarrays), so everything flex_c does not cover is
inherited unchanged; wrapped by Autodiff it trains (`autodiff<flex>`).
"""

import numpy as np

from burn import backend as _backend
from burn import dtype as _dt
from burn.host.backends.numpy_backend import NumpyBackend
from burn.host.flex import f32

_REDUCE = {"sum", "max", "min"}


class FlexBackend(NumpyBackend):
    """NumpyBackend with float32 kernels from flex_c."""

    def __init__(self):
        super().__init__(np, "flex")

    def unary(self, op, h, n, dtype):
        if dtype is _dt.float32 and op in f32.UNARY:
            return f32.unary(op, h[:n])
        return super().unary(op, h, n, dtype)

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        if (dtype is not _dt.float32 or op not in f32.BINARY or len(out_shape) > 6
                or 0 in out_shape):  # flex_c rejects empty shapes
            return super().binary(op, a, a_shape, b, b_shape, out_shape, dtype)
        if not isinstance(b, np.ndarray):
            b, b_shape = np.array([b], np.float32), ()
        return f32.binary(op, a.reshape(a_shape), b.reshape(b_shape)).reshape(-1)

    def reduce(self, op, h, shape, dim, dtype):
        if dtype is _dt.float32 and op in _REDUCE and 0 not in shape:
            return f32.reduce(op, h.reshape(shape), dim).reshape(-1)
        return super().reduce(op, h, shape, dim, dtype)

    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        if dtype is not _dt.float32 or 0 in a_shape or 0 in b_shape:
            return super().matmul(a, a_shape, b, b_shape, out_shape, dtype)
        x, y = a.reshape(a_shape), b.reshape(b_shape)
        out = np.empty(out_shape, np.float32)
        for i in range(out_shape[0]):
            f32.gemm(x[i % a_shape[0]], y[i % b_shape[0]], c=out[i])
        return out.reshape(-1)

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        if dtype is not _dt.float32:
            return super().conv2d(x, x_shape, w, w_shape, bias, stride, padding, dilation,
                                  groups, out_shape, dtype)
        return f32.conv2d(x.reshape(x_shape), w.reshape(w_shape), bias, stride, padding,
                          dilation, groups).reshape(-1)

    def conv2d_grad_input(self, g, g_shape, w, w_shape, x_shape, stride, padding, dilation,
                          groups):
        return f32.conv2d_input_grad(x_shape, w.reshape(w_shape), g.reshape(g_shape), stride,
                                     padding, dilation, groups).reshape(-1)

    def conv2d_grad_weight(self, g, g_shape, x, x_shape, w_shape, stride, padding, dilation,
                           groups):
        dw, _db = f32.conv2d_weight_grad(x.reshape(x_shape), w_shape, g.reshape(g_shape),
                                         stride, padding, dilation, groups, bias=False)
        return dw.reshape(-1)

    def max_pool_grad(self, g, y, x, x_shape, kernel, stride, padding, dilation, out_shape):
        return f32.pool2d_grad("max", x.reshape(x_shape), g.reshape(out_shape), kernel,
                               stride, padding, dilation).reshape(-1)

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        if dtype is not _dt.float32 or (op == "avg" and tuple(dilation) != (1, 1)):
            # flex_c has no dilated average pooling (PyTorch has none either)
            return super().pool2d(op, x, x_shape, kernel, stride, padding, dilation,
                                  ceil_mode, count_include_pad, out_shape, dtype)
        y = f32.pool2d(op, x.reshape(x_shape), kernel, stride, padding, dilation, ceil_mode,
                       count_include_pad)
        if y.shape != tuple(out_shape):
            raise ValueError("flex pool2d: output %s, expected %s" % (y.shape, out_shape))
        return y.reshape(-1)


BACKEND = _backend.register(FlexBackend())

"""The `flex` backend: the numpy backend with its float32 hot ops (matmul, convolution and
its gradients, pooling and its gradients, elementwise math, reductions) running in flex_c
through cffi.

Storage is the numpy backend's (flat ndarrays), so everything flex_c does not cover is
inherited unchanged; wrapped by Autodiff it trains (`autodiff<flex>`), with the gradient
fast paths below. Batch norm, softmax and log-softmax are overridden as single passes.
"""

import numpy as np

import burn
from burn import backend as _backend
from burn import dtype as _dt
from burn.host.backends.numpy_backend import NumpyBackend
from burn.host.backends.window import pool_divisors
from burn.host.flex import f32

_F32 = _dt.float32
_REDUCE = {"sum", "max", "min"}
_UNARY = set(f32.UNARY)
_BINARY = set(f32.BINARY)
_WIDE_PIXELS = 128  # flex_c's forward convolution skips im2col from this image size


class FlexBackend(NumpyBackend):
    """NumpyBackend with float32 kernels from flex_c."""

    def __init__(self):
        super().__init__(np, "flex")

    def unary(self, op, h, n, dtype):
        if dtype is _F32 and op in _UNARY:
            return f32.unary(op, h if h.size == n else h[:n])
        return super().unary(op, h, n, dtype)

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        y = None
        if dtype is _F32 and op in _BINARY:  # still None: empty, or more than 6 axes
            y = f32.binary_flat(op, a, tuple(a_shape), b, tuple(b_shape))
        if y is None:
            return super().binary(op, a, a_shape, b, b_shape, out_shape, dtype)
        return y

    def reduce(self, op, h, shape, dim, dtype):
        if dtype is _F32 and op in _REDUCE and 0 not in shape:
            return f32.reduce(op, h.reshape(shape), dim).reshape(-1)
        return super().reduce(op, h, shape, dim, dtype)

    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        if dtype is not _F32 or 0 in a_shape or 0 in b_shape:
            return super().matmul(a, a_shape, b, b_shape, out_shape, dtype)
        x, y = a.reshape(a_shape), b.reshape(b_shape)
        out = np.empty(out_shape, np.float32)
        for i in range(out_shape[0]):
            f32.gemm(x[i % a_shape[0]], y[i % b_shape[0]], c=out[i])
        return out.reshape(-1)

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        if dtype is not _F32:
            return super().conv2d(x, x_shape, w, w_shape, bias, stride, padding, dilation,
                                  groups, out_shape, dtype)
        return f32.conv2d(x.reshape(x_shape), w.reshape(w_shape), bias, stride, padding,
                          dilation, groups).reshape(-1)

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        if dtype is not _F32 or (op == "avg" and tuple(dilation) != (1, 1)):
            # flex_c has no dilated average pooling (PyTorch has none either)
            return super().pool2d(op, x, x_shape, kernel, stride, padding, dilation,
                                  ceil_mode, count_include_pad, out_shape, dtype)
        y = f32.pool2d(op, x.reshape(x_shape), kernel, stride, padding, dilation, ceil_mode,
                       count_include_pad)
        if y.shape != tuple(out_shape):
            raise ValueError("flex pool2d: output %s, expected %s" % (y.shape, out_shape))
        return y.reshape(-1)

    # -- gradient fast paths for Autodiff (see burn.host.autodiff.helpers) --------------
    def conv2d_grad_input(self, g, g_shape, w, w_shape, x_shape, stride, padding, dilation,
                          groups):
        o, cg, kh, kw = w_shape
        reach = (dilation[0] * (kh - 1), dilation[1] * (kw - 1))
        if tuple(stride) == (1, 1) and max(padding[:2]) <= reach[0] and \
                max(padding[2:]) <= reach[1] and \
                (x_shape[0] == 1 or x_shape[2] * x_shape[3] >= _WIDE_PIXELS):
            # With stride 1 the input gradient is a forward convolution of g with the
            # weights flipped in space and in / out channels swapped within each group,
            # padded by what the forward padding left of each side's reach. For large
            # images (or one) the forward kernel needs no im2col and is the faster one.
            flipped = np.ascontiguousarray(
                w.reshape(groups, o // groups, cg, kh, kw)[:, :, :, ::-1, ::-1]
                .transpose(0, 2, 1, 3, 4)).reshape(groups * cg, o // groups, kh, kw)
            pads = (reach[0] - padding[0], reach[0] - padding[1], reach[1] - padding[2],
                    reach[1] - padding[3])
            return f32.conv2d(g.reshape(g_shape), flipped, None, (1, 1), pads, dilation,
                              groups).reshape(-1)
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

    def avg_pool_grad(self, g, divisors, x_shape, kernel, stride, padding, dilation,
                      out_shape):
        # The hook passes each window's divisor; flex_c derives them from count_include_pad,
        # so find the setting that gives these divisors (numpy handles any other).
        include = _count_include_pad(divisors, x_shape, kernel, stride, padding, dilation,
                                     out_shape)
        if include is None:
            return super().avg_pool_grad(g, divisors, x_shape, kernel, stride, padding,
                                         dilation, out_shape)
        return f32.pool2d_grad("avg", None, g.reshape(out_shape), kernel, stride, padding,
                               dilation, include, x_shape=x_shape).reshape(-1)

    def linear_forward(self, x, w, b, rows, fin, fout):
        """Autodiff's linear forward (see its Inner) as one GEMM on a bias-filled output."""
        y = np.empty((rows, fout), np.float32)
        if b is not None:
            y[...] = b
        f32.gemm(x.reshape(rows, fin), w.reshape(fout, fin), trans_b=True, c=y,
                 beta=0.0 if b is None else 1.0)
        return y.reshape(-1)

    def linear_backward(self, g, x, w, rows, fin, fout, need):
        """Its gradients: two GEMMs (one with A transposed in place) and a column sum."""
        g = g.reshape(rows, fout)
        gx = f32.gemm(g, w.reshape(fout, fin)).reshape(-1) if need[0] else None
        gw = f32.gemm(g, x.reshape(rows, fin), trans_a=True).reshape(-1) if need[1] else None
        gb = f32.reduce("sum", g, 0).reshape(-1) if need[2] else None
        return gx, gw, gb

    def log_softmax_forward(self, x, shape, dim):
        """Autodiff's log-softmax forward in one flex_c call."""
        return f32.softmax(x.reshape(shape), dim, log=True).reshape(-1)

    def batch_norm_forward(self, x, shape, mean, var, weight, bias, eps):
        """Autodiff's batch norm forward: the statistics and the normalisation one flex_c
        call each; it saves the input, mean and 1/std for batch_norm_backward."""
        batch = mean is None
        x = x.reshape(shape)
        if batch:
            mean, var = f32.batch_norm_stats(x)
        invstd = np.float32(1.0) / np.sqrt(var + np.float32(eps))
        y = f32.batch_norm(x, mean, invstd, weight, bias) if x.size else x.copy()
        return y.reshape(-1), mean, var, (x, mean, invstd, batch)

    def batch_norm_backward(self, g, saved, weight, need_x):
        """Its gradients in one flex_c call."""
        x, mean, invstd, batch = saved
        if not x.size:  # an empty batch (eval mode): nothing flows
            zeros = np.zeros(x.shape[1], np.float32)
            return (x.reshape(-1).copy() if need_x else None), zeros, zeros.copy()
        gx, gw, gb = f32.batch_norm_grad(x, g.reshape(x.shape), mean, invstd, weight, batch,
                                         need_x)
        return (None if gx is None else gx.reshape(-1)), gw, gb

    # -- composite overrides (see burn.ops) ---------------------------------------------
    def batch_norm(self, x, running_mean, running_var, weight, bias, training, momentum,
                   eps):
        """burn.batch_norm as x * alpha + beta per channel, with alpha = weight / sqrt(var +
        eps) and beta = bias - mean * alpha (PyTorch's CPU kernel does the same)."""
        n, c = x.shape[0], x.shape[1]
        h = x.handle.reshape(n, c, -1)
        if training:
            count = h.size // c
            if count < 2:
                raise ValueError("batch_norm: training needs more than 1 value per channel, "
                                 "got input of shape " + repr(x.shape))
            mean = h.mean(axis=(0, 2), dtype=np.float64)
            var = h.var(axis=(0, 2), dtype=np.float64)
            _blend(running_mean, mean, momentum)
            _blend(running_var, var * (count / (count - 1)), momentum)
            alpha, beta = _bn_columns(mean, var, weight, bias, eps)
        elif running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var are needed when not "
                             "training")
        else:
            alpha, beta = _eval_columns(running_mean, running_var, weight, bias, eps)
        y = np.multiply(h, alpha)
        y += beta
        return burn.Tensor(y.reshape(-1), x.shape, x.dtype, x.device)

    def softmax(self, x, dim):
        """burn.softmax in one flex_c call."""
        y = f32.softmax(x.handle.reshape(x.shape), dim)
        return burn.Tensor(y.reshape(-1), x.shape, x.dtype, x.device)

    def log_softmax(self, x, dim):
        """burn.log_softmax in one flex_c call."""
        y = f32.softmax(x.handle.reshape(x.shape), dim, log=True)
        return burn.Tensor(y.reshape(-1), x.shape, x.dtype, x.device)


def _blend(running, batch, momentum):
    """running <- running * (1 - momentum) + batch * momentum, in place (None: nothing)."""
    if running is None:
        return
    value = running.handle * (1.0 - momentum) + batch * momentum
    running.copy_(burn.Tensor(value.astype(np.float32), running.shape, running.dtype,
                              running.device))


def _bn_columns(mean, var, weight, bias, eps):
    """(alpha, beta) of a batch norm as float32 [c, 1] columns, computed in float64."""
    c = mean.shape[0]
    alpha = 1.0 / np.sqrt(var.astype(np.float64) + eps)
    if weight is not None:
        alpha = alpha * weight.handle
    beta = -mean * alpha
    if bias is not None:
        beta = beta + bias.handle
    return (alpha.astype(np.float32).reshape(c, 1), beta.astype(np.float32).reshape(c, 1))


_BN_EVAL = {}


def _eval_columns(running_mean, running_var, weight, bias, eps):
    """_bn_columns of the running statistics, remembered while the same four arrays are the
    tensors' storage (tensors replace their storage when written, never change it)."""
    m, v = running_mean.handle, running_var.handle
    w = None if weight is None else weight.handle
    b = None if bias is None else bias.handle
    key = (id(m), id(v), id(w), id(b), eps)
    hit = _BN_EVAL.get(key)
    if hit is not None and hit[0] is m and hit[1] is v and hit[2] is w and hit[3] is b:
        return hit[4]
    if len(_BN_EVAL) > 1024:
        _BN_EVAL.clear()
    cols = _bn_columns(m, v, weight, bias, eps)
    _BN_EVAL[key] = (m, v, w, b, cols)
    return cols


_DIVISORS = {}


def _count_include_pad(divisors, x_shape, kernel, stride, padding, dilation, out_shape):
    """True or False: the count_include_pad that gives `divisors`; None if neither does
    (or the pooling is dilated, which flex_c's average pooling does not do)."""
    if tuple(dilation) != (1, 1):
        return None
    key = (tuple(x_shape), tuple(kernel), tuple(stride), tuple(padding), tuple(out_shape))
    both = _DIVISORS.get(key)
    if both is None:
        if len(_DIVISORS) > 256:
            _DIVISORS.clear()
        both = _DIVISORS[key] = tuple(
            pool_divisors(x_shape, kernel, stride, padding, dilation, out_shape, flag)
            for flag in (True, False))
    divisors = list(divisors)
    if divisors == both[0]:
        return True
    return False if divisors == both[1] else None


BACKEND = _backend.register(FlexBackend())

"""float32 flex_c kernels on numpy arrays (NCHW), raising on bad arguments. Each function
takes `lib=None` (the host build) and returns a new array unless given `out`."""

import numpy as np

from burn.host.flex.binding import Struct, host, run

UNARY = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu",
         "floor", "ceil", "round", "sign", "erf", "reciprocal")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow")
REDUCE = ("sum", "mean", "max", "min")


def _f32(a):
    return np.ascontiguousarray(a, dtype=np.float32)


def _dims(shape):
    n, c, h, w = shape
    return Struct("flex_dims4", (n, h, w, c))


def _window(kernel, stride, padding, dilation):
    """padding is (top, bottom, left, right)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    return Struct("flex_window", (kh, kw, sh, sw, dh, dw) + tuple(padding))


def conv_out_size(size, k, stride, dilation, before, after, ceil_mode=False):
    """Output length of a conv / pool axis (PyTorch's rule, ceil mode for pools)."""
    span = size + before + after - dilation * (k - 1) - 1
    if span < 0:
        return 0
    out = span // stride + 1
    if ceil_mode and span % stride and out * stride < size + before:
        out += 1
    return out


def gemm(a, b, trans_a=False, trans_b=False, c=None, beta=0.0, lib=None):
    """op(a) @ op(b) (+ beta * c) for 2-D float32 arrays."""
    a, b = _f32(a), _f32(b)
    m = a.shape[1] if trans_a else a.shape[0]
    k = a.shape[0] if trans_a else a.shape[1]
    n = b.shape[0] if trans_b else b.shape[1]
    kb = b.shape[1] if trans_b else b.shape[0]
    if kb != k:
        raise ValueError("flex gemm: inner dimensions differ: %s @ %s" % (a.shape, b.shape))
    out = np.zeros((m, n), np.float32) if c is None else c
    run(lib or host(), "flex_f32_gemm", [int(trans_a), int(trans_b), m, n, k, a, a.size, b,
                                          b.size, float(beta), out, out.size],
        "%s @ %s" % (a.shape, b.shape))
    return out


def conv2d(x, w, bias=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1,
           lib=None):
    """NCHW convolution; w is OIHW; padding (top, bottom, left, right)."""
    x, w = _f32(x), _f32(w)
    n, _c, h, wd = x.shape
    oc, _icg, kh, kw = w.shape
    oh = conv_out_size(h, kh, stride[0], dilation[0], padding[0], padding[1])
    ow = conv_out_size(wd, kw, stride[1], dilation[1], padding[2], padding[3])
    y = np.empty((n, oc, max(oh, 1), max(ow, 1)), np.float32)
    b = None if bias is None else _f32(bias)
    run(lib or host(), "flex_f32_conv2d", [
        _dims(x.shape), x, x.size, w, w.size, b, 0 if b is None else b.size,
        _window((kh, kw), stride, padding, dilation), groups, _dims(y.shape), y, y.size],
        "input %s, weight %s, groups %d" % (x.shape, w.shape, groups))
    return y


def conv2d_input_grad(x_shape, w, dy, stride, padding, dilation, groups, lib=None):
    """Gradient of conv2d with respect to its input."""
    w, dy = _f32(w), _f32(dy)
    dx = np.empty(x_shape, np.float32)
    run(lib or host(), "flex_f32_conv2d_input_grad", [
        _dims(x_shape), dx, dx.size, w, w.size,
        _window(w.shape[2:], stride, padding, dilation), groups, _dims(dy.shape), dy, dy.size],
        "input %s, weight %s" % (tuple(x_shape), w.shape))
    return dx


def conv2d_weight_grad(x, w_shape, dy, stride, padding, dilation, groups, bias=True,
                       lib=None):
    """Gradients of conv2d with respect to its weight and (when `bias`) its bias."""
    x, dy = _f32(x), _f32(dy)
    dw = np.empty(w_shape, np.float32)
    db = np.empty(w_shape[0], np.float32) if bias else None
    run(lib or host(), "flex_f32_conv2d_weight_grad", [
        _dims(x.shape), x, x.size, _window(w_shape[2:], stride, padding, dilation), groups,
        _dims(dy.shape), dy, dy.size, dw, dw.size, db, 0 if db is None else db.size],
        "input %s, weight %s" % (x.shape, tuple(w_shape)))
    return dw, db


def pool2d(op, x, kernel, stride, padding=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False,
           count_include_pad=True, lib=None):
    """"max" or "avg" pooling over NCHW windows."""
    x = _f32(x)
    n, c, h, w = x.shape
    oh = conv_out_size(h, kernel[0], stride[0], dilation[0], padding[0], padding[1], ceil_mode)
    ow = conv_out_size(w, kernel[1], stride[1], dilation[1], padding[2], padding[3], ceil_mode)
    y = np.empty((n, c, max(oh, 1), max(ow, 1)), np.float32)
    args = [_dims(x.shape), x, x.size, _window(kernel, stride, padding, dilation)]
    if op == "avg":
        args.append(int(count_include_pad))
    run(lib or host(), "flex_f32_%s_pool2d" % op, args + [_dims(y.shape), y, y.size],
        "input %s, kernel %s" % (x.shape, tuple(kernel)))
    return y


def pool2d_grad(op, x, dy, kernel, stride, padding=(0, 0, 0, 0), dilation=(1, 1),
                count_include_pad=True, lib=None):
    """Gradient of pool2d with respect to its input `x`."""
    x, dy = _f32(x), _f32(dy)
    dx = np.empty(x.shape, np.float32)
    win = _window(kernel, stride, padding, dilation)
    if op == "max":
        args = [_dims(x.shape), x, x.size, win, _dims(dy.shape), dy, dy.size, dx, dx.size]
    else:
        args = [_dims(x.shape), win, int(count_include_pad), _dims(dy.shape), dy, dy.size, dx,
                dx.size]
    run(lib or host(), "flex_f32_%s_pool2d_grad" % op, args,
        "input %s, kernel %s" % (x.shape, tuple(kernel)))
    return dx


def unary(op, x, out=None, lib=None):
    """Elementwise UNARY op."""
    x = _f32(x)
    out = np.empty_like(x) if out is None else out
    run(lib or host(), "flex_f32_unary", [UNARY.index(op), x.size, x, out], op)
    return out


def binary(op, a, b, lib=None):
    """Elementwise BINARY op with numpy broadcasting."""
    a, b = _f32(a), _f32(b)
    shape = np.broadcast_shapes(a.shape, b.shape) or (1,)
    if len(shape) > 6:
        raise ValueError("flex %s: more than 6 axes: %s" % (op, shape))
    y = np.empty(shape, np.float32)
    run(lib or host(), "flex_f32_binary", [
        BINARY.index(op), len(shape), np.array(shape, np.int32), a, a.size,
        _strides(a, shape), b, b.size, _strides(b, shape), y, y.size],
        "%s and %s" % (a.shape, b.shape))
    return y


def _strides(a, shape):
    view = np.broadcast_to(a.reshape(a.shape or (1,)), shape)
    return np.array([s // 4 for s in view.strides], np.int32)


def clamp(x, lo, hi, lib=None):
    """min(max(x, lo), hi)."""
    x = _f32(x)
    y = np.empty_like(x)
    run(lib or host(), "flex_f32_clamp", [x.size, x, float(lo), float(hi), y], "clamp")
    return y


def _split(shape, dim):
    outer = int(np.prod(shape[:dim])) if dim else 1
    return outer, shape[dim], int(np.prod(shape[dim + 1:])) if dim + 1 < len(shape) else 1


def reduce(op, x, dim, lib=None):
    """REDUCE op over axis `dim`; the axis is kept with size 1."""
    x = _f32(x)
    outer, axis, inner = _split(x.shape, dim)
    shape = list(x.shape)
    shape[dim] = 1
    y = np.empty(shape, np.float32)
    run(lib or host(), "flex_f32_reduce", [REDUCE.index(op), outer, axis, inner, x, x.size, y,
                                           y.size], "%s over axis %d of %s" % (op, dim, x.shape))
    return y


def softmax(x, dim, log=False, lib=None):
    """Softmax (or log-softmax) over axis `dim`."""
    x = _f32(x)
    outer, axis, inner = _split(x.shape, dim)
    y = np.empty_like(x)
    run(lib or host(), "flex_f32_log_softmax" if log else "flex_f32_softmax",
        [outer, axis, inner, x, x.size, y, y.size], "axis %d of %s" % (dim, x.shape))
    return y

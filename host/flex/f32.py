"""float32 flex_c kernels on numpy arrays (NCHW), raising on bad arguments. Each function
takes `lib=None` (the host build, or any `HostLib` such as the sanitized one) and returns a
new array unless given `out`.

These run once per tensor op, so the calls go straight to cffi: buffers are passed with
`ffi.from_buffer`, and the parameter blocks (shapes, windows, broadcast strides) of the
shapes seen recently are built once and reused.
"""

import numpy as np

from burn.host.flex.binding import host, raise_for_status

UNARY = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu",
         "floor", "ceil", "round", "sign", "erf", "reciprocal")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow")
REDUCE = ("sum", "mean", "max", "min")
_UNARY_CODE = {op: i for i, op in enumerate(UNARY)}
_BINARY_CODE = {op: i for i, op in enumerate(BINARY)}
_REDUCE_CODE = {op: i for i, op in enumerate(REDUCE)}
_CACHE_LIMIT = 4096


class _Calls:
    """One host library's cffi objects plus the parameter blocks built for it so far."""

    def __init__(self, hostlib):
        self.ffi = hostlib.ffi
        self.lib = hostlib.lib
        self.null = hostlib.ffi.NULL
        self.blocks = {}

    def _block(self, key, ctype, values):
        p = self.blocks.get(key)
        if p is None:
            if len(self.blocks) >= _CACHE_LIMIT:
                self.blocks.clear()
            p = self.blocks[key] = self.ffi.new(ctype, values)
        return p

    def dims(self, shape):
        """flex_dims4 {n, h, w, c} of an NCHW shape."""
        n, c, h, w = shape
        return self._block(("d", n, c, h, w), "flex_dims4 *", (n, h, w, c))

    def window(self, kernel, stride, padding, dilation):
        """flex_window of a kernel, stride, padding (top, bottom, left, right), dilation."""
        values = (kernel[0], kernel[1], stride[0], stride[1], dilation[0], dilation[1],
                  padding[0], padding[1], padding[2], padding[3])
        return self._block(("w",) + values, "flex_window *", values)

    def ints(self, values):
        """An int32_t[] of `values` (a tuple)."""
        return self._block(("i",) + values, "int32_t[]", values)

    def floats(self, a):
        """A float* to a C-contiguous float32 array."""
        return self.ffi.from_buffer("float[]", a)

    def opt_floats(self, a):
        """floats(a), or NULL for None."""
        return self.null if a is None else self.ffi.from_buffer("float[]", a)


_DEFAULT = []  # the _Calls of host(), once asked for


def _calls(lib):
    if lib is None:
        if _DEFAULT:
            return _DEFAULT[0]
        _DEFAULT.append(_calls(host()))
        return _DEFAULT[0]
    c = getattr(lib, "_f32_calls", None)
    if c is None:
        c = lib._f32_calls = _Calls(lib)
    return c


def _check(status, name, context):
    """Raise for a non-OK status; `context` is a function, called only then."""
    if status:
        raise_for_status(name, status, context())


def _f32(a):
    return np.ascontiguousarray(a, dtype=np.float32)


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
    k_ = _calls(lib)
    a, b = _f32(a), _f32(b)
    m = a.shape[1] if trans_a else a.shape[0]
    k = a.shape[0] if trans_a else a.shape[1]
    n = b.shape[0] if trans_b else b.shape[1]
    kb = b.shape[1] if trans_b else b.shape[0]
    if kb != k:
        raise ValueError("flex gemm: inner dimensions differ: %s @ %s" % (a.shape, b.shape))
    out = np.zeros((m, n), np.float32) if c is None else c
    st = k_.lib.flex_f32_gemm(int(trans_a), int(trans_b), m, n, k, k_.floats(a), a.size,
                              k_.floats(b), b.size, float(beta), k_.floats(out), out.size)
    _check(st, "flex_f32_gemm", lambda: "%s @ %s" % (a.shape, b.shape))
    return out


def _conv_plan(k, x_shape, w_shape, stride, padding, dilation):
    """(output shape, input dims, window, output dims) of a convolution, cached."""
    key = ("c", x_shape, w_shape, tuple(stride), tuple(padding), tuple(dilation))
    plan = k.blocks.get(key)
    if plan is None:
        n, _c, h, wd = x_shape
        oc, _icg, kh, kw = w_shape
        oh = conv_out_size(h, kh, stride[0], dilation[0], padding[0], padding[1])
        ow = conv_out_size(wd, kw, stride[1], dilation[1], padding[2], padding[3])
        y_shape = (n, oc, max(oh, 1), max(ow, 1))
        plan = k.blocks[key] = (y_shape, k.dims(x_shape),
                                k.window((kh, kw), stride, padding, dilation),
                                k.dims(y_shape))
    return plan


def conv2d(x, w, bias=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1,
           lib=None):
    """NCHW convolution; w is OIHW; padding (top, bottom, left, right)."""
    k = _calls(lib)
    x, w = _f32(x), _f32(w)
    y_shape, x_dims, win, y_dims = _conv_plan(k, x.shape, w.shape, stride, padding, dilation)
    y = np.empty(y_shape, np.float32)
    b = None if bias is None else _f32(bias)
    st = k.lib.flex_f32_conv2d(
        x_dims, k.floats(x), x.size, k.floats(w), w.size, k.opt_floats(b),
        0 if b is None else b.size, win, groups, y_dims, k.floats(y), y.size)
    _check(st, "flex_f32_conv2d",
           lambda: "input %s, weight %s, groups %d" % (x.shape, w.shape, groups))
    return y


def conv2d_input_grad(x_shape, w, dy, stride, padding, dilation, groups, lib=None):
    """Gradient of conv2d with respect to its input."""
    k = _calls(lib)
    w, dy = _f32(w), _f32(dy)
    x_shape = tuple(x_shape)
    dx = np.empty(x_shape, np.float32)
    st = k.lib.flex_f32_conv2d_input_grad(
        k.dims(x_shape), k.floats(dx), dx.size, k.floats(w), w.size,
        k.window(w.shape[2:], stride, padding, dilation), groups, k.dims(dy.shape),
        k.floats(dy), dy.size)
    _check(st, "flex_f32_conv2d_input_grad",
           lambda: "input %s, weight %s" % (x_shape, w.shape))
    return dx


def conv2d_weight_grad(x, w_shape, dy, stride, padding, dilation, groups, bias=True,
                       lib=None):
    """Gradients of conv2d with respect to its weight and (when `bias`) its bias."""
    k = _calls(lib)
    x, dy = _f32(x), _f32(dy)
    dw = np.empty(w_shape, np.float32)
    db = np.empty(w_shape[0], np.float32) if bias else None
    st = k.lib.flex_f32_conv2d_weight_grad(
        k.dims(x.shape), k.floats(x), x.size, k.window(w_shape[2:], stride, padding, dilation),
        groups, k.dims(dy.shape), k.floats(dy), dy.size, k.floats(dw), dw.size,
        k.opt_floats(db), 0 if db is None else db.size)
    _check(st, "flex_f32_conv2d_weight_grad",
           lambda: "input %s, weight %s" % (x.shape, tuple(w_shape)))
    return dw, db


def pool2d(op, x, kernel, stride, padding=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False,
           count_include_pad=True, lib=None):
    """"max" or "avg" pooling over NCHW windows."""
    k = _calls(lib)
    x = _f32(x)
    n, c, h, w = x.shape
    oh = conv_out_size(h, kernel[0], stride[0], dilation[0], padding[0], padding[1], ceil_mode)
    ow = conv_out_size(w, kernel[1], stride[1], dilation[1], padding[2], padding[3], ceil_mode)
    y = np.empty((n, c, max(oh, 1), max(ow, 1)), np.float32)
    win = k.window(kernel, stride, padding, dilation)
    if op == "avg":
        name = "flex_f32_avg_pool2d"
        st = k.lib.flex_f32_avg_pool2d(k.dims(x.shape), k.floats(x), x.size, win,
                                       int(count_include_pad), k.dims(y.shape), k.floats(y),
                                       y.size)
    else:
        name = "flex_f32_max_pool2d"
        st = k.lib.flex_f32_max_pool2d(k.dims(x.shape), k.floats(x), x.size, win,
                                       k.dims(y.shape), k.floats(y), y.size)
    _check(st, name, lambda: "input %s, kernel %s" % (x.shape, tuple(kernel)))
    return y


def pool2d_grad(op, x, dy, kernel, stride, padding=(0, 0, 0, 0), dilation=(1, 1),
                count_include_pad=True, lib=None, x_shape=None):
    """Gradient of pool2d with respect to its input `x`. Average pooling needs only the
    input's shape: pass x=None and x_shape."""
    k = _calls(lib)
    dy = _f32(dy)
    if x is not None:
        x = _f32(x)
        x_shape = x.shape
    x_shape = tuple(x_shape)
    dx = np.empty(x_shape, np.float32)
    win = k.window(kernel, stride, padding, dilation)
    if op == "max":
        name = "flex_f32_max_pool2d_grad"
        st = k.lib.flex_f32_max_pool2d_grad(k.dims(x_shape), k.floats(x), x.size, win,
                                            k.dims(dy.shape), k.floats(dy), dy.size,
                                            k.floats(dx), dx.size)
    else:
        name = "flex_f32_avg_pool2d_grad"
        st = k.lib.flex_f32_avg_pool2d_grad(k.dims(x_shape), win, int(count_include_pad),
                                            k.dims(dy.shape), k.floats(dy), dy.size,
                                            k.floats(dx), dx.size)
    _check(st, name, lambda: "input %s, kernel %s" % (x_shape, tuple(kernel)))
    return dx


def unary(op, x, out=None, lib=None):
    """Elementwise UNARY op."""
    k = _calls(lib)
    x = _f32(x)
    out = np.empty_like(x) if out is None else out
    st = k.lib.flex_f32_unary(_UNARY_CODE[op], x.size, k.floats(x), k.floats(out))
    _check(st, "flex_f32_unary", lambda: op)
    return out


def _broadcast_plan(k, a_shape, b_shape):
    """(out shape, element count, rank, dims, a strides, b strides) of a broadcasting binary
    op, or None when flex_c cannot do it (an empty result, more than 6 axes); the C arrays
    are cached with the shapes."""
    key = ("b", a_shape, b_shape)
    plan = k.blocks.get(key, False)
    if plan is False:
        shape = np.broadcast_shapes(a_shape, b_shape) or (1,)
        size = 1
        for n in shape:
            size *= n
        plan = None
        if len(shape) <= 6 and size:
            plan = (shape, size, len(shape), k.ints(shape),
                    k.ints(_strides(a_shape, shape)), k.ints(_strides(b_shape, shape)))
        k.blocks[key] = plan
    return plan


def _strides(shape, out_shape):
    """Element strides of a contiguous `shape` broadcast to `out_shape` (0 on broadcast
    axes)."""
    shape = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    strides, step = [], 1
    for size, out in zip(reversed(shape), reversed(out_shape)):
        strides.append(step if size == out and size != 1 else 0)
        step *= size
    return tuple(reversed(strides))


def binary_flat(op, a, a_shape, b, b_shape, lib=None):
    """BINARY op of flat float32 arrays viewed as `a_shape` and `b_shape` (b may be a
    Python number, with b_shape ()), broadcast like numpy: the flat result, or None when
    flex_c cannot do it (an empty result, more than 6 axes)."""
    k = _calls(lib)
    plan = _broadcast_plan(k, a_shape, b_shape)
    if plan is None:
        return None
    _shape, size, rank, dims, sa, sb = plan
    a = a if a.dtype == np.float32 and a.flags.c_contiguous else _f32(a)
    b = np.array((b,), np.float32) if not isinstance(b, np.ndarray) else _f32(b)
    y = np.empty(size, np.float32)
    st = k.lib.flex_f32_binary(_BINARY_CODE[op], rank, dims, k.floats(a), a.size, sa,
                               k.floats(b), b.size, sb, k.floats(y), size)
    _check(st, "flex_f32_binary", lambda: "%s and %s" % (a_shape, b_shape))
    return y


def binary(op, a, b, lib=None):
    """Elementwise BINARY op with numpy broadcasting."""
    a, b = _f32(a), _f32(b)
    plan = _broadcast_plan(_calls(lib), a.shape, b.shape)
    if plan is None:
        raise ValueError("flex %s: cannot broadcast %s with %s (empty or more than 6 axes)"
                         % (op, a.shape, b.shape))
    return binary_flat(op, a.reshape(-1), a.shape, b.reshape(-1), b.shape, lib).reshape(
        plan[0])


def clamp(x, lo, hi, lib=None):
    """min(max(x, lo), hi)."""
    k = _calls(lib)
    x = _f32(x)
    y = np.empty_like(x)
    st = k.lib.flex_f32_clamp(x.size, k.floats(x), float(lo), float(hi), k.floats(y))
    _check(st, "flex_f32_clamp", lambda: "clamp")
    return y


def _split(shape, dim):
    outer = inner = 1
    for s in shape[:dim]:
        outer *= s
    for s in shape[dim + 1:]:
        inner *= s
    return outer, shape[dim], inner


def reduce(op, x, dim, lib=None):
    """REDUCE op over axis `dim`; the axis is kept with size 1."""
    k = _calls(lib)
    x = _f32(x)
    outer, axis, inner = _split(x.shape, dim)
    shape = list(x.shape)
    shape[dim] = 1
    y = np.empty(shape, np.float32)
    st = k.lib.flex_f32_reduce(_REDUCE_CODE[op], outer, axis, inner, k.floats(x), x.size,
                               k.floats(y), y.size)
    _check(st, "flex_f32_reduce", lambda: "%s over axis %d of %s" % (op, dim, x.shape))
    return y


def softmax(x, dim, log=False, lib=None):
    """Softmax (or log-softmax) over axis `dim`."""
    k = _calls(lib)
    x = _f32(x)
    outer, axis, inner = _split(x.shape, dim)
    y = np.empty_like(x)
    if not x.size:  # nothing to normalise (the kernels want every extent >= 1)
        return y
    name = "flex_f32_log_softmax" if log else "flex_f32_softmax"
    st = getattr(k.lib, name)(outer, axis, inner, k.floats(x), x.size, k.floats(y), y.size)
    _check(st, name, lambda: "axis %d of %s" % (dim, x.shape))
    return y


def _by_channel(name, x, *vectors):
    """(n, c, rest) of x [n, c, ...] viewed as [n, c, rest]; ValueError unless every vector
    given (not None) holds one value per channel."""
    if x.ndim < 2:
        raise ValueError("%s: input must be [n, c, ...], got shape %s" % (name, x.shape))
    n, c = x.shape[0], x.shape[1]
    for v in vectors:
        if v is not None and v.size != c:
            raise ValueError("%s: per-channel vector of %d values for %d channels"
                             % (name, v.size, c))
    return n, c, x.size // (n * c) if x.size else 0


def batch_norm_stats(x, lib=None):
    """(mean, biased variance) of each channel (axis 1) of x [n, c, ...]."""
    k = _calls(lib)
    x = _f32(x)
    n, c, rest = _by_channel("flex_f32_batch_norm_stats", x)
    mean, var = np.empty(c, np.float32), np.empty(c, np.float32)
    st = k.lib.flex_f32_batch_norm_stats(n, c, rest, k.floats(x), x.size, k.floats(mean),
                                         k.floats(var))
    _check(st, "flex_f32_batch_norm_stats", lambda: "input %s" % (x.shape,))
    return mean, var


def batch_norm(x, mean, invstd, weight=None, bias=None, lib=None):
    """(x - mean) * invstd * weight + bias over channel axis 1 of x [n, c, ...]; the
    per-channel vectors are [c] (weight, bias may be None)."""
    k = _calls(lib)
    x, mean, invstd = _f32(x), _f32(mean), _f32(invstd)
    weight = None if weight is None else _f32(weight)
    bias = None if bias is None else _f32(bias)
    n, c, rest = _by_channel("flex_f32_batch_norm", x, mean, invstd, weight, bias)
    y = np.empty_like(x)
    st = k.lib.flex_f32_batch_norm(n, c, rest, k.floats(x), x.size, k.floats(mean),
                                   k.floats(invstd), k.opt_floats(weight), k.opt_floats(bias),
                                   k.floats(y), y.size)
    _check(st, "flex_f32_batch_norm", lambda: "input %s" % (x.shape,))
    return y


def batch_norm_grad(x, dy, mean, invstd, weight=None, batch_stats=True, input_grad=True,
                    lib=None):
    """Gradients of batch_norm: (dx or None, dweight, dbias). With `batch_stats` mean and
    invstd are x's own, so dx flows through them too."""
    k = _calls(lib)
    x, dy, mean, invstd = _f32(x), _f32(dy), _f32(mean), _f32(invstd)
    weight = None if weight is None else _f32(weight)
    n, c, rest = _by_channel("flex_f32_batch_norm_grad", x, mean, invstd, weight)
    dx = np.empty_like(x) if input_grad else None
    dw, db = np.empty(c, np.float32), np.empty(c, np.float32)
    st = k.lib.flex_f32_batch_norm_grad(
        n, c, rest, k.floats(x), x.size, k.floats(dy), dy.size, k.floats(mean),
        k.floats(invstd), k.opt_floats(weight), int(batch_stats), k.opt_floats(dx),
        0 if dx is None else dx.size, k.floats(dw), k.floats(db))
    _check(st, "flex_f32_batch_norm_grad", lambda: "input %s, dy %s" % (x.shape, dy.shape))
    return dx, dw, db


def adam(param, grad, m, v, lr, betas, eps, weight_decay, decoupled, step, lib=None):
    """One Adam (AdamW when `decoupled`) step number `step` (1, 2, ...): updates the moments
    `m` and `v` (contiguous float32 arrays of param's size) in place and returns the new
    parameters."""
    k = _calls(lib)
    param, grad = _f32(param), _f32(grad)
    n = param.size
    if not (grad.size == m.size == v.size == n and m.dtype == v.dtype == np.float32 and
            m.flags.c_contiguous and v.flags.c_contiguous):
        raise ValueError("flex adam: the gradient and the moments (contiguous float32) must "
                         "have the parameter's %d values" % n)
    out = np.empty_like(param)
    b1, b2 = betas
    st = k.lib.flex_f32_adam(n, k.floats(param), k.floats(grad), k.floats(m), k.floats(v),
                             lr, b1, b2, eps, weight_decay, int(decoupled),
                             1.0 - b1 ** step, 1.0 - b2 ** step, k.floats(out))
    _check(st, "flex_f32_adam", lambda: "lr %r, betas %r, step %r" % (lr, betas, step))
    return out

"""The `numpy` backend: every primitive of burn.backend over flat numpy arrays.

Handles are 1-D contiguous ndarrays; each primitive views them in the shapes the caller
passes. The same module serves the `cupy` backend: `NumpyBackend(xp=cupy, name="cupy")`,
since cupy mirrors the numpy API used here.
"""

import numpy as np

from burn import backend as _backend
from burn import dtype as _dt

from . import dlpack as _dlpack
from . import numpy_conv as _conv
from .blas import small_gemm
from .window import pool_divisors, pool_frame

_NP = {
    _dt.float32: np.float32,
    _dt.int8: np.int8,
    _dt.uint8: np.uint8,
    _dt.int32: np.int32,
    _dt.bool_: np.bool_,
}


def _erf(xp, x):
    if xp is np:
        from scipy.special import erf
    else:
        from cupyx.scipy.special import erf
    return erf(x)


class NumpyBackend(_backend.Backend):
    """Primitive ops on numpy (or a numpy-compatible module such as cupy)."""

    def __init__(self, xp=np, name="numpy"):
        self.xp = xp
        self.name = name
        self.constants = {}

    def constant(self, values, dtype, shape):
        """An array of the host `values`, made once per content: a CUDA graph being
        recorded may not copy from the host, and a step re-sends the same divisors."""
        key = (tuple(values), dtype, tuple(shape))
        array = self.constants.get(key)
        if array is None:
            array = self.constants[key] = self.xp.asarray(values, dtype=dtype).reshape(shape)
        return array

    # -- storage -----------------------------------------------------------------------
    def from_flat(self, values, dtype):
        if dtype.is_float:
            return self.xp.asarray(values, dtype=np.float32).reshape(-1)
        return self.xp.asarray(_host_values(values, dtype))

    def from_bytes(self, buf, dtype):
        if dtype is _dt.bool_:  # any non-zero byte is True, stored as 1
            return self.xp.asarray(np.frombuffer(bytes(buf), dtype=np.uint8) != 0)
        return self.xp.asarray(np.frombuffer(bytes(buf), dtype=_NP[dtype]).copy())

    def to_flat(self, h, n, dtype):
        arr = h.get() if hasattr(h, "get") else h
        return arr.reshape(-1)[:n].tolist()

    def to_bytes(self, h, n, dtype):
        arr = h.get() if hasattr(h, "get") else h
        return arr.astype(_NP[dtype]).tobytes()

    def full(self, n, value, dtype):
        return self.xp.full(n, _host_values([value], dtype)[0], dtype=_NP[dtype])

    def arange(self, start, step, n, dtype):
        values = start + step * self.xp.arange(n, dtype=np.float64)
        if dtype.is_float:
            return values.astype(np.float32)
        return values != 0 if dtype is _dt.bool_ else _trunc_wrap(self.xp, values, dtype)

    def cast(self, h, n, src, dst):
        xp = self.xp
        if dst is _dt.bool_:
            return h != 0
        if src.is_float and not dst.is_float:
            return _trunc_wrap(xp, h, dst)
        return h.astype(_NP[dst])

    # -- elementwise -------------------------------------------------------------------
    def unary(self, op, h, n, dtype):
        xp = self.xp
        if op == "neg":
            return h if dtype is _dt.bool_ else -h
        if op == "not":
            return ~h if dtype is not _dt.bool_ else xp.logical_not(h)
        if op == "relu":
            return xp.maximum(h, 0).astype(h.dtype)
        if op == "sigmoid":
            return (1.0 / (1.0 + xp.exp(-h))).astype(np.float32)
        if op == "rsqrt":
            return (1.0 / xp.sqrt(h)).astype(np.float32)
        if op == "reciprocal":
            return (1.0 / h).astype(np.float32)
        if op == "round":
            return xp.round(h).astype(h.dtype)
        if op == "erf":
            return _erf(xp, h).astype(np.float32)
        return getattr(xp, op)(h).astype(h.dtype)

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        xp = self.xp
        x = a.reshape(a_shape)
        if hasattr(b, "reshape"):
            y = b.reshape(b_shape)
        else:  # an int scalar may lie outside dtype: compute exactly, wrap afterwards
            y = np.float32(b) if dtype.is_float else np.int64(b)
        if op in _COMPARE:
            out = _COMPARE[op](x, y)
        elif op == "div":
            out = xp.divide(x, y, dtype=np.float32) if dtype.is_float else \
                _trunc_div(xp, x, y).astype(_NP[dtype])
        elif op == "pow":
            out = xp.power(x, y) if dtype.is_float else _int_pow(xp, x, y, dtype)
        else:
            with np.errstate(all="ignore"):
                if dtype.is_float and op in ("floordiv", "mod"):
                    out = _float_floordiv_mod(xp, x, y)[op == "mod"]
                else:
                    out = _ARITH[op](x, y)
            if not dtype.is_float:
                out = out.astype(_NP[dtype])
        if out.shape != tuple(out_shape):
            out = xp.ascontiguousarray(xp.broadcast_to(out, out_shape))
        return out.reshape(-1)

    def where(self, c, c_shape, a, a_shape, b, b_shape, out_shape, dtype):
        xp = self.xp
        out = xp.where(c.reshape(c_shape), a.reshape(a_shape), b.reshape(b_shape))
        return xp.ascontiguousarray(xp.broadcast_to(out, out_shape)).reshape(-1).astype(
            _NP[dtype])

    def clamp(self, h, n, lo, hi, dtype):
        out = h if dtype.is_float else h.astype(np.int64)  # bounds may lie outside dtype
        if lo is not None:
            out = self.xp.maximum(out, lo)
        if hi is not None:
            out = self.xp.minimum(out, hi)
        return out.astype(_NP[dtype])

    # -- reductions --------------------------------------------------------------------
    def reduce(self, op, h, shape, dim, dtype):
        xp = self.xp
        x = h.reshape(shape)
        if op in ("argmax", "argmin"):
            out = getattr(xp, op)(x, axis=dim)
            return xp.expand_dims(out, dim).astype(np.int32).reshape(-1)
        if op in ("sum", "prod") and not dtype.is_float:
            out = getattr(xp, op)(x, axis=dim, keepdims=True, dtype=np.int64)
        else:
            out = getattr(xp, {"max": "max", "min": "min"}.get(op, op))(
                x, axis=dim, keepdims=True)
        return out.astype(_NP[dtype]).reshape(-1)

    # -- layout ------------------------------------------------------------------------
    def permute(self, h, shape, perm, dtype):
        return self.xp.ascontiguousarray(h.reshape(shape).transpose(perm)).reshape(-1)

    def expand(self, h, shape, out_shape, dtype):
        return self.xp.ascontiguousarray(
            self.xp.broadcast_to(h.reshape(shape), out_shape)).reshape(-1)

    def slice(self, h, shape, starts, steps, out_shape, dtype):
        index = []
        for start, step, count in zip(starts, steps, out_shape):
            stop = start + step * count
            index.append(slice(start, None if stop < 0 else stop, step))
        return self.xp.ascontiguousarray(h.reshape(shape)[tuple(index)]).reshape(-1)

    def cat(self, hs, shapes, dim, dtype):
        parts = [h.reshape(s) for h, s in zip(hs, shapes)]
        return self.xp.concatenate(parts, axis=dim).reshape(-1)

    def pad(self, h, shape, pads, value, dtype):
        if not pads:
            return h.copy()
        value = _host_values([value], dtype)[0]
        return self.xp.pad(h.reshape(shape), pads, constant_values=value).reshape(-1)

    def gather(self, h, shape, dim, idx, n_idx, dtype):
        return self.xp.take(h.reshape(shape), idx[:n_idx], axis=dim).reshape(-1)

    # -- linear algebra and convolution ------------------------------------------------
    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        x = a.reshape(a_shape)
        y = b.reshape(b_shape)
        if not dtype.is_float:
            x = x.astype(np.int64)
            y = y.astype(np.int64)
        with small_gemm(self.xp, out_shape[0] * out_shape[1] * out_shape[2] * a_shape[2]):
            return self.xp.matmul(x, y).astype(_NP[dtype]).reshape(-1)

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        return self.conv2d_keep_columns(x, x_shape, w, w_shape, bias, stride, padding,
                                        dilation, groups, out_shape, dtype)[0]

    def conv2d_keep_columns(self, x, x_shape, w, w_shape, bias, stride, padding, dilation,
                            groups, out_shape, dtype):
        """conv2d's output, and the input's im2col columns that it multiplied, which
        conv2d_grad_weight_kept takes instead of the input (saved between the forward and
        the backward pass: the windows are gathered once per training step, not twice)."""
        acc = np.float32 if dtype.is_float else np.int64
        out, cols = _conv.conv2d_columns(
            self.xp, x.reshape(x_shape).astype(acc, copy=False),
            w.reshape(w_shape).astype(acc, copy=False), groups, stride, padding, dilation,
            out_shape[2:])
        if bias is not None:
            out = out + bias.astype(acc, copy=False).reshape(1, -1, 1, 1)
        return self.xp.ascontiguousarray(out.astype(_NP[dtype], copy=False)).reshape(-1), cols

    def conv2d_grad_weight_kept(self, g, g_shape, cols, w_shape, groups):
        """conv2d_grad_weight from the columns conv2d_keep_columns returned."""
        out = _conv.conv2d_grad_weight_columns(self.xp, g.reshape(g_shape), cols, w_shape,
                                               groups)
        return self.xp.ascontiguousarray(out, dtype=np.float32).reshape(-1)

    # Faster gradients than the generic ones of burn.host.autodiff.helpers.
    def conv2d_grad_input(self, g, g_shape, w, w_shape, x_shape, stride, padding, dilation,
                          groups):
        out = _conv.conv2d_grad_input(self.xp, g.reshape(g_shape), w.reshape(w_shape),
                                      x_shape, groups, stride, padding, dilation)
        return self.xp.ascontiguousarray(out).reshape(-1)

    def conv2d_grad_weight(self, g, g_shape, x, x_shape, w_shape, stride, padding, dilation,
                           groups):
        out = _conv.conv2d_grad_weight(self.xp, g.reshape(g_shape), x.reshape(x_shape),
                                       w_shape, groups, stride, padding, dilation)
        return self.xp.ascontiguousarray(out, dtype=np.float32).reshape(-1)

    def max_pool_grad(self, g, y, x, x_shape, kernel, stride, padding, dilation, out_shape):
        out = _conv.max_pool_grad(self.xp, g.reshape(out_shape), x.reshape(x_shape), kernel,
                                  stride, padding, dilation)
        return self.xp.ascontiguousarray(out).reshape(-1)

    def avg_pool_grad(self, g, divisors, x_shape, kernel, stride, padding, dilation,
                      out_shape):
        div = self.constant(divisors, np.float32, out_shape[2:])
        out = _conv.avg_pool_grad(self.xp, g.reshape(out_shape), div, x_shape, kernel,
                                  stride, padding, dilation)
        return self.xp.ascontiguousarray(out).reshape(-1)

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        xp = self.xp
        out_hw = out_shape[2:]
        pads = pool_frame(x_shape, kernel, stride, padding, dilation, out_hw)
        if op == "max":
            fill = -np.inf if dtype.is_float else _dt_lo(dtype)
            xpad = _conv.padded(xp, x.reshape(x_shape), pads, fill)
            return _conv.window_max(xp, xpad, kernel, stride, dilation, out_hw).reshape(-1)
        acc = np.float32 if dtype.is_float else np.int64
        xpad = _conv.padded(xp, x.reshape(x_shape).astype(acc), pads, 0)
        total = _conv.windows(xp, xpad, kernel, stride, dilation, out_hw).sum(axis=(4, 5))
        count = self.constant(pool_divisors(x_shape, kernel, stride, padding, dilation,
                                            out_shape, count_include_pad), np.float64, out_hw)
        if dtype.is_float:
            out = total / count
        else:  # round half away from zero, as the pure backend and TFLite do
            out = xp.sign(total) * xp.floor(xp.abs(total) / count + 0.5)
        return xp.ascontiguousarray(out.astype(_NP[dtype])).reshape(-1)


def _dt_lo(dtype):
    return dtype.lo if dtype.lo is not None else 0


def _host_values(values, dtype):
    """A flat host array of `dtype` from Python numbers, converted like the pure backend:
    non-zero is True, floats truncate toward zero, integers wrap."""
    if dtype.is_float:
        return np.asarray(values, dtype=np.float32).reshape(-1)
    arr = np.asarray(values).reshape(-1)
    if dtype is _dt.bool_:
        return arr != 0
    if arr.dtype.kind == "f":
        return _trunc_wrap(np, arr, dtype)
    return arr.astype(np.int64).astype(_NP[dtype])


def _trunc_wrap(xp, x, dtype):
    """Floats to integer `dtype` like C: truncate toward zero, then wrap (two's complement);
    NaN and infinities give 0. The wrap is done in float64 (exact), since converting floats
    beyond int64 is undefined."""
    x = xp.where(xp.isfinite(x), x, 0).astype(np.float64)
    return xp.fmod(xp.trunc(x), 2.0 ** 32).astype(np.int64).astype(_NP[dtype])


def _trunc_div(xp, x, y):
    """C integer division in int64: truncates toward zero; division by zero gives 0."""
    x = x.astype(np.int64)
    y = xp.asarray(y, dtype=np.int64)
    safe = xp.where(y == 0, 1, y)
    q = xp.abs(x) // xp.abs(safe)
    return xp.where(y == 0, 0, xp.where((x < 0) != (safe < 0), -q, q))


def _float_floordiv_mod(xp, x, y):
    """(x // y, x % y) for floats as PyTorch and numpy define them, built on the exact fmod
    (cupy's own ufuncs differ at infinities)."""
    mod = xp.fmod(x, y)
    fix = (mod != 0) & ((y < 0) != (mod < 0))
    rem = xp.where(fix, mod + y, mod)
    div = xp.where(fix, (x - mod) / y - 1, (x - mod) / y)
    floor = xp.floor(div)
    floor = xp.where(div - floor > 0.5, floor + 1, floor)
    floor = xp.where(div == 0, xp.copysign(xp.zeros_like(div), x / y), floor)
    floor = xp.where(y == 0, x / y, floor)
    return floor.astype(np.float32), rem.astype(np.float32)


def _int_pow(xp, x, y, dtype):
    """x ** y wrapping like C; a negative exponent gives the truncated 1 / x ** -y (0 unless
    x is 1 or -1), as the pure backend does."""
    x = x.astype(np.int64)
    y = xp.asarray(y, dtype=np.int64)
    out = xp.power(x, xp.maximum(y, 0))
    inverse = xp.where(x == 1, 1, xp.where(x == -1, xp.where(y % 2 == 0, 1, -1), 0))
    return xp.where(y < 0, inverse, out).astype(_NP[dtype])


_COMPARE = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}
_ARITH = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "floordiv": np.floor_divide, "mod": np.mod,
    "maximum": np.maximum, "minimum": np.minimum,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
}


BACKEND = _backend.register(NumpyBackend())
_dlpack.install()

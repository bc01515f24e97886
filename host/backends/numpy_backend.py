"""The `numpy` backend: every primitive of burn.backend over flat numpy arrays.

Handles are 1-D contiguous ndarrays; each primitive views them in the shapes the caller
passes. The same module serves the `cupy` backend: `NumpyBackend(xp=cupy, name="cupy")`,
since cupy mirrors the numpy API used here.
"""

import numpy as np

from burn import backend as _backend
from burn import dtype as _dt

from ..autodiff.helpers import pool_divisors
from . import numpy_conv as _conv

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

    # -- storage -----------------------------------------------------------------------
    def from_flat(self, values, dtype):
        if dtype.is_float:
            return self.xp.asarray(values, dtype=np.float32).reshape(-1)
        arr = np.asarray(values)
        if arr.dtype.kind == "f":
            arr = np.trunc(arr)
        return self.xp.asarray(arr.astype(np.int64).astype(_NP[dtype]).reshape(-1))

    def from_bytes(self, buf, dtype):
        return self.xp.asarray(np.frombuffer(bytes(buf), dtype=_NP[dtype]).copy())

    def to_flat(self, h, n, dtype):
        arr = h.get() if hasattr(h, "get") else h
        return arr.reshape(-1)[:n].tolist()

    def to_bytes(self, h, n, dtype):
        arr = h.get() if hasattr(h, "get") else h
        return arr.astype(_NP[dtype]).tobytes()

    def full(self, n, value, dtype):
        return self.xp.full(n, value, dtype=_NP[dtype])

    def arange(self, start, step, n, dtype):
        values = start + step * self.xp.arange(n, dtype=np.float64)
        return self.from_flat(values, dtype) if self.xp is np else values.astype(_NP[dtype])

    def cast(self, h, n, src, dst):
        xp = self.xp
        if dst is _dt.bool_:
            return h != 0
        if src.is_float and not dst.is_float:
            return xp.trunc(h).astype(np.int64).astype(_NP[dst])
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
        y = b.reshape(b_shape) if hasattr(b, "reshape") else _NP[dtype](b)
        if op in _COMPARE:
            out = _COMPARE[op](x, y)
        elif op == "div":
            out = xp.divide(x, y, dtype=np.float32)
        elif op == "pow":
            out = xp.power(x, y) if dtype.is_float else _int_pow(xp, x, y, dtype)
        else:
            with np.errstate(all="ignore"):
                out = _ARITH[op](x, y)
            if not dtype.is_float and dtype is not _dt.bool_:
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
        out = h
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
        return self.xp.matmul(x, y).astype(_NP[dtype]).reshape(-1)

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        acc = np.float32 if dtype.is_float else np.int64
        out = _conv.conv2d(self.xp, x.reshape(x_shape).astype(acc, copy=False),
                           w.reshape(w_shape).astype(acc, copy=False), groups, stride,
                           padding, dilation, out_shape[2:])
        if bias is not None:
            out = out + bias.astype(acc, copy=False).reshape(1, -1, 1, 1)
        return self.xp.ascontiguousarray(out.astype(_NP[dtype], copy=False)).reshape(-1)

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
        div = self.xp.asarray(divisors, dtype=np.float32).reshape(out_shape[2:])
        out = _conv.avg_pool_grad(self.xp, g.reshape(out_shape), div, x_shape, kernel,
                                  stride, padding, dilation)
        return self.xp.ascontiguousarray(out).reshape(-1)

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        xp = self.xp
        out_hw = out_shape[2:]
        pads = _conv.pool_frame(x_shape, kernel, stride, padding, dilation, out_hw)
        if op == "max":
            fill = -np.inf if dtype.is_float else _dt_lo(dtype)
            xpad = _conv.padded(xp, x.reshape(x_shape), pads, fill)
            win = _conv.windows(xp, xpad, kernel, stride, dilation, out_hw)
            return xp.ascontiguousarray(win.max(axis=(4, 5))).reshape(-1)
        acc = np.float32 if dtype.is_float else np.int64
        xpad = _conv.padded(xp, x.reshape(x_shape).astype(acc), pads, 0)
        total = _conv.windows(xp, xpad, kernel, stride, dilation, out_hw).sum(axis=(4, 5))
        count = xp.asarray(pool_divisors(x_shape, kernel, stride, padding, dilation,
                                         out_shape, count_include_pad),
                           dtype=np.float64).reshape(out_hw)
        if dtype.is_float:
            out = total / count
        else:  # round half away from zero, as the pure backend and TFLite do
            out = xp.sign(total) * xp.floor(xp.abs(total) / count + 0.5)
        return xp.ascontiguousarray(out.astype(_NP[dtype])).reshape(-1)


def _dt_lo(dtype):
    return dtype.lo if dtype.lo is not None else 0


def _int_pow(xp, x, y, dtype):
    return xp.power(x.astype(np.int64), xp.maximum(y, 0)).astype(_NP[dtype])


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

"""Functions that make new tensors: from Python data or bytes, filled, ranges, random."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.device import device as _device
from burn.tensor import Tensor


def _make(values, shape, dtype, device):
    dev = _device(device)
    return Tensor(dev.backend.from_flat(values, dtype), shape, dtype, dev)


def _flatten(data, shape, dim, out):
    # Appends the leaves of nested lists/tuples to `out`, checking every row against
    # `shape` (taken from the first element at each depth).
    if dim == len(shape):
        if not isinstance(data, (bool, int, float)):
            raise TypeError("tensor: unsupported element of type " + type(data).__name__)
        out.append(data)
        return
    if not isinstance(data, (list, tuple)) or len(data) != shape[dim]:
        got = len(data) if isinstance(data, (list, tuple)) else type(data).__name__
        raise ValueError("tensor: ragged nested sequence at dim " + repr(dim) +
                         " (expected length " + repr(shape[dim]) + ", got " + repr(got) + ")")
    for x in data:
        _flatten(x, shape, dim + 1, out)


def _infer_dtype(values):
    if not values:
        return _dt.float32
    all_bool = True
    for v in values:
        if isinstance(v, float):
            return _dt.float32
        if not isinstance(v, bool):
            all_bool = False
    return _dt.bool_ if all_bool else _dt.int32


def _convert(op, values, dtype):
    # Python numbers of `values` as what `dtype` stores, with a range check for ints.
    if dtype.is_float:
        return [float(v) for v in values]
    if dtype is _dt.bool_:
        return [1 if v else 0 for v in values]
    lo = dtype.lo
    hi = dtype.hi
    out = [int(v) for v in values]
    for v in out:
        if v < lo or v > hi:
            raise ValueError(op + ": value " + repr(v) + " is out of range for " + repr(dtype))
    return out


def _dtype_arg(op, dtype):
    if dtype is None or isinstance(dtype, _dt.DType):
        return dtype
    try:
        return _dt.dtype_of(dtype)
    except TypeError:
        raise TypeError(op + ": unknown dtype " + repr(dtype))


def tensor(data, dtype=None, device=None):
    """A tensor from nested lists/tuples, a number, an array.array or another tensor.
    dtype defaults to float32 if any value is a float, bool if all are bools, else int32."""
    dtype = _dtype_arg("tensor", dtype)
    if isinstance(data, Tensor):
        t = data.to(dtype or data.dtype, _device(device) if device else data.device)
        return t.clone() if t is data else t
    if isinstance(data, (bool, int, float)):
        shape = ()
        values = [data]
    elif isinstance(data, (list, tuple)):
        shape = []
        x = data
        while isinstance(x, (list, tuple)):
            shape.append(len(x))
            if not x:
                break
            x = x[0]
        shape = tuple(shape)
        values = []
        _flatten(data, shape, 0, values)
    else:
        try:
            values = list(data)  # array.array, bytes, memoryview: flat
        except TypeError:
            raise TypeError("tensor: cannot make a tensor from " + type(data).__name__)
        shape = (len(values),)
    dtype = dtype or _infer_dtype(values)
    return _make(_convert("tensor", values, dtype), shape, dtype, device)


def from_bytes(buf, shape, dtype, device=None):
    """A tensor of `shape` and `dtype` from little-endian raw bytes."""
    shape = _sh.as_shape("from_bytes", shape)
    dtype = _dtype_arg("from_bytes", dtype)
    need = _sh.numel(shape) * dtype.itemsize
    if len(buf) != need:
        raise ValueError("from_bytes: " + repr(len(buf)) + " bytes do not fill shape " +
                         repr(shape) + " of " + repr(dtype) + " (" + repr(need) + " bytes)")
    dev = _device(device)
    return Tensor(dev.backend.from_bytes(buf, dtype), shape, dtype, dev)


def full(shape, value, dtype=None, device=None):
    """A tensor of `shape` filled with `value` (dtype inferred from it by default)."""
    shape = _sh.as_shape("full", shape)
    dtype = _dtype_arg("full", dtype) or _infer_dtype([value])
    dev = _device(device)
    v = _convert("full", [value], dtype)[0]
    return Tensor(dev.backend.full(_sh.numel(shape), v, dtype), shape, dtype, dev)


def zeros(shape, dtype=_dt.float32, device=None):
    """A tensor of zeros."""
    return full(shape, 0, _dtype_arg("zeros", dtype), device)


def ones(shape, dtype=_dt.float32, device=None):
    """A tensor of ones."""
    return full(shape, 1, _dtype_arg("ones", dtype), device)


def zeros_like(t, dtype=None, device=None):
    """Zeros with the shape (and by default dtype and device) of `t`."""
    return full(t.shape, 0, dtype or t.dtype, device or t.device)


def ones_like(t, dtype=None, device=None):
    """Ones with the shape (and by default dtype and device) of `t`."""
    return full(t.shape, 1, dtype or t.dtype, device or t.device)


def full_like(t, value, dtype=None, device=None):
    """`value` everywhere, with the shape (and by default dtype and device) of `t`."""
    return full(t.shape, value, dtype or t.dtype, device or t.device)


def arange(start, stop=None, step=1, dtype=None, device=None):
    """start, start+step, ... below stop (one argument: 0 .. start-1)."""
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError("arange: start, stop and step must be numbers, got " + repr(v))
    if step == 0:
        raise ValueError("arange: step must not be zero")
    n = (stop - start) / step
    n = int(n) + (1 if n > int(n) else 0)
    n = n if n > 0 else 0
    dtype = _dtype_arg("arange", dtype) or _infer_dtype([start, stop, step])
    dev = _device(device)
    return Tensor(dev.backend.arange(start, step, n, dtype), (n,), dtype, dev)


def eye(n, m=None, dtype=_dt.float32, device=None):
    """An n x m matrix with ones on the diagonal."""
    m = n if m is None else m
    shape = _sh.as_shape("eye", (n, m))
    values = [0] * (n * m)
    for i in range(min(n, m)):
        values[i * m + i] = 1
    dtype = _dtype_arg("eye", dtype)
    return _make(_convert("eye", values, dtype), shape, dtype, device)


def seed(s):
    """Restart the random stream used by rand, randn, randint, dropout and nn.init."""
    from burn import random
    random.seed(s)


def _random(op, shape, values_fn, dtype, device):
    from burn import random
    shape = _sh.as_shape(op, shape)
    dev = _device(device)
    values = values_fn(random, _sh.numel(shape))
    return Tensor(dev.backend.random(values, dtype), shape, dtype, dev)


def rand(shape, dtype=_dt.float32, device=None):
    """Floats uniform in [0, 1)."""
    return _random("rand", shape, lambda r, n: r.uniform(n), dtype, device)


def randn(shape, dtype=_dt.float32, device=None):
    """Floats from the standard normal distribution."""
    return _random("randn", shape, lambda r, n: r.normal(n), dtype, device)


def randint(low, high, shape, dtype=_dt.int32, device=None):
    """Integers uniform in [low, high)."""
    if high <= low:
        raise ValueError("randint: high " + repr(high) + " must be above low " + repr(low))
    return _random("randint", shape, lambda r, n: r.integers(n, low, high), dtype, device)


def rand_like(t):
    """Uniform floats with the shape, dtype and device of `t`."""
    return rand(t.shape, t.dtype, t.device)


def randn_like(t):
    """Normal floats with the shape, dtype and device of `t`."""
    return randn(t.shape, t.dtype, t.device)

"""Less common creation functions: from raw bytes, ranges, identity, `*_like` and random
tensors."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.creation import convert, dtype_arg, full, infer_dtype, make
from burn.device import device as _device
from burn.tensor import Tensor


def from_bytes(buf, shape, dtype, device=None):
    """A tensor of `shape` and `dtype` from little-endian raw bytes."""
    shape = _sh.as_shape("from_bytes", shape)
    dtype = dtype_arg("from_bytes", dtype)
    need = _sh.numel(shape) * dtype.itemsize
    if len(buf) != need:
        raise ValueError("from_bytes: " + repr(len(buf)) + " bytes do not fill shape " +
                         repr(shape) + " of " + repr(dtype) + " (" + repr(need) + " bytes)")
    dev = _device(device)
    return Tensor(dev.backend.from_bytes(buf, dtype), shape, dtype, dev)


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
    dtype = dtype_arg("arange", dtype) or infer_dtype([start, stop, step])
    dev = _device(device)
    return Tensor(dev.backend.arange(start, step, n, dtype), (n,), dtype, dev)


def eye(n, m=None, dtype=_dt.float32, device=None):
    """An n x m matrix with ones on the diagonal."""
    m = n if m is None else m
    shape = _sh.as_shape("eye", (n, m))
    values = [0] * (n * m)
    for i in range(min(n, m)):
        values[i * m + i] = 1
    dtype = dtype_arg("eye", dtype)
    return make(convert("eye", values, dtype), shape, dtype, device)


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

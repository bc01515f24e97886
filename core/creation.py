"""Making tensors: from Python data, and filled with one value.

Raw bytes, ranges, identity matrices, `*_like` and random tensors are in `burn.ops.factory`."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.device import device as _device
from burn.shape import const, error
from burn.tensor import Tensor

# Numbers of the messages in burn.errors.MESSAGES.
_E_ELEMENT_TYPE = const(13)
_E_RAGGED = const(14)
_E_OUT_OF_RANGE = const(15)
_E_UNKNOWN_DTYPE = const(16)
_E_DATA_TYPE = const(17)


def make(values, shape, dtype, device):
    """A tensor of `shape` holding the flat Python numbers `values` (already converted)."""
    dev = _device(device)
    return Tensor(dev.backend.from_flat(values, dtype), shape, dtype, dev)


def _flatten(data, shape, dim, out):
    # Appends the leaves of nested lists/tuples to `out`, checking every row against
    # `shape` (taken from the first element at each depth).
    if dim == len(shape):
        if not isinstance(data, (bool, int, float)):
            raise error(_E_ELEMENT_TYPE, data)
        out.append(data)
        return
    if not isinstance(data, (list, tuple)) or len(data) != shape[dim]:
        got = len(data) if isinstance(data, (list, tuple)) else type(data).__name__
        raise error(_E_RAGGED, dim, shape[dim], got)
    for x in data:
        _flatten(x, shape, dim + 1, out)


def infer_dtype(values):
    """float32 if any value is a float, bool if all are bools, else int32."""
    if not values:
        return _dt.float32
    all_bool = True
    for v in values:
        if isinstance(v, float):
            return _dt.float32
        if not isinstance(v, bool):
            all_bool = False
    return _dt.bool_ if all_bool else _dt.int32


def convert(op, values, dtype):
    """The Python numbers `values` as what `dtype` stores; ValueError naming `op` for an
    int out of the dtype's range."""
    # map() instead of comprehensions: each comprehension is one more function in the .mpy.
    if dtype.is_float:
        return list(map(float, values))
    if dtype is _dt.bool_:
        return list(map(int, map(bool, values)))
    lo = dtype.lo
    hi = dtype.hi
    out = list(map(int, values))
    for v in out:
        if v < lo or v > hi:
            raise error(_E_OUT_OF_RANGE, op, v, dtype)
    return out


def dtype_arg(op, dtype):
    """A DType from a DType, a name or None (kept); TypeError naming `op` otherwise."""
    if dtype is None or isinstance(dtype, _dt.DType):
        return dtype
    try:
        return _dt.dtype_of(dtype)
    except TypeError:
        raise error(_E_UNKNOWN_DTYPE, op, dtype) from None


def tensor(data, dtype=None, device=None):
    """A tensor from nested lists/tuples, a number, an array.array or another tensor.
    dtype defaults to float32 if any value is a float, bool if all are bools, else int32."""
    dtype = dtype_arg("tensor", dtype)
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
            raise error(_E_DATA_TYPE, data) from None
        shape = (len(values),)
    dtype = dtype or infer_dtype(values)
    return make(convert("tensor", values, dtype), shape, dtype, device)


def _filled(op, shape, value, dtype, device):
    shape = _sh.as_shape(op, shape)
    dtype = dtype_arg(op, dtype) or infer_dtype([value])
    dev = _device(device)
    v = convert(op, [value], dtype)[0]
    return Tensor(dev.backend.full(_sh.numel(shape), v, dtype), shape, dtype, dev)


def full(shape, value, dtype=None, device=None):
    """A tensor of `shape` filled with `value` (dtype inferred from it by default)."""
    return _filled("full", shape, value, dtype, device)


def zeros(shape, dtype=_dt.float32, device=None):
    """A tensor of zeros."""
    return _filled("zeros", shape, 0, dtype, device)


def ones(shape, dtype=_dt.float32, device=None):
    """A tensor of ones."""
    return _filled("ones", shape, 1, dtype, device)

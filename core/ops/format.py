"""Tensor to Python: numbers, nested lists and the printed form, identical on both
interpreters."""

from burn import dtype as _dt
from burn import shape as _sh


def values(x):
    """The elements of `x` as a flat list of Python floats, ints or bools."""
    flat = x.backend.to_flat(x.handle, x.numel(), x.dtype)
    if x.dtype.is_float:
        return [float(v) for v in flat]
    if x.dtype is _dt.bool_:
        return [bool(v) for v in flat]
    return [int(v) for v in flat]


def item(x):
    """The single element as a Python number."""
    n = x.numel()
    if n != 1:
        raise ValueError("item: a tensor of " + repr(n) + " elements has no single value")
    return values(x)[0]


def tolist(x):
    """Nested Python lists (a plain number for a 0-d tensor)."""
    flat = values(x)
    if not x.shape:
        return flat[0]
    return _nest(flat, x.shape, 0, 0)


def _nest(flat, shape, dim, offset):
    size = shape[dim]
    if dim == len(shape) - 1:
        return flat[offset:offset + size]
    step = _sh.numel(shape[dim + 1:])
    return [_nest(flat, shape, dim + 1, offset + i * step) for i in range(size)]


def tensor_repr(x):
    """'tensor([[1.0, 2.0]], dtype=burn.float32)'; dims longer than 6 are elided to their
    first and last 3 entries once the tensor has more than 1000 elements."""
    flat = values(x)
    if x.shape:
        body = _fmt(flat, x.shape, 0, 0, len(flat) > 1000, x.dtype.is_float)
    else:
        body = _fmt_value(flat[0], x.dtype.is_float)
    dev = "" if x.device.name == "pure" else ", device=" + repr(x.device.name)
    return "tensor(" + body + ", dtype=" + repr(x.dtype) + dev + ")"


def _fmt_value(v, is_float):
    # Floats print through '%' formats, which agree on both interpreters (repr does not).
    if not is_float:
        return repr(v)
    if v - v == 0 and v == int(v) and -1e8 < v < 1e8:  # finite and whole: "2.0"
        return "%.1f" % v
    text = "%.6g" % v
    if v - v == 0 and "." not in text and "e" not in text:
        text += ".0"  # 4.9999998 prints as "5.0", still a float
    return text


def _fmt(flat, shape, dim, offset, elide, is_float):
    size = shape[dim]
    picks = (0, 1, 2, -1, size - 3, size - 2, size - 1) if elide and size > 6 else range(size)
    stride = _sh.numel(shape[dim + 1:])
    parts = []
    for i in picks:
        if i < 0:
            parts.append("...")
        elif dim == len(shape) - 1:
            parts.append(_fmt_value(flat[offset + i], is_float))
        else:
            parts.append(_fmt(flat, shape, dim + 1, offset + i * stride, elide, is_float))
    return "[" + ", ".join(parts) + "]"

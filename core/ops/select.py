"""Choosing elements: where, maximum/minimum and clamp."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.ops import operand
from burn.tensor import Tensor, filled, is_number


def where(cond, a, b):
    """Elementwise `a if cond else b` with broadcasting; a and b may be numbers."""
    if not isinstance(cond, Tensor) or cond.dtype is not _dt.bool_:
        got = repr(cond.dtype) if isinstance(cond, Tensor) else type(cond).__name__
        raise TypeError("where: condition must be a burn.bool tensor, got " + got)
    ref = a if isinstance(a, Tensor) else b
    if not isinstance(ref, Tensor):
        ref = filled(cond, (), 0, _dt.int32)
    if (isinstance(a, float) or isinstance(b, float)) and not ref.dtype.is_float:
        ref = ref.float()
        a = a.float() if isinstance(a, Tensor) else a
        b = b.float() if isinstance(b, Tensor) else b
    a = operand("where", a, ref)
    b = operand("where", b, ref)
    if a.dtype is not b.dtype:
        raise TypeError("where: dtypes " + repr(a.dtype) + " and " + repr(b.dtype) +
                        " differ; convert one with .to(dtype)")
    if a.device != cond.device or b.device != cond.device:
        raise ValueError("where: tensors are on different devices")
    try:
        out = _sh.broadcast("where", _sh.broadcast("where", cond.shape, a.shape), b.shape)
    except ValueError:
        raise ValueError("where: shapes " + repr(cond.shape) + ", " + repr(a.shape) +
                         " and " + repr(b.shape) + " do not broadcast") from None
    h = a.backend.where(cond.handle, cond.shape, a.handle, a.shape, b.handle, b.shape, out,
                        a.dtype)
    return a._new(h, out)


def maximum(a, b):
    """Elementwise maximum of two tensors (or a tensor and a number)."""
    return operand("maximum", a, b)._binary("maximum", b)


def minimum(a, b):
    """Elementwise minimum of two tensors (or a tensor and a number)."""
    return operand("minimum", a, b)._binary("minimum", b)


def clamp(x, min=None, max=None):
    """Limit every element to [min, max]; either bound may be None, a number or a tensor."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        t = x if min is None else x.maximum(min)
        return t if max is None else t.minimum(max)
    for v in (min, max):
        if v is not None and not is_number(v):
            raise TypeError("clamp: bounds must be numbers or tensors, got " + repr(v))
        if isinstance(v, float) and not x.dtype.is_float:
            x = x.float()
    if x.dtype is _dt.bool_:
        raise TypeError("clamp: not supported for burn.bool tensors")
    return x._new(x.backend.clamp(x.handle, x.numel(), min, max, x.dtype), x.shape)


clip = clamp

"""Index assignment, `x[key] = value`: the tensor takes a new value in which the entries
that `x[key]` selects hold `value` (a number, or a tensor that broadcasts to the selection's
shape, converted to x's dtype) and the others stay. The new value is computed as burn
computes any other (a gather of the value and a `where`), so gradients reach both the old
value and the assigned one; the Tensor object is then rebound to it."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.ops.factory import arange
from burn.ops.format import values
from burn.ops.index import getitem
from burn.ops.select import where
from burn.tensor import Tensor, is_number


def setitem(x, key, value):
    """Assign `value` to the entries of `x` that `x[key]` selects (see the module
    docstring)."""
    n = x.numel()
    where_ = getitem(arange(n, dtype=_dt.int32, device=x.device).reshape(x.shape), key)
    positions = values(where_)
    chosen = [False] * n
    for p in positions:
        chosen[p] = True
    mask = x._new(x.backend.from_flat(chosen, _dt.bool_), (n,), _dt.bool_)
    flat = x.reshape((n,))
    if isinstance(value, Tensor):
        try:
            shape = _sh.broadcast("index assignment", value.shape, where_.shape)
        except ValueError:
            shape = None
        if shape != where_.shape:
            raise ValueError("index assignment: a value of shape " + repr(value.shape) +
                             " does not broadcast to the selection's shape " +
                             repr(where_.shape))
        if value.device != x.device:
            raise ValueError("index assignment: the value is on another device")
        src = [0] * n  # where each entry's new value comes from in the broadcast value
        for j, p in enumerate(positions):
            src[p] = j
        spread = value.to(x.dtype).expand(where_.shape).reshape((len(positions),))
        value = spread[src] if positions else flat
    elif is_number(value):
        value = int(value) if not x.dtype.is_float and x.dtype is not _dt.bool_ else value
    else:
        raise TypeError("index assignment: the value must be a number or a tensor, got " +
                        type(value).__name__)
    x.handle = where(mask, value, flat).reshape(x.shape).handle

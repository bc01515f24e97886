"""Writing into tensors: index assignment `x[key] = value` (the tensor takes a new value in
which the entries that `x[key]` selects hold `value`, a number or a tensor that broadcasts
to the selection's shape, converted to x's dtype, and the others stay; the Tensor object is
rebound to it), and the functions that return such a value: `scatter` and `masked_fill`
(PyTorch's). Each new value is computed as burn computes any other (a gather of the values
and a `where`), so gradients reach both the old value and the written one."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.ops.factory import arange
from burn.ops.format import values
from burn.ops.index import getitem, positions
from burn.ops.select import where
from burn.tensor import Tensor, is_number


def setitem(x, key, value):
    """Assign `value` to the entries of `x` that `x[key]` selects (see the module
    docstring)."""
    where_ = getitem(arange(x.numel(), dtype=_dt.int32, device=x.device).reshape(x.shape), key)
    x.handle = _written(x, values(where_), where_.shape, value, "index assignment").handle


def scatter(x, dim, index, src):
    """PyTorch's scatter, as a new tensor: x with x[index[i][j]][j] = src[i][j] for dim 0
    (and so on); `src` a number or a tensor of index's shape (or one that broadcasts to
    it); of two writes to one entry the later, in index's row-major order, stays."""
    d = _sh.norm_dim("scatter", dim, len(x.shape))
    if not isinstance(index, Tensor) or index.dtype.is_float or index.dtype is _dt.bool_:
        raise TypeError("scatter: the index must be a tensor of integers")
    where_ = positions("scatter", x.shape, d, values(index), index.shape)
    return _written(x, where_, index.shape, src, "scatter")


def masked_fill(x, mask, value):
    """x with `value` (a number) where the boolean `mask`, which broadcasts to x, holds."""
    if not is_number(value):
        raise TypeError("masked_fill: the value must be a number, got " +
                        type(value).__name__)
    return where(mask, _as(x, value), x)


def _as(x, number):
    """`number` as x's dtype holds it (a float into an int tensor truncates, as a cast)."""
    return int(number) if not x.dtype.is_float and x.dtype is not _dt.bool_ else number


def _written(x, targets, shape, value, fn):
    """x with the values of `value` (a number, or a tensor that broadcasts to `shape`) at
    the flat positions `targets`, in shape's row-major order: a new tensor."""
    n = x.numel()
    chosen = [False] * n
    for p in targets:
        chosen[p] = True
    mask = x._new(x.backend.from_flat(chosen, _dt.bool_), (n,), _dt.bool_)
    flat = x.reshape((n,))
    if isinstance(value, Tensor):
        try:
            wide = _sh.broadcast(fn, value.shape, shape)
        except ValueError:
            wide = None
        if wide != shape:
            raise ValueError(fn + ": a value of shape " + repr(value.shape) + " does not "
                             "broadcast to the selection's shape " + repr(shape))
        if value.device != x.device:
            raise ValueError(fn + ": the value is on another device")
        src = [0] * n  # where each entry's new value comes from in the broadcast value
        for j, p in enumerate(targets):
            src[p] = j
        spread = value.to(x.dtype).expand(shape).reshape((len(targets),))
        value = spread[src] if targets else flat
    elif is_number(value):
        value = _as(x, value)
    else:
        raise TypeError(fn + ": the value must be a number or a tensor, got " +
                        type(value).__name__)
    return where(mask, value, flat).reshape(x.shape)

"""Indexing: ints, slices with steps, None, Ellipsis, integer tensors along dim 0, boolean
masks over the leading dims, and narrow."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.ops.format import values
from burn.tensor import Tensor, is_int


class _Keys:
    # MicroPython cannot call slice(); indexing this object hands back the slice it built.
    def __getitem__(self, key):
        return key


_ALL = _Keys()[:]


def getitem(x, key):
    """x[key] for ints, slices (any step), None, Ellipsis, an integer tensor or list of ints
    in the first position (picks along dim 0), and a boolean tensor alone (a mask over x's
    leading dims: the rows where it is True, in order, as one dim)."""
    if isinstance(key, Tensor) and key.dtype is _dt.bool_:
        return masked(x, key)
    if isinstance(key, (Tensor, list)):
        return take(x, key)
    if not isinstance(key, tuple):
        key = (key,)
    if key and isinstance(key[0], (Tensor, list)):
        taken = take(x, key[0])
        return taken[(_ALL,) * (len(taken.shape) + 1 - len(x.shape)) + key[1:]]
    shape = x.shape
    nd = len(shape)
    real = 0
    ellipses = 0
    for k in key:
        if k is Ellipsis:
            ellipses += 1
        elif k is not None:
            real += 1
    if ellipses > 1:
        raise IndexError("index: an index can only have a single ellipsis")
    if real > nd:
        raise IndexError("index: too many indices for a tensor of " + repr(nd) + " dims")
    starts = []
    steps = []
    sizes = []
    final = []
    d = 0
    for k in key:
        if k is Ellipsis:
            for _ in range(nd - real):
                starts.append(0)
                steps.append(1)
                sizes.append(shape[d])
                final.append(shape[d])
                d += 1
        elif k is None:
            final.append(1)
        elif isinstance(k, slice):
            start, step, length = _slice_range(k, shape[d])
            starts.append(start)
            steps.append(step)
            sizes.append(length)
            final.append(length)
            d += 1
        elif is_int(k):
            i = k + shape[d] if k < 0 else k
            if i < 0 or i >= shape[d]:
                raise IndexError("index " + repr(k) + " is out of range for dim " +
                                 repr(d) + " of size " + repr(shape[d]))
            starts.append(i)
            steps.append(1)
            sizes.append(1)
            d += 1
        elif isinstance(k, (Tensor, list)):
            raise IndexError("index: tensor indices are only supported along dim 0")
        else:
            raise TypeError("index: unsupported index " + repr(k))
    while d < nd:
        starts.append(0)
        steps.append(1)
        sizes.append(shape[d])
        final.append(shape[d])
        d += 1
    sizes = tuple(sizes)
    h = x.handle
    if sizes != shape or any(starts) or any(s != 1 for s in steps):
        h = x.backend.slice(h, shape, tuple(starts), tuple(steps), sizes, x.dtype)
    return x._new(h, tuple(final))


def narrow(x, dim, start, length):
    """The `length` entries of `x` along `dim` that begin at `start` (negative counts from
    the end)."""
    d = _sh.norm_dim("narrow", dim, len(x.shape))
    size = x.shape[d]
    if not is_int(start) or not is_int(length):
        raise TypeError("narrow: start and length must be ints")
    s = start + size if start < 0 else start
    if s < 0 or length < 0 or s + length > size:
        raise IndexError("narrow: start " + repr(start) + " and length " + repr(length) +
                         " do not fit dim " + repr(d) + " of size " + repr(size))
    if length == size:
        return x
    starts = [0] * len(x.shape)
    starts[d] = s
    shape = x.shape[:d] + (length,) + x.shape[d + 1:]
    h = x.backend.slice(x.handle, x.shape, tuple(starts), (1,) * len(x.shape), shape, x.dtype)
    return x._new(h, shape)


def take(x, idx, dim=0, fn="index"):
    """The entries of `x` along `dim` (default 0: rows) picked by an integer tensor or a
    list of ints; negative indices count from the end. The result has shape
    x.shape[:dim] + idx.shape + x.shape[dim + 1:]."""
    vals, shape = _index_values(fn, idx)
    if not x.shape:
        raise IndexError(fn + ": a 0-d tensor cannot be indexed by a tensor")
    size = x.shape[dim]
    for i in range(len(vals)):
        v = vals[i]
        if v < -size or v >= size:
            raise IndexError("index " + repr(v) + " is out of range for dim " + repr(dim) +
                             " of size " + repr(size))
        if v < 0:
            vals[i] = v + size
    b = x.backend
    h = b.gather(x.handle, x.shape, dim, b.from_flat(vals, _dt.int32), len(vals), x.dtype)
    return x._new(h, x.shape[:dim] + shape + x.shape[dim + 1:])


def __setitem__(x, key, value):
    """Tensor.__setitem__ (burn.ops.assign.setitem), reached by a name MicroPython has built
    in."""
    __import__("burn.ops.assign", None, None, ["setitem"]).setitem(x, key, value)


def masked(x, mask):
    """The entries of `x` where the boolean `mask` (of x's leading dims' shape) is True:
    shape (count,) + x.shape[len(mask.shape):]."""
    k = len(mask.shape)
    if mask.shape != x.shape[:k]:
        raise IndexError("index: a mask of shape " + repr(mask.shape) + " does not match "
                         "the leading dims of a tensor of shape " + repr(x.shape))
    picked = [i for i, v in enumerate(values(mask)) if v]
    rest = x.shape[k:]
    return take(x.reshape((_sh.numel(mask.shape),) + rest), picked).reshape(
        (len(picked),) + rest)


def _index_values(fn, idx):
    """(the ints, the shape) of an integer tensor or list `idx`."""
    if isinstance(idx, Tensor):
        if idx.dtype.is_float or idx.dtype is _dt.bool_:
            raise TypeError(fn + ": index tensors must hold integers, got " + repr(idx.dtype))
        return values(idx), idx.shape
    for v in idx:
        if not is_int(v):
            raise TypeError(fn + ": index lists must hold ints, got " + repr(v))
    return list(idx), (len(idx),)


def index_select(x, dim, index):
    """The entries of `x` at the 1-D integer `index` along `dim` (PyTorch's index_select):
    x's shape with dim's size len(index)."""
    d = _sh.norm_dim("index_select", dim, len(x.shape))
    if isinstance(index, Tensor) and len(index.shape) != 1:
        raise IndexError("index_select: the index must have 1 dim, got " + repr(index.shape))
    return take(x, index, d, "index_select")


def gather(x, dim, index):
    """PyTorch's gather: out[i][j][k] = x[index[i][j][k]][j][k] for dim 0 (and so on), the
    integer `index` of x's rank and no larger than x outside `dim`."""
    d = _sh.norm_dim("gather", dim, len(x.shape))
    vals, shape = _index_values("gather", index)
    return take(x.reshape((x.numel(),)), positions("gather", x.shape, d, vals, shape)).reshape(
        shape)


def positions(fn, shape, d, vals, index_shape):
    """The flat positions in a tensor of `shape` that gather/scatter reach: index value v at
    index position (i, j, ...) reaches (i, j, ...) with dim `d` replaced by v."""
    if len(index_shape) != len(shape):
        raise IndexError(fn + ": the index has " + repr(len(index_shape)) + " dims, the "
                         "tensor " + repr(len(shape)))
    for k in range(len(shape)):
        if k != d and index_shape[k] > shape[k]:
            raise IndexError(fn + ": index shape " + repr(index_shape) + " is larger than "
                             "the tensor's " + repr(shape) + " outside dim " + repr(d))
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    out = []
    coords = [0] * len(index_shape)
    for v in vals:
        if v < -shape[d] or v >= shape[d]:
            raise IndexError("index " + repr(v) + " is out of range for dim " + repr(d) +
                             " of size " + repr(shape[d]))
        p = 0
        for k in range(len(shape)):
            p += (v % shape[d] if k == d else coords[k]) * strides[k]
        out.append(p)
        k = len(coords) - 1
        while k >= 0:  # the next index position, row-major
            coords[k] += 1
            if coords[k] < index_shape[k]:
                break
            coords[k] = 0
            k -= 1
    return out


def _slice_range(s, size):
    # Python's slice semantics -> (start, step, length) without slice.indices(), which
    # some MicroPython ports lack.
    step = 1 if s.step is None else s.step
    if not is_int(step) or step == 0:
        raise ValueError("index: slice step must be a non-zero int, got " + repr(s.step))
    lo, hi = (0, size) if step > 0 else (-1, size - 1)
    start = _slice_bound(s.start, size, lo, hi, hi if step < 0 else 0)
    stop = _slice_bound(s.stop, size, lo, hi, hi if step > 0 else lo)
    if step > 0:
        length = (stop - start + step - 1) // step if stop > start else 0
    else:
        length = (start - stop - step - 1) // -step if start > stop else 0
    return (start if length else 0), step, length


def _slice_bound(v, size, lo, hi, default):
    if v is None:
        return default
    if not is_int(v):
        raise TypeError("index: slice bounds must be ints, got " + repr(v))
    if v < 0:
        v += size
    return lo if v < lo else (hi if v > hi else v)

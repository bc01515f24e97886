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


def take(x, idx):
    """Rows of `x` (along dim 0) picked by an integer tensor or a list of ints; negative
    indices count from the end. The result has shape idx.shape + x.shape[1:]."""
    if not isinstance(idx, Tensor):
        for v in idx:
            if not is_int(v):
                raise TypeError("index: index lists must hold ints, got " + repr(v))
        idx = x._new(x.backend.from_flat(idx, _dt.int32), (len(idx),), _dt.int32)
    if idx.dtype.is_float or idx.dtype is _dt.bool_:
        raise TypeError("index: index tensors must hold integers, got " + repr(idx.dtype))
    if not x.shape:
        raise IndexError("index: a 0-d tensor cannot be indexed by a tensor")
    size = x.shape[0]
    vals = values(idx)
    for i in range(len(vals)):
        v = vals[i]
        if v < -size or v >= size:
            raise IndexError("index " + repr(v) + " is out of range for dim 0 of size " +
                             repr(size))
        if v < 0:
            vals[i] = v + size
    b = x.backend
    h = b.gather(x.handle, x.shape, 0, b.from_flat(vals, _dt.int32), len(vals), x.dtype)
    return x._new(h, idx.shape + x.shape[1:])


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

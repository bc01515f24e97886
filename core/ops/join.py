"""Joining and splitting tensors, and constant padding."""

from burn import shape as _sh
from burn.ops import need_tensor
from burn.ops.index import narrow


def _tensors(op, tensors, same_shape):
    """`tensors` as a list, checked item by item for `op`: ValueError when it is empty,
    TypeError for an item that is not a tensor, ValueError for one whose shape is not the
    first one's when same_shape."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError(op + ": expected a non-empty sequence of tensors")
    for t in tensors:
        need_tensor(op, "every item", t)
        if same_shape and t.shape != tensors[0].shape:
            raise ValueError(op + ": shapes " + repr(tensors[0].shape) + " and " +
                             repr(t.shape) + " differ")
    return tensors


def cat(tensors, dim=0):
    """Concatenate tensors along `dim`; the other dims must agree."""
    tensors = _tensors("cat", tensors, False)
    first = tensors[0]
    d = _sh.norm_dim("cat", dim, len(first.shape))
    for t in tensors[1:]:
        if t.dtype is not first.dtype:
            raise TypeError("cat: dtypes " + repr(first.dtype) + " and " + repr(t.dtype) +
                            " differ")
        if t.device != first.device:
            raise ValueError("cat: tensors are on different devices")
        if (len(t.shape) != len(first.shape) or t.shape[:d] != first.shape[:d] or
                t.shape[d + 1:] != first.shape[d + 1:]):
            raise ValueError("cat: shapes " + repr(first.shape) + " and " + repr(t.shape) +
                             " differ outside dim " + repr(d))
    if len(tensors) == 1:
        return first
    size = 0
    for t in tensors:
        size += t.shape[d]
    h = first.backend.cat([t.handle for t in tensors], [t.shape for t in tensors], d,
                          first.dtype)
    return first._new(h, first.shape[:d] + (size,) + first.shape[d + 1:])


def stack(tensors, dim=0):
    """Join equally shaped tensors along a new dim."""
    tensors = _tensors("stack", tensors, True)
    d = _sh.norm_dim("stack", dim, len(tensors[0].shape) + 1)
    return cat([t.unsqueeze(d) for t in tensors], d)


def split(x, split_size_or_sections, dim=0):
    """Pieces of `x` along `dim`: of the given size (the last may be smaller), or of the
    listed sizes (which must add up to the dim)."""
    need_tensor("split", "input", x)
    d = _sh.norm_dim("split", dim, len(x.shape))
    size = x.shape[d]
    s = split_size_or_sections
    if isinstance(s, int):
        if s < 1:
            raise ValueError("split: split size must be positive, got " + repr(s))
        sizes = [s] * (size // s) + ([size % s] if size % s else [])
    else:
        sizes = list(s)
        total = 0
        for v in sizes:
            if not isinstance(v, int) or v < 0:
                raise ValueError("split: section sizes must be non-negative ints, got " +
                                 repr(s))
            total += v
        if total != size:
            raise ValueError("split: sections " + repr(s) + " do not add up to size " +
                             repr(size) + " of dim " + repr(d))
    out = []
    start = 0
    for v in sizes:
        out.append(narrow(x, d, start, v))
        start += v
    return tuple(out)


def chunk(x, chunks, dim=0):
    """Split into `chunks` pieces of equal size (the last may be smaller; torch's rule)."""
    need_tensor("chunk", "input", x)
    if not isinstance(chunks, int) or chunks < 1:
        raise ValueError("chunk: chunks must be a positive int, got " + repr(chunks))
    size = x.shape[_sh.norm_dim("chunk", dim, len(x.shape))]
    return split(x, max(1, -(-size // chunks)), dim)


def pad(x, pads, value=0):
    """Constant padding; `pads` lists (before, after) pairs from the last dim backwards,
    like torch.nn.functional.pad: (left, right, top, bottom, ...)."""
    need_tensor("pad", "input", x)
    pads = tuple(pads)
    nd = len(x.shape)
    if len(pads) % 2 or len(pads) // 2 > nd:
        raise ValueError("pad: pads " + repr(pads) + " must hold a (before, after) pair for "
                         "at most " + repr(nd) + " dims")
    for p in pads:
        if not isinstance(p, int) or p < 0:
            raise ValueError("pad: pads must be non-negative ints, got " + repr(pads))
    per_dim = [(0, 0)] * nd
    for i in range(len(pads) // 2):
        per_dim[nd - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    if isinstance(value, float) and not x.dtype.is_float:
        x = x.float()
    shape = tuple(x.shape[i] + per_dim[i][0] + per_dim[i][1] for i in range(nd))
    h = x.backend.pad(x.handle, x.shape, per_dim, value, x.dtype)
    return x._new(h, shape)

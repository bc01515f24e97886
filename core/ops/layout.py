"""Layout and storage methods: view, ndim, size, permute, transpose, T, squeeze, unsqueeze,
expand, flatten, expand_as, clone, contiguous, copy_, and moving a tensor to another
device."""

from burn import shape as _sh
from burn.ops import operand
from burn.tensor import Tensor, is_int, shape_args


def view(x, *shape):
    """`x.reshape(shape)`: same elements in a new shape."""
    return x.reshape(*shape)


def _ndim(x):
    """Number of dims."""
    return len(x.shape)


ndim = property(_ndim)  # installed on Tensor as the read-only `.ndim`


def size(x, dim=None):
    """The shape, or the size of one dim."""
    if dim is None:
        return x.shape
    return x.shape[_sh.norm_dim("size", dim, len(x.shape))]


def permute(x, *dims):
    """Reorder dims: output dim i is input dim dims[i]."""
    dims = shape_args(dims)
    nd = len(x.shape)
    perm = tuple(_sh.norm_dim("permute", d, nd) for d in dims)
    if len(perm) != nd or sorted(perm) != list(range(nd)):
        raise ValueError("permute: dims " + repr(dims) + " are not a permutation of " +
                         repr(nd) + " dims")
    if perm == tuple(range(nd)):
        return x
    h = x.backend.permute(x.handle, x.shape, perm, x.dtype)
    return x._new(h, tuple(x.shape[p] for p in perm))


def transpose(x, dim0, dim1):
    """Swap two dims."""
    nd = len(x.shape)
    a = _sh.norm_dim("transpose", dim0, nd)
    b = _sh.norm_dim("transpose", dim1, nd)
    perm = list(range(nd))
    perm[a] = b
    perm[b] = a
    return x.permute(perm)


def _t(x):
    """Transpose of a tensor of at most 2 dims."""
    if len(x.shape) > 2:
        raise ValueError("T: expects a tensor of at most 2 dims, got shape " +
                         repr(x.shape) + "; use permute")
    return x.permute(tuple(range(len(x.shape) - 1, -1, -1)))


T = property(_t)  # installed on Tensor as the read-only `.T`


def squeeze(x, dim=None):
    """Drop size-1 dims (all of them, or those listed in `dim`)."""
    dims = _sh.norm_dims("squeeze", dim, len(x.shape))
    shape = tuple(x.shape[i] for i in range(len(x.shape))
                  if not (i in dims and x.shape[i] == 1))
    return x._new(x.handle, shape)


def unsqueeze(x, dim):
    """Insert a size-1 dim at position `dim`."""
    d = _sh.norm_dim("unsqueeze", dim, len(x.shape) + 1)
    return x._new(x.handle, x.shape[:d] + (1,) + x.shape[d:])


def expand(x, *shape):
    """Broadcast size-1 dims (and new leading dims) to `shape`; -1 keeps a dim."""
    shape = shape_args(shape)
    lead = len(shape) - len(x.shape)
    bad = lead < 0
    out = []
    for i in range(len(shape) if lead >= 0 else 0):
        s = shape[i]
        own = x.shape[i - lead] if i >= lead else 1
        if s == -1 and i >= lead:
            s = own
        if not is_int(s) or s < 0 or (own != s and own != 1):
            bad = True
        out.append(s)
    if bad:
        raise ValueError("expand: cannot expand shape " + repr(x.shape) + " to " +
                         repr(shape))
    out = tuple(out)
    if out == x.shape:
        return x
    h = x.backend.expand(x.handle, (1,) * lead + x.shape, out, x.dtype)
    return x._new(h, out)


def flatten(x, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a 0-d tensor becomes shape (1,))."""
    if not x.shape:
        return x.reshape((1,))
    nd = len(x.shape)
    s = _sh.norm_dim("flatten", start_dim, nd)
    e = _sh.norm_dim("flatten", end_dim, nd)
    if s > e:
        raise ValueError("flatten: start_dim " + repr(start_dim) + " comes after end_dim " +
                         repr(end_dim))
    shape = x.shape
    return x.reshape(shape[:s] + (_sh.numel(shape[s:e + 1]),) + shape[e + 1:])


def expand_as(x, other):
    """Broadcast `x` to the shape of `other`."""
    return x.expand(other.shape)


def clone(x):
    """An independent copy."""
    h = x.backend.permute(x.handle, x.shape, tuple(range(len(x.shape))), x.dtype)
    return x._new(h, x.shape)


def contiguous(x):
    """`x` itself: storage is always contiguous."""
    return x


def move(x, dev):
    """`x` on the Device `dev` (copied through its raw bytes), or `x` if it is there."""
    if dev == x.device:
        return x
    n = x.numel()
    h = dev.backend.from_bytes(x.backend.to_bytes(x.handle, n, x.dtype), x.dtype)
    return Tensor(h, x.shape, x.dtype, dev)


def copy_(x, src):
    """Give `x` the values of `src` (a number, or a tensor of the same shape converted to
    x's dtype and device), keeping its gradient flags; returns x."""
    if not isinstance(src, Tensor):
        src = operand("copy_", src, x)
    if not src.shape:
        src = src.expand(x.shape)
    if src.shape != x.shape:
        raise ValueError("copy_: shape " + repr(src.shape) + " does not match " +
                         repr(x.shape))
    if src.dtype is not x.dtype or src.device != x.device:
        src = src.to(x.dtype, x.device)
    flag = x.requires_grad
    grad = x.grad
    x.handle = src.detach().handle
    if flag:
        x.requires_grad = True
        x.grad = grad
    return x

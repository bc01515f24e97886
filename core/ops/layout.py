"""Less common layout and storage methods: flatten, expand_as, clone, contiguous, copy_."""

from burn import shape as _sh
from burn.tensor import operand


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


def copy_(x, src):
    """Give `x` the values of `src` (a number, or a tensor of the same shape converted to
    x's dtype and device), keeping its gradient flags; returns x."""
    src = operand("copy_", src, x)
    if not src.shape:
        src = src.expand(x.shape)
    if src.shape != x.shape:
        raise ValueError("copy_: shape " + repr(src.shape) + " does not match " +
                         repr(x.shape))
    flag = x.requires_grad
    grad = x.grad
    x.handle = src.to(x.dtype, x.device).detach().handle
    if flag:
        x.requires_grad = True
        x.grad = grad
    return x

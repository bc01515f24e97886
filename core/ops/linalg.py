"""Matrix multiplication with torch's rules for 1-D, 2-D and batched operands."""

from burn import dtype as _dt
from burn import shape as _sh
from burn.tensor import Tensor


def matmul(a, b):
    """Matrix product: 1-D operands are promoted to a row/column and the added dim is
    dropped; leading batch dims broadcast."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("matmul: both operands must be tensors")
    if a.dtype is not b.dtype:
        raise TypeError("matmul: dtypes " + repr(a.dtype) + " and " + repr(b.dtype) +
                        " differ; convert one with .to(dtype)")
    if a.dtype is _dt.bool_:
        raise TypeError("matmul: not supported for burn.bool tensors")
    if a.device != b.device:
        raise ValueError("matmul: tensors are on different devices " + repr(a.device.name) +
                         " and " + repr(b.device.name))
    if not a.shape or not b.shape:
        raise ValueError("matmul: both operands need at least 1 dim, got shapes " +
                         repr(a.shape) + " and " + repr(b.shape))
    sa = a.shape if len(a.shape) > 1 else (1,) + a.shape
    sb = b.shape if len(b.shape) > 1 else b.shape + (1,)
    m, k = sa[-2:]
    n = sb[-1]
    if k != sb[-2]:
        raise ValueError("matmul: shapes " + repr(a.shape) + " and " + repr(b.shape) +
                         " do not match")
    try:
        batch = _sh.broadcast("matmul", sa[:-2], sb[:-2])
    except ValueError:
        raise ValueError("matmul: shapes " + repr(a.shape) + " and " + repr(b.shape) +
                         " do not broadcast") from None
    nb = _sh.numel(batch)
    ah, a3 = _batch_operand(a, sa, batch, nb)
    bh, b3 = _batch_operand(b, sb, batch, nb)
    h = a.backend.matmul(ah, a3, bh, b3, (nb, m, n), a.dtype)
    shape = batch + ((m,) if len(a.shape) > 1 else ()) + ((n,) if len(b.shape) > 1 else ())
    return a._new(h, shape)


def _batch_operand(t, shape, batch, nb):
    # (handle, rank-3 shape) of `t` seen as [B, rows, cols]: batch 1 broadcasts inside the
    # primitive; a partial broadcast is materialised with expand.
    rows, cols = shape[-2:]
    own = shape[:-2]
    if _sh.numel(own) == 1:
        return t.handle, (1, rows, cols)
    if own != batch:
        t = t.reshape(shape).expand(batch + (rows, cols))
    return t.handle, (nb, rows, cols)

"""Variance and standard deviation, composed from sum and mean."""

from burn import shape as _sh
from burn.ops import need_float, need_tensor


def var(x, dim=None, keepdim=False, unbiased=True):
    """Variance over `dim` (int, tuple or None for all); unbiased divides by n - 1."""
    need_tensor("var", "x", x)
    need_float("var", x)
    n = 1
    for d in _sh.norm_dims("var", dim, len(x.shape)):
        n *= x.shape[d]
    div = n - 1 if unbiased else n
    if div <= 0:
        raise ValueError("var: needs at least " + repr(2 if unbiased else 1) +
                         " elements per reduction, got " + repr(n))
    centred = x - x.mean(dim, True)
    return (centred * centred).sum(dim, keepdim) / div


def std(x, dim=None, keepdim=False, unbiased=True):
    """Standard deviation: the square root of var."""
    return var(x, dim, keepdim, unbiased).sqrt()

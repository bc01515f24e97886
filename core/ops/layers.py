"""Functional forms of the basic layers: linear, embedding, dropout."""

from burn.ops import need_tensor, override


def linear(x, weight, bias=None):
    """x @ weight.T + bias, with weight of shape [out, in] (torch layout)."""
    need_tensor("linear", "input", x)
    need_tensor("linear", "weight", weight)
    if len(weight.shape) != 2 or not x.shape or x.shape[-1] != weight.shape[1]:
        raise ValueError("linear: input of shape " + repr(x.shape) + " does not match weight "
                         "of shape " + repr(weight.shape) + " (expects [..., in] and "
                         "[out, in])")
    if bias is not None and bias.shape != (weight.shape[0],):
        raise ValueError("linear: bias must have shape " + repr((weight.shape[0],)) +
                         ", got " + repr(bias.shape))
    f = override(x, "linear")
    if f is not None and _alike(x, weight, bias):
        return f(x, weight, bias)
    y = x @ weight.T
    return y if bias is None else y + bias


def _alike(x, *others):
    """Whether x is a non-empty float tensor and the other tensors (None skipped) share its
    dtype and device and are not empty either: the case a backend's own linear takes."""
    return x.dtype.is_float and x.numel() > 0 and all(
        t is None or (t.dtype is x.dtype and t.device == x.device and t.numel() > 0)
        for t in others)


def embedding(idx, weight):
    """Rows of `weight` [num, dim] picked by the integer tensor `idx` (any shape)."""
    need_tensor("embedding", "indices", idx)
    need_tensor("embedding", "weight", weight)
    if len(weight.shape) != 2:
        raise ValueError("embedding: weight must be 2-D [num, dim], got shape " +
                         repr(weight.shape))
    return weight[idx]


def dropout(x, p=0.5, training=True):
    """Zero each element with probability p and scale the rest by 1/(1-p) when training."""
    need_tensor("dropout", "input", x)
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout: p must be between 0 and 1, got " + repr(p))
    if not training or p == 0:
        return x
    from burn.ops.factory import rand
    if p == 1:
        return x * 0
    keep = rand(x.shape, device=x.device) >= p
    return x * keep.to(x.dtype) * (1.0 / (1.0 - p))

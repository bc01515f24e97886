"""Loss functions over burn tensors (differentiable under Autodiff)."""

import burn
from burn.ops import override


def _check_reduction(reduction, op):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(op + ": reduction must be 'mean', 'sum' or 'none', got " +
                         repr(reduction))


def _reduce(loss, reduction, op):
    _check_reduction(reduction, op)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def one_hot(target, classes, like):
    """Float one-hot rows [N, classes] for int class indices `target` [N]."""
    iota = burn.arange(classes, dtype=burn.int32).to(like.device)
    return (target.to(like.device).int().unsqueeze(1) == iota.unsqueeze(0)).float()


def cross_entropy(logits, target, label_smoothing=0.0, reduction="mean"):
    """Softmax cross-entropy of logits [N, C] against int class indices [N]."""
    if logits.ndim != 2 or target.ndim != 1 or target.shape[0] != logits.shape[0]:
        raise ValueError("cross_entropy: expects logits [N, C] and targets [N], got " +
                         repr(logits.shape) + " and " + repr(target.shape))
    if target.dtype.is_float:
        raise TypeError("cross_entropy: targets must be integer class indices, got " +
                        repr(target.dtype))
    _check_reduction(reduction, "cross_entropy")
    fused = override(logits, "cross_entropy")
    if fused is not None and logits.numel():  # a backend's single-node version
        return fused(logits, target.to(logits.device).int(), label_smoothing, reduction)
    classes = logits.shape[1]
    logp = logits.log_softmax(1)
    weights = one_hot(target, classes, logits)
    if label_smoothing:
        weights = weights * (1.0 - label_smoothing) + label_smoothing / classes
    loss = -(logp * weights).sum(1)
    return _reduce(loss, reduction, "cross_entropy")


def _check_same(op, a, b):
    if a.shape != b.shape:
        raise ValueError(op + ": input shape " + repr(a.shape) + " and target shape " +
                         repr(b.shape) + " differ")


def mse_loss(pred, target, reduction="mean"):
    """Mean squared error."""
    _check_same("mse_loss", pred, target)
    d = pred - target
    return _reduce(d * d, reduction, "mse_loss")


def bce_with_logits(logits, target, reduction="mean"):
    """Binary cross-entropy on logits, computed stably as max(x,0) - x*t + log(1+e^-|x|)."""
    _check_same("bce_with_logits", logits, target)
    loss = logits.relu() - logits * target + ((-logits.abs()).exp() + 1.0).log()
    return _reduce(loss, reduction, "bce_with_logits")


def huber_loss(pred, target, delta=1.0, reduction="mean"):
    """Huber loss: quadratic within `delta` of the target, linear beyond."""
    _check_same("huber_loss", pred, target)
    d = (pred - target).abs()
    small = d.clamp(max=delta)
    loss = small * small * 0.5 + (d - small) * delta
    return _reduce(loss, reduction, "huber_loss")

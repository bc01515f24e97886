"""Composite ops that Autodiff records as one node, with a closed-form backward.

Built from primitives, batch normalisation, log-softmax, cross-entropy and linear layers
would record several nodes each; as single nodes their forward and backward run far fewer
inner operations, and the heavy parts go through the inner backend's fast paths where it
has them (see helpers.Inner). `Tensor` (and the losses) call these through the override
hook (a backend method of the op's name), after checking the arguments.
"""

import burn
from burn import dtype as _dt

from .graph import Node

F32 = _dt.float32


def _tensor(ad, node, shape, device):
    return burn.Tensor(node, shape, F32, device)


def batch_norm(ad, x, running_mean, running_var, weight, bias, training, momentum, eps):
    """Batch normalisation over dim 1 as one node (see burn.batch_norm for the meaning)."""
    k = ad.k
    shape = x.shape
    c = shape[1]
    m = k.numel(shape) // c
    w = None if weight is None else weight.handle.value
    b = None if bias is None else bias.handle.value
    if training:
        if m < 2:
            raise ValueError("batch_norm: training needs more than 1 value per channel, "
                             "got input of shape " + repr(shape))
        y, mean, var, saved = k.batch_norm_forward(x.handle.value, shape, None, None, w, b, eps)
        _update_running(ad, running_mean, mean, momentum, c, 1.0)
        _update_running(ad, running_var, var, momentum, c, m / (m - 1))
    else:
        y, _mean, _var, saved = k.batch_norm_forward(
            x.handle.value, shape, running_mean.handle.value, running_var.handle.value, w, b,
            eps)
    need_x = x.handle.requires_grad
    parents = [x.handle] + [t.handle for t in (weight, bias) if t is not None]

    def backward(g):
        gx, gw, gb = k.batch_norm_backward(g, saved, w, need_x)
        return (gx,) + ((gw,) if weight is not None else ()) + ((gb,) if bias is not None
                                                                  else ())

    node = ad._out(y, k.numel(shape), parents, backward)
    return _tensor(ad, node, shape, x.device)


def _update_running(ad, buf, stat, momentum, c, correction):
    """buf <- buf * (1 - momentum) + stat * correction * momentum, outside the graph. The
    running statistics are buffers, with no gradient flags for copy_ to keep, so the new
    storage simply replaces the old."""
    if buf is None:
        return
    k = ad.k
    new = k.add(k.scale(buf.handle.value, 1.0 - momentum, c),
                k.scale(stat, momentum * correction, c), c)
    buf.handle = Node(new, c)


def log_softmax(ad, x, dim):
    """log(softmax(x)) along `dim` as one node; backward g - exp(y) * sum(g)."""
    k, inner = ad.k, ad.inner
    shape = x.shape
    n = k.numel(shape)
    kept = tuple(1 if i == dim else s for i, s in enumerate(shape))
    y = k.log_softmax_forward(x.handle.value, shape, dim)

    def backward(g):
        s = inner.reduce("sum", g, shape, dim, F32)
        p = inner.unary("exp", y, n, F32)
        return (k.add(g, inner.unary("neg", inner.binary("mul", p, shape, s, kept, shape, F32),
                                     n, F32), n),)

    return _tensor(ad, ad._out(y, n, (x.handle,), backward), shape, x.device)


def cross_entropy(ad, logits, target, label_smoothing, reduction):
    """Softmax cross-entropy of logits [N, C] against int32 class indices [N] on the same
    device, as one node (see burn.host.train.losses.cross_entropy, which checks the
    arguments, and helpers.Inner.cross_entropy_forward)."""
    k = ad.k
    n, c = logits.shape
    loss, saved = k.cross_entropy_forward(logits.handle.value, target.handle.value, n, c,
                                          label_smoothing, reduction)
    shape, size = ((n,), n) if reduction == "none" else ((), 1)

    def backward(g):
        return (k.cross_entropy_backward(g, saved),)

    node = ad._out(loss, size, (logits.handle,), backward)
    return _tensor(ad, node, shape, logits.device)


def linear(ad, x, weight, bias):
    """x @ weight.T + bias (x [..., in], weight [out, in], bias [out] or None) as one node."""
    k = ad.k
    fout, fin = weight.shape
    rows = k.numel(x.shape[:-1])
    xv, wv = x.handle.value, weight.handle.value
    y = k.linear_forward(xv, wv, None if bias is None else bias.handle.value, rows, fin, fout)
    parents = (x.handle, weight.handle) + (() if bias is None else (bias.handle,))
    need = tuple(p.requires_grad for p in parents) + (False,) * (3 - len(parents))

    def backward(g):
        return k.linear_backward(g, xv, wv, rows, fin, fout, need)[:len(parents)]

    node = ad._out(y, rows * fout, parents, backward)
    return _tensor(ad, node, x.shape[:-1] + (fout,), x.device)

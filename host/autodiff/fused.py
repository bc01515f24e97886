"""Composite ops that Autodiff records as one node, with a closed-form backward.

Built from primitives, batch normalisation and log-softmax would record a dozen or more
nodes each; as single nodes their forward and backward run far fewer inner operations.
`Tensor` calls these through its override hook (a backend method of the op's name), after
checking the arguments.
"""

import burn
from burn import dtype as _dt

from .graph import Node

F32 = _dt.float32


def _tensor(ad, node, shape, device):
    return burn.Tensor(node, shape, F32, device)


def batch_norm(ad, x, running_mean, running_var, weight, bias, training, momentum, eps):
    """Batch normalisation over dim 1 as one node (see burn.batch_norm for the meaning)."""
    k, inner = ad.k, ad.inner
    shape = x.shape
    n, c = shape[0], shape[1]
    rest = k.numel(shape[2:])
    m = n * rest
    # Channels first: [c, n, rest] viewed as [c, m], so statistics are one reduction each.
    xc = inner.permute(x.handle.value, (n, c, rest), (1, 0, 2), F32)
    if training:
        mean = k.scale(inner.reduce("sum", xc, (c, m), 1, F32), 1.0 / m, c)
    else:
        mean = running_mean.handle.value
    centred = inner.binary("sub", xc, (c, m), mean, (c, 1), (c, m), F32)
    if training:
        var = k.scale(inner.reduce("sum", k.mul(centred, centred, c * m), (c, m), 1, F32),
                      1.0 / m, c)
    else:
        var = running_var.handle.value
    r = inner.unary("rsqrt", inner.binary("add", var, (c,), eps, (), (c,), F32), c, F32)
    xhat = inner.binary("mul", centred, (c, m), r, (c, 1), (c, m), F32)
    y = xhat
    if weight is not None:
        y = inner.binary("mul", y, (c, m), weight.handle.value, (c, 1), (c, m), F32)
    if bias is not None:
        y = inner.binary("add", y, (c, m), bias.handle.value, (c, 1), (c, m), F32)
    y = inner.permute(y, (c, n, rest), (1, 0, 2), F32)
    if training:
        _update_running(ad, running_mean, mean, momentum, c, 1.0)
        _update_running(ad, running_var, var, momentum, c, m / (m - 1))

    parents = [x.handle] + [t.handle for t in (weight, bias) if t is not None]

    def backward(g):
        gc = inner.permute(g, (n, c, rest), (1, 0, 2), F32)
        grads = []
        gxhat = gc
        if weight is not None:
            gxhat = inner.binary("mul", gc, (c, m), weight.handle.value, (c, 1), (c, m), F32)
        if x.handle.requires_grad:
            if training:
                # dx = r/m * (m*dxhat - sum(dxhat) - xhat*sum(dxhat*xhat)), per channel
                s1 = inner.reduce("sum", gxhat, (c, m), 1, F32)
                s2 = inner.reduce("sum", k.mul(gxhat, xhat, c * m), (c, m), 1, F32)
                t = inner.binary("mul", xhat, (c, m), s2, (c, 1), (c, m), F32)
                t = inner.binary("add", t, (c, m), s1, (c, 1), (c, m), F32)
                t = inner.binary("sub", k.scale(gxhat, float(m), c * m), (c, m), t, (c, m),
                                 (c, m), F32)
                gx = inner.binary("mul", t, (c, m), k.scale(r, 1.0 / m, c), (c, 1), (c, m),
                                  F32)
            else:
                gx = inner.binary("mul", gxhat, (c, m), r, (c, 1), (c, m), F32)
            grads.append(inner.permute(gx, (c, n, rest), (1, 0, 2), F32))
        else:
            grads.append(None)
        if weight is not None:
            grads.append(inner.reduce("sum", k.mul(gc, xhat, c * m), (c, m), 1, F32))
        if bias is not None:
            grads.append(inner.reduce("sum", gc, (c, m), 1, F32))
        return tuple(grads)

    node = ad._out(y, n * c * rest, parents, backward)
    return _tensor(ad, node, shape, x.device)


def _update_running(ad, buf, stat, momentum, c, correction):
    """buf <- buf * (1 - momentum) + stat * correction * momentum, outside the graph."""
    if buf is None:
        return
    k = ad.k
    new = k.add(k.scale(buf.handle.value, 1.0 - momentum, c),
                k.scale(stat, momentum * correction, c), c)
    buf.copy_(_tensor(ad, Node(new, c), (c,), buf.device))


def log_softmax(ad, x, dim):
    """log(softmax(x)) along `dim` as one node; backward g - exp(y) * sum(g)."""
    k, inner = ad.k, ad.inner
    shape = x.shape
    n = k.numel(shape)
    kept = tuple(1 if i == dim else s for i, s in enumerate(shape))
    xv = x.handle.value
    top = inner.reduce("max", xv, shape, dim, F32)
    shifted = inner.binary("sub", xv, shape, top, kept, shape, F32)
    total = inner.reduce("sum", inner.unary("exp", shifted, n, F32), shape, dim, F32)
    y = inner.binary("sub", shifted, shape, inner.unary("log", total, k.numel(kept), F32),
                     kept, shape, F32)

    def backward(g):
        s = inner.reduce("sum", g, shape, dim, F32)
        p = inner.unary("exp", y, n, F32)
        return (k.add(g, inner.unary("neg", inner.binary("mul", p, shape, s, kept, shape, F32),
                                     n, F32), n),)

    return _tensor(ad, ad._out(y, n, (x.handle,), backward), shape, x.device)

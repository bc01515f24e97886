"""Batch normalisation over dim 1 for numpy-like array modules, without moving the channels
first. The cupy backend uses these as its `batch_norm_forward` / `batch_norm_backward`
fast paths: burn.host.autodiff.helpers.Inner's generic pair copies the activations to
channels-first and back (two full copies each way). A statistic is a sum over the
contiguous last axis of an [n, c, rest] view, then over the batch: two row reductions,
which CuPy runs far faster than one reduction over axes (0, 2)."""

import numpy as np


def _channel_sum(x3):
    return x3.sum(axis=2).sum(axis=0)


def forward(xp, x, shape, mean, var, weight, bias, eps):
    """(y, mean, var, saved) as Inner.batch_norm_forward defines them."""
    n, c = shape[0], shape[1]
    m = x.size // c
    x3 = x.reshape(n, c, -1)
    batch = mean is None
    if batch:
        mean = _channel_sum(x3) * np.float32(1.0 / m)
    centred = x3 - mean.reshape(1, c, 1)
    if batch:
        var = _channel_sum(centred * centred) * np.float32(1.0 / m)
    r = np.float32(1.0) / xp.sqrt(var + np.float32(eps))
    xhat = centred * r.reshape(1, c, 1)
    y = xhat if weight is None else xhat * weight.reshape(1, c, 1)
    y = y if bias is None else y + bias.reshape(1, c, 1)
    return y.reshape(-1), mean, var, (m, xhat, r, batch)


def backward(xp, g, saved, weight, need_x):
    """(gx or None, gweight, gbias) as Inner.batch_norm_backward defines them."""
    m, xhat, r, batch = saved
    c = xhat.shape[1]
    g3 = g.reshape(xhat.shape)
    gw = _channel_sum(g3 * xhat)
    gb = _channel_sum(g3)
    if not need_x:
        return None, gw, gb
    gxhat = g3 if weight is None else g3 * weight.reshape(1, c, 1)
    if batch:
        s1 = gb if weight is None else gb * weight
        s2 = gw if weight is None else gw * weight
        t = xhat * s2.reshape(1, c, 1) + s1.reshape(1, c, 1)
        gx = (gxhat * np.float32(m) - t) * (r * np.float32(1.0 / m)).reshape(1, c, 1)
    else:
        gx = gxhat * r.reshape(1, c, 1)
    return gx.reshape(-1), gw, gb

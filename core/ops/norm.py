"""Layer and batch normalisation, composed from primitives."""

from burn.ops import need_float, need_tensor, override


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing dims `normalized_shape`, then scale and shift."""
    need_tensor("layer_norm", "input", x)
    need_float("layer_norm", x)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or k > len(x.shape) or x.shape[len(x.shape) - k:] != normalized_shape:
        raise ValueError("layer_norm: normalized_shape " + repr(normalized_shape) +
                         " does not match the trailing dims of input shape " + repr(x.shape))
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and p.shape != normalized_shape:
            raise ValueError("layer_norm: " + name + " must have shape " +
                             repr(normalized_shape) + ", got " + repr(p.shape))
    f = override(x, "layer_norm")
    if f is not None:
        return f(x, normalized_shape, weight, bias, eps)
    dims = tuple(range(len(x.shape) - k, len(x.shape)))
    centred = x - x.mean(dims, True)
    y = centred * ((centred * centred).mean(dims, True) + eps).rsqrt()
    if weight is not None:
        y = y * weight
    return y if bias is None else y + bias


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) of `x` by running statistics, or by the batch's when
    training (then the running ones are updated in place, the variance unbiased)."""
    need_tensor("batch_norm", "input", x)
    need_float("batch_norm", x)
    if len(x.shape) < 2:
        raise ValueError("batch_norm: input must have at least 2 dims (N, C, ...), got " +
                         repr(x.shape))
    c = x.shape[1]
    for name, p in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if p is not None and p.shape != (c,):
            raise ValueError("batch_norm: " + name + " must have shape " + repr((c,)) +
                             ", got " + repr(p.shape))
    f = override(x, "batch_norm")
    if f is not None:
        return f(x, running_mean, running_var, weight, bias, training, momentum, eps)
    view = (1, c) + (1,) * (len(x.shape) - 2)
    if training:
        dims = (0,) + tuple(range(2, len(x.shape)))
        n = x.numel() // c
        if n < 2:
            raise ValueError("batch_norm: training needs more than 1 value per channel, got "
                             "input of shape " + repr(x.shape))
        mean = x.mean(dims, True)
        centred = x - mean
        var = (centred * centred).mean(dims, True)
        if running_mean is not None:
            running_mean.copy_(running_mean * (1 - momentum) +
                               mean.reshape((c,)) * momentum)
        if running_var is not None:
            running_var.copy_(running_var * (1 - momentum) +
                              var.reshape((c,)) * (momentum * n / (n - 1)))
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var are needed when not "
                             "training")
        centred = x - running_mean.reshape(view)
        var = running_var.reshape(view)
    y = centred * (var + eps).rsqrt()
    if weight is not None:
        y = y * weight.reshape(view)
    return y if bias is None else y + bias.reshape(view)

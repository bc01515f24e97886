"""Weight initialisation, as in `torch.nn.init`, drawn from burn's seeded generator.

The `*_` functions fill an existing tensor in place (`Tensor.copy_`) and return it;
`burn.seed(s)` makes the values reproducible on every interpreter and backend.
"""

import math

import burn

_GAINS = {"linear": 1.0, "conv2d": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3, "selu": 0.75}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for `nonlinearity` ('relu', 'leaky_relu' with slope `param`,
    'tanh', 'sigmoid', 'linear', 'conv2d', 'selu')."""
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope * slope))
    gain = _GAINS.get(nonlinearity)
    if gain is None:
        raise ValueError("calculate_gain: unsupported nonlinearity " + repr(nonlinearity))
    return gain


def fan_in_and_fan_out(shape):
    """(fan_in, fan_out) of a weight shape [out, in, *kernel]."""
    if len(shape) < 2:
        raise ValueError("init: fan in and fan out need a tensor with at least 2 dims, got "
                         "shape " + str(tuple(shape)))
    field = 1
    for d in shape[2:]:
        field *= d
    return shape[1] * field, shape[0] * field


def _fan(shape, mode):
    fan_in, fan_out = fan_in_and_fan_out(shape)
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    raise ValueError("init: mode must be 'fan_in' or 'fan_out', got " + repr(mode))


def uniform_tensor(shape, low, high):
    """A new float32 tensor of `shape` with values uniform in [low, high)."""
    return burn.rand(shape) * (high - low) + low


def normal_tensor(shape, mean, std):
    """A new float32 tensor of `shape` with normal values N(mean, std**2)."""
    return burn.randn(shape) * std + mean


def uniform_(tensor, a=0.0, b=1.0):
    """Fill `tensor` with values uniform in [a, b)."""
    return tensor.copy_(uniform_tensor(tensor.shape, a, b))


def normal_(tensor, mean=0.0, std=1.0):
    """Fill `tensor` with values from N(mean, std**2)."""
    return tensor.copy_(normal_tensor(tensor.shape, mean, std))


def constant_(tensor, value):
    """Fill `tensor` with `value`."""
    return tensor.copy_(value)


def zeros_(tensor):
    """Fill `tensor` with zeros."""
    return constant_(tensor, 0)


def ones_(tensor):
    """Fill `tensor` with ones."""
    return constant_(tensor, 1)


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """He uniform: U(-b, b) with b = gain * sqrt(3 / fan)."""
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor.shape, mode))
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """He normal: N(0, std**2) with std = gain / sqrt(fan)."""
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor.shape, mode))
    return normal_(tensor, 0.0, std)


def xavier_uniform_(tensor, gain=1.0):
    """Glorot uniform: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(tensor.shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(tensor.shape)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def default_weight_and_bias(weight_shape, bias):
    """PyTorch's default for Linear and Conv: weight by kaiming_uniform with a=sqrt(5) and
    bias uniform, both in (-1/sqrt(fan_in), 1/sqrt(fan_in)). Returns (weight, bias or None)
    as new tensors, so a layer is built without first allocating zeros."""
    fan_in = fan_in_and_fan_out(weight_shape)[0]
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    w = uniform_tensor(weight_shape, -bound, bound)
    b = uniform_tensor((weight_shape[0],), -bound, bound) if bias else None
    return w, b

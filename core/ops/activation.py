"""Activation functions and (log-)softmax, composed from primitives."""

import math

from burn import shape as _sh
from burn.ops import need_float, need_tensor, override
from burn.ops.select import where

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def relu(x):
    """max(x, 0)."""
    return x.relu()


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return x.sigmoid()


def tanh(x):
    """Hyperbolic tangent."""
    return x.tanh()


def relu6(x):
    """min(max(x, 0), 6)."""
    need_tensor("relu6", "x", x)
    return x.clamp(0, 6)


def leaky_relu(x, negative_slope=0.01):
    """x where x > 0, else negative_slope * x."""
    need_tensor("leaky_relu", "x", x)
    need_float("leaky_relu", x)
    f = override(x, "leaky_relu")
    if f is not None:
        return f(x, negative_slope)
    return where(x > 0, x, x * negative_slope)


def gelu(x, approximate="none"):
    """Gaussian error linear unit: exact with erf ('none') or the tanh approximation."""
    need_tensor("gelu", "x", x)
    need_float("gelu", x)
    if approximate not in ("none", "tanh"):
        raise ValueError("gelu: approximate must be 'none' or 'tanh', got " +
                         repr(approximate))
    f = override(x, "gelu")
    if f is not None:
        return f(x, approximate)
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
        return x * (inner.tanh() + 1.0) * 0.5
    return x * ((x * _INV_SQRT2).erf() + 1.0) * 0.5


def silu(x):
    """x * sigmoid(x)."""
    need_tensor("silu", "x", x)
    need_float("silu", x)
    return x * x.sigmoid()


def softmax(x, dim=-1):
    """exp(x) / sum(exp(x)) along `dim`, shifted by the max for stability."""
    need_tensor("softmax", "x", x)
    need_float("softmax", x)
    dim = _sh.norm_dim("softmax", dim, len(x.shape))
    f = override(x, "softmax")
    if f is not None:
        return f(x, dim)
    e = (x - x.amax(dim, True)).exp()
    return e / e.sum(dim, True)


def log_softmax(x, dim=-1):
    """x - log(sum(exp(x))) along `dim`, shifted by the max for stability."""
    need_tensor("log_softmax", "x", x)
    need_float("log_softmax", x)
    dim = _sh.norm_dim("log_softmax", dim, len(x.shape))
    f = override(x, "log_softmax")
    if f is not None:
        return f(x, dim)
    shifted = x - x.amax(dim, True)
    return shifted - shifted.exp().sum(dim, True).log()

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


def _along(name, x, dim, composite):
    """Composite `name` of float tensor x along `dim`: the backend's own when it has one,
    else composite(x, dim) (dim normalized, the arguments checked first)."""
    need_tensor(name, "x", x)
    need_float(name, x)
    dim = _sh.norm_dim(name, dim, len(x.shape))
    f = override(x, name)
    return (composite if f is None else f)(x, dim)


def _softmax(x, dim):
    e = (x - x.amax(dim, True)).exp()
    return e / e.sum(dim, True)


def _log_softmax(x, dim):
    shifted = x - x.amax(dim, True)
    return shifted - shifted.exp().sum(dim, True).log()


def softmax(x, dim=-1):
    """exp(x) / sum(exp(x)) along `dim`, shifted by the max for stability."""
    return _along("softmax", x, dim, _softmax)


def log_softmax(x, dim=-1):
    """x - log(sum(exp(x))) along `dim`, shifted by the max for stability."""
    return _along("log_softmax", x, dim, _log_softmax)

"""Optimizers: SGD (momentum, nesterov, weight decay), Adam, AdamW and RMSprop.

Each optimizer updates its parameters in place (`Tensor.copy_`) from their `.grad`, outside
autodiff recording. Per-parameter state (momentum buffers, moments) is kept as numpy arrays
keyed by the parameter's position, so `state_dict()` is plain data that a checkpoint stores
and loads on any backend. Adam's and AdamW's step is one flex_c call per parameter where the
compiled library burn._flex is installed, numpy arithmetic otherwise.
"""

import numpy as np

import burn

from ..autodiff import no_grad
from ..convert import to_numpy as _np
from ..flex import f32
from ..flex.binding import available as _have_flex


def _copy(v):
    return np.array(v, copy=True) if isinstance(v, np.ndarray) else v


def _to_tensor(values, like):
    """A tensor on `like`'s device holding `values` (a numpy array of like's shape); the
    numpy backends take the array as it is, without a copy."""
    values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
    handle = like.backend.from_flat(values, like.dtype)
    return burn.Tensor(handle, like.shape, like.dtype, like.device)


class Optimizer:
    """Base class: holds the parameters, the learning rate and per-parameter state."""

    defaults = {}

    def __init__(self, params, lr, **options):
        self.params = [p for p in params]
        if not self.params:
            raise ValueError(type(self).__name__ + ": got an empty parameter list")
        if lr <= 0:
            raise ValueError(type(self).__name__ + ": lr must be positive, got " + repr(lr))
        unknown = set(options) - set(self.defaults)
        if unknown:
            raise TypeError(type(self).__name__ + ": unknown options " + repr(sorted(unknown)))
        self.lr = float(lr)
        self.options = dict(self.defaults, **options)
        self.state = {}
        self.steps = 0

    def zero_grad(self):
        """Forget the accumulated gradients of every parameter."""
        for p in self.params:
            p.grad = None

    def step(self):
        """Apply one update to every parameter that has a gradient."""
        self.steps += 1
        with no_grad():
            for i, p in enumerate(self.params):
                g = p.grad
                if g is None:
                    continue
                value = _np(p, copy=False)
                new = self.update(i, value, _np(g, copy=False))
                p.copy_(_to_tensor(new, p))

    def update(self, index, value, grad):
        """New value of parameter `index` (numpy arrays in, numpy array out)."""
        raise NotImplementedError

    def state_dict(self):
        """Learning rate, options, step count and per-parameter state as plain data."""
        return {"lr": self.lr, "options": dict(self.options), "steps": self.steps,
                "state": {i: {k: _copy(v) for k, v in s.items()}
                          for i, s in self.state.items()}}

    def load_state_dict(self, state):
        """Restore what `state_dict` returned."""
        self.lr = float(state["lr"])
        self.options = dict(state["options"])
        self.steps = int(state["steps"])
        self.state = {int(i): {k: _copy(v) for k, v in s.items()}
                      for i, s in state["state"].items()}


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, nesterov and weight decay."""

    defaults = {"momentum": 0.0, "nesterov": False, "weight_decay": 0.0, "dampening": 0.0}

    def update(self, index, value, grad):
        o = self.options
        if o["weight_decay"]:
            grad = grad + o["weight_decay"] * value
        if o["momentum"]:
            s = self.state.setdefault(index, {})
            buf = s.get("momentum")
            if buf is None:
                buf = grad.copy()
            else:
                buf = o["momentum"] * buf + (1.0 - o["dampening"]) * grad
            s["momentum"] = buf
            grad = grad + o["momentum"] * buf if o["nesterov"] else buf
        return value - self.lr * grad


class Adam(Optimizer):
    """Adam; with `decoupled=True` (AdamW) weight decay shrinks the weights directly."""

    defaults = {"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0}
    decoupled = False

    def update(self, index, value, grad):
        o = self.options
        s = self.state.setdefault(index, {})
        t = s["t"] = s.get("t", 0) + 1
        m, v = (_moment(s, key, value) for key in ("m", "v"))
        step = f32.adam if _have_flex() else _numpy_adam
        return step(value, grad, m, v, self.lr, o["betas"], o["eps"], o["weight_decay"],
                    self.decoupled, t)


def _numpy_adam(value, grad, m, v, lr, betas, eps, weight_decay, decoupled, step):
    """burn.host.flex.f32.adam's step in numpy (m and v updated in place)."""
    b1, b2 = betas
    if weight_decay and decoupled:
        value = value * (1.0 - lr * weight_decay)
    elif weight_decay:
        grad = grad + weight_decay * value
    m *= b1
    m += (1.0 - b1) * grad
    v *= b2
    v += (1.0 - b2) * grad * grad
    return value - lr * (m / (1.0 - b1 ** step)) / (np.sqrt(v / (1.0 - b2 ** step)) + eps)


def _moment(state, key, like):
    """state[key] as a contiguous float32 array shaped like `like` (zeros at first), stored
    back so that the flex_c step updates it in place."""
    m = state.get(key)
    m = np.zeros(like.shape, np.float32) if m is None else np.ascontiguousarray(m, np.float32)
    state[key] = m
    return m


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01, as in PyTorch)."""

    defaults = {"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}
    decoupled = True


class RMSprop(Optimizer):
    """RMSprop with optional momentum and weight decay."""

    defaults = {"alpha": 0.99, "eps": 1e-8, "weight_decay": 0.0, "momentum": 0.0}

    def update(self, index, value, grad):
        o = self.options
        if o["weight_decay"]:
            grad = grad + o["weight_decay"] * value
        s = self.state.setdefault(index, {})
        sq = s["square_avg"] = o["alpha"] * s.get("square_avg", 0.0) + \
            (1.0 - o["alpha"]) * grad * grad
        step = grad / (np.sqrt(sq) + o["eps"])
        if o["momentum"]:
            step = s["momentum"] = o["momentum"] * s.get("momentum", 0.0) + step
        return value - self.lr * step


def clip_grad_norm_(params, max_norm):
    """Scale all gradients so their joint L2 norm is at most `max_norm`; returns the norm."""
    params = [p for p in params if p.grad is not None]
    total = float(np.sqrt(sum(float((_np(p.grad) ** 2).sum()) for p in params)))
    if total > max_norm > 0:
        factor = max_norm / (total + 1e-6)
        with no_grad():
            for p in params:
                p.grad = p.grad * factor
    return total


def clip_grad_value_(params, limit):
    """Clamp every gradient element to [-limit, limit]."""
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad = p.grad.clamp(-limit, limit)

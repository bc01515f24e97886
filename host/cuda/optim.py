"""Adam on the GPU: the update of each parameter is one CUDA kernel, with the moments and
the step count kept on the device, so a step copies nothing to the host and can be
recorded in a CUDA graph (burn.host.cuda.graph)."""

import numpy as np

from ..train import optim
from .graph import device_array

_BODY = """
double bc1 = 1.0 - pow(b1, (double)t[0]);
double bc2 = 1.0 - pow(b2, (double)t[0]);
float grad = g;
float value = p;
if (wd != 0.0) {
    if (decoupled) value = value * (float)(1.0 - lr * wd);
    else grad = grad + (float)wd * value;
}
m = m * (float)b1;
m = m + (float)(1.0 - b1) * grad;
v = v * (float)b2;
v = v + (float)(1.0 - b2) * grad * grad;
p = value - (float)lr * (m / (float)bc1) / (sqrt(v / (float)bc2) + (float)eps);
"""
_KERNELS = {}


def _kernels(cupy):
    """(update, tick) kernels: the Adam step of one parameter, and the step counter + 1."""
    if "update" not in _KERNELS:
        # The update computes as the numpy step does: float32 arrays, scalars worked out
        # in double and rounded once; no fused multiply-adds.
        _KERNELS["update"] = cupy.ElementwiseKernel(
            "float32 g, float64 lr, float64 b1, float64 b2, float64 eps, float64 wd, "
            "bool decoupled, raw int32 t", "float32 p, float32 m, float32 v", _BODY,
            "burn_adam", options=("--fmad=false",))
        _KERNELS["tick"] = cupy.ElementwiseKernel("", "int32 t", "t = t + 1", "burn_tick")
    return _KERNELS["update"], _KERNELS["tick"]


class Adam(optim.Adam):
    """burn.host.train.optim.Adam for parameters on the cupy backend (AdamW with
    decoupled=True), updated in place on the GPU. One step counter serves all the
    parameters. state_dict() and load_state_dict() speak the host Adam's format."""

    on_device = True

    def __init__(self, params, lr=1e-3, **options):
        import cupy

        super().__init__(params, lr, **options)
        self.cupy = cupy
        self.moments = {}
        self.counter = None

    def step(self):
        """Update every parameter that has a gradient, on the GPU."""
        cp = self.cupy
        update, tick = _kernels(cp)
        if self.counter is None:
            self.counter = cp.full(1, self.steps, dtype=np.int32)
        self.steps += 1
        tick(self.counter)
        o = self.options
        b1, b2 = o["betas"]
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            value = device_array(p)
            m, v = self._moments(i, value)
            update(device_array(p.grad), self.lr, b1, b2, o["eps"], o["weight_decay"],
                   self.decoupled, self.counter, value, m, v)

    def _moments(self, index, like):
        if index not in self.moments:
            s = self.state.get(index, {})
            self.moments[index] = tuple(
                self.cupy.asarray(s[k], dtype=np.float32).reshape(like.shape) if k in s
                else self.cupy.zeros_like(like) for k in ("m", "v"))
        return self.moments[index]

    def state_dict(self):
        """The host Adam's state_dict: moments copied to numpy, each `t` the step count."""
        self.state = dict(self.state)
        self.state.update({i: {"t": self.steps, "m": m.get(), "v": v.get()}
                           for i, (m, v) in self.moments.items()})
        return super().state_dict()

    def load_state_dict(self, state):
        """Restore what a state_dict (of this or the host Adam) returned."""
        super().load_state_dict(state)
        self.moments = {}
        self.counter = None


class AdamW(Adam):
    """AdamW on the GPU (decoupled weight decay, default 0.01)."""

    defaults = optim.AdamW.defaults
    decoupled = True

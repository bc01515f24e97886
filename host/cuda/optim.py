"""Adam on the GPU: one CUDA kernel updates every parameter (up to SLOTS of them per
launch, their pointers passed as kernel arguments), with the moments and the step count
kept on the device, so a step copies nothing to the host and can be recorded in a CUDA
graph (burn.host.cuda.graph)."""

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
# Parameters one launch updates; fewer are padded with empty slots.
SLOTS = 32
_THREADS = 256
_KERNELS = {}


def multi_tensor_source(slots):
    """CUDA source of `burn_adam_multi`: thread k updates element k of the parameters laid
    end to end (slot i ends at element e<i>) with _BODY."""
    params = "".join(", float* p%d, const float* g%d, float* m%d, float* v%d, long long e%d"
                     % ((i,) * 5) for i in range(slots))
    pick = "".join("    %sif (k < e%d) { P = p%d; G = g%d; M = m%d; V = v%d; start = %s; }\n"
                   % ("else " if i else "", i, i, i, i, i, "e%d" % (i - 1) if i else "0")
                   for i in range(slots))
    return ('extern "C" __global__ void burn_adam_multi(long long total, double lr, '
            'double b1, double b2, double eps, double wd, int decoupled, const int* t'
            + params + ") {\n"
            "    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
            "    if (k >= total) return;\n"
            "    float *P = 0, *M = 0, *V = 0; const float* G = 0; long long start = 0;\n"
            + pick +
            "    k -= start;\n"
            "    float g = G[k]; float& p = P[k]; float& m = M[k]; float& v = V[k];\n"
            + _BODY + "}\n")


def _kernels(cupy):
    """(update, tick) kernels: the Adam step of up to SLOTS parameters, and the step
    counter + 1."""
    if "update" not in _KERNELS:
        # The update computes as the numpy step does: float32 arrays, scalars worked out
        # in double and rounded once; no fused multiply-adds.
        module = cupy.RawModule(code=multi_tensor_source(SLOTS), options=("--fmad=false",))
        _KERNELS["update"] = module.get_function("burn_adam_multi")
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
        scalars = [np.float64(x) for x in (self.lr, b1, b2, o["eps"], o["weight_decay"])]
        scalars += [np.int32(self.decoupled), self.counter]
        slots = []
        for i, p in enumerate(self.params):
            if p.grad is not None:
                slots.append(self._slot(i, p))
        for first in range(0, len(slots), SLOTS):
            _launch(update, slots[first:first + SLOTS], scalars)

    def _slot(self, index, p):
        """(value, grad, m, v) of parameter `index`, all contiguous float32 arrays."""
        value = device_array(p)
        if not value.flags.c_contiguous:
            raise RuntimeError("GPU Adam: parameter %d is not stored contiguously" % index)
        m, v = self._moments(index, value)
        return value, self.cupy.ascontiguousarray(device_array(p.grad)), m, v

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


def _launch(update, slots, scalars):
    """One burn_adam_multi launch over `slots` ((value, grad, m, v) each); unused slots
    repeat the last one with its end at the total, so no thread reaches them."""
    args, end = [], 0
    for value, grad, m, v in slots:
        end += value.size
        args += [value, grad, m, v, np.int64(end)]
    args += args[-5:] * (SLOTS - len(slots))
    if end:
        blocks = (end + _THREADS - 1) // _THREADS
        update((blocks,), (_THREADS,), tuple([np.int64(end)] + scalars + args))


class AdamW(Adam):
    """AdamW on the GPU (decoupled weight decay, default 0.01)."""

    defaults = optim.AdamW.defaults
    decoupled = True

"""Softmax cross-entropy on the GPU: the forward pass (log-softmax, the one-hot or smoothed
weights, the negative log-likelihood and the batch reduction) is one kernel, the gradient
another.

The generic node (burn.host.autodiff.helpers.Inner.cross_entropy_forward) runs a
log-softmax (four kernels), builds the weights (three or five) and reduces twice; its
gradient takes about six more. Here one block walks the rows, a warp per row: it finds the
row's maximum and the log of its sum of exponentials, sums w * log_softmax and the weights,
keeps those four numbers per row for the gradient, and adds the rows up. The gradient
kernel recomputes log_softmax from them, one thread per logit.

Results: log_softmax, its exponential and the gradient are the generic node's expressions
(no fused multiply-add), but its sums (of exponentials, of a row, of the batch) run in
another order, so losses and gradients agree with it within float32 rounding (tests:
relative 1e-5). Class indices outside [0, classes) weigh nothing, as in the generic node.
"""

import numpy as np

_THREADS = 256
_SOURCE = r"""
#define THREADS 256

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Weight of class j in a row whose target is t.
__device__ float weight(int j, int t, float keep, float spread, int smooth) {
    float w = j == t ? 1.0f : 0.0f;
    return smooth ? w * keep + spread : w;
}

// stats: [n, 3] row maximum, log of the row's sum of exp(x - max), sum of the weights.
// loss: [n] (per_row) or [1].
extern "C" __global__ void burn_xent_forward(
        const float* x, const int* target, float* stats, float* loss, int n, int c,
        float keep, float spread, int smooth, float factor, int per_row) {
    __shared__ float partial[THREADS / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float total = 0.0f;
    for (int r = warp; r < n; r += THREADS / 32) {
        const float* row = x + (long long)r * c;
        float top = -__int_as_float(0x7f800000);  // -infinity
        for (int j = lane; j < c; j += 32) top = fmaxf(top, row[j]);
        for (int o = 16; o > 0; o >>= 1) top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o));
        float s = 0.0f;
        for (int j = lane; j < c; j += 32) s += expf(row[j] - top);
        float lse = logf(warp_sum(s));
        int t = target[r];
        float dot = 0.0f, ws = 0.0f;
        for (int j = lane; j < c; j += 32) {
            float w = weight(j, t, keep, spread, smooth);
            dot += ((row[j] - top) - lse) * w;
            ws += w;
        }
        dot = warp_sum(dot);
        ws = warp_sum(ws);
        if (lane == 0) {
            stats[3 * r] = top;
            stats[3 * r + 1] = lse;
            stats[3 * r + 2] = ws;
            if (per_row) loss[r] = dot * factor;
        }
        total += dot;
    }
    if (per_row) return;
    if (lane == 0) partial[warp] = total;
    __syncthreads();
    if (warp == 0) {
        total = warp_sum(lane < THREADS / 32 ? partial[lane] : 0.0f);
        if (lane == 0) loss[0] = total * factor;
    }
}

// gx[r, j] = (exp(log_softmax) * sum(w) - w) * (g * -factor), g per row or one value.
extern "C" __global__ void burn_xent_backward(
        const float* x, const int* target, const float* stats, const float* g, float* gx,
        int n, int c, float keep, float spread, int smooth, float factor, int per_row) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= (long long)n * c) return;
    int r = (int)(k / c), j = (int)(k % c);
    float p = expf((x[k] - stats[3 * r]) - stats[3 * r + 1]);
    float w = weight(j, target[r], keep, spread, smooth);
    gx[k] = (p * stats[3 * r + 2] - w) * (g[per_row ? r : 0] * -factor);
}
"""
_MODULE = []


def _kernel(cupy, name):
    if not _MODULE:
        _MODULE.append(cupy.RawModule(code=_SOURCE, options=("--fmad=false",)))
    return _MODULE[0].get_function(name)


def _constants(n, c, smoothing, reduction):
    """The kernels' shared arguments after n and c: keep, spread, smooth, factor, per_row."""
    factor = -1.0 / n if reduction == "mean" else -1.0
    return (np.float32(1.0 - smoothing), np.float32(smoothing / c), np.int32(bool(smoothing)),
            np.float32(factor), np.int32(reduction == "none"))


def forward(cupy, logits, target, n, c, smoothing, reduction):
    """(loss, saved) as burn.host.autodiff.helpers.Inner.cross_entropy_forward defines
    them: float32 logits [n, c] and int32 targets [n] on the GPU (n, c >= 1)."""
    logits = cupy.ascontiguousarray(logits, dtype=np.float32).reshape(-1)
    target = cupy.ascontiguousarray(target, dtype=np.int32).reshape(-1)
    stats = cupy.empty(3 * n, np.float32)
    loss = cupy.empty(n if reduction == "none" else 1, np.float32)
    consts = _constants(n, c, smoothing, reduction)
    _kernel(cupy, "burn_xent_forward")(
        (1,), (_THREADS,), (logits, target, stats, loss, np.int32(n), np.int32(c)) + consts)
    return loss, (logits, target, stats, n, c, consts)


def backward(cupy, g, saved):
    """The logits' gradient [n * c] for the loss gradient `g` (one value, or n with
    reduction "none")."""
    logits, target, stats, n, c, consts = saved
    g = cupy.ascontiguousarray(g, dtype=np.float32).reshape(-1)
    gx = cupy.empty(n * c, np.float32)
    blocks = (n * c + _THREADS - 1) // _THREADS
    _kernel(cupy, "burn_xent_backward")(
        (blocks,), (_THREADS,), (logits, target, stats, g, gx, np.int32(n), np.int32(c)) +
        consts)
    return gx

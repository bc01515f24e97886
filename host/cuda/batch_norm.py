"""Batch normalisation over dim 1 on the GPU: the forward pass is one kernel, the backward
pass another.

The generic pair (burn.host.autodiff.helpers.Inner.batch_norm_forward / _backward) moves
the channels first and runs a reduction or an elementwise kernel per step of the formula,
about 15 kernels forward and 12 backward. Here blocks of 1024 threads sum a channel's
statistics in shared memory, then write its slice of the output, in one launch; the
backward pass likewise sums its two gradient statistics and writes the input's gradient,
recomputing the normalised input from `x`, mean and 1/std instead of keeping it.
On GPUs with thread block clusters (compute capability 9.0 on) a channel is shared by a
cluster of 8 blocks, which add their partial sums in rank order after a cluster barrier:
with one block per channel, a few wide channels (16 in ResNet-8's first stage) kept most
of the GPU idle.

Results: the elementwise steps are the generic pair's expressions in its order (no fused
multiply-add), so for the same statistics the outputs are the same bits; the sums run in
another order than CuPy's reductions, so the statistics (and through them the outputs)
agree with the generic pair within float32 rounding of a sum of m values (tests: relative
1e-5, 1e-4 for the gradients). float32, any [n, c, ...] shape with n * rest >= 1.
"""

import numpy as np

_THREADS = 1024
_SOURCE = r"""
#define THREADS 1024

// Sum of v over the block; every thread gets it. `shared` holds THREADS / 32 floats.
__device__ float block_sum(float v, float* shared) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();  // `shared` may still be read by a previous call
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = lane < THREADS / 32 ? shared[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// CLUSTER blocks (a thread block cluster, sm_90 and later) share a channel: block `rank`
// of the cluster takes elements rank * THREADS + t, STRIDE apart.
#define STRIDE (THREADS * CLUSTER)
#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif

// The sum of every block's `v` (each block's total, as block_sum gives it) over the
// cluster, added in rank order through `slot` (CLUSTER floats of global memory).
__device__ float cluster_sum(float v, float* slot, int rank) {
#if CLUSTER > 1
    if (threadIdx.x == 0) { slot[rank] = v; __threadfence(); }
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    v = 0.0f;
    for (int r = 0; r < CLUSTER; ++r) v += __ldcg(slot + r);
#endif
    return v;
}

// Runs `body` with `i` the offset of each of this block's elements of channel ch of an
// [n, c, rest] array, stepping the plane b and position k without division.
#define EACH(i, body) { \
    long long e0 = rank * THREADS + threadIdx.x; \
    long long b = e0 / rest; int k = e0 % rest; \
    for (long long e = e0; e < m; e += STRIDE) { \
        long long i = (b * c + ch) * rest + k; body \
        k += step_k; b += step_b; if (k >= rest) { k -= rest; ++b; } } }
#define CHANNEL_SETUP \
    __shared__ float shared[THREADS / 32]; \
    int ch = blockIdx.x / CLUSTER, rank = blockIdx.x % CLUSTER, step_k = STRIDE % rest; \
    long long step_b = STRIDE / rest; \
    float* slots = scratch + 2 * CLUSTER * ch;

extern "C" __global__ void CLUSTER_DIMS burn_bn_forward(
        const float* x, float* y, float* mean, float* var, float* rstd,
        const float* weight, const float* bias, int batch, int c, int rest, long long m,
        float inv_m, float eps, float* scratch) {
    CHANNEL_SETUP
    float mu, v;
    if (batch) {
        float s = 0.0f;
        EACH(i, s += x[i];)
        mu = cluster_sum(block_sum(s, shared), slots, rank) * inv_m;
        s = 0.0f;
        EACH(i, float d = x[i] - mu; s += d * d;)
        v = cluster_sum(block_sum(s, shared), slots + CLUSTER, rank) * inv_m;
        if (threadIdx.x == 0 && rank == 0) { mean[ch] = mu; var[ch] = v; }
    } else {
        mu = mean[ch];
        v = var[ch];
    }
    float r = 1.0f / sqrtf(v + eps);
    if (threadIdx.x == 0 && rank == 0) rstd[ch] = r;
    float w = weight ? weight[ch] : 1.0f, bb = bias ? bias[ch] : 0.0f;
    EACH(i, float t = (x[i] - mu) * r; if (weight) t = t * w; if (bias) t = t + bb;
         y[i] = t;)
}

extern "C" __global__ void CLUSTER_DIMS burn_bn_backward(
        const float* g, const float* x, const float* mean, const float* rstd,
        const float* weight, float* gx, float* gw, float* gb, int batch, int c, int rest,
        long long m, float fm, float inv_m, float* scratch) {
    CHANNEL_SETUP
    float mu = mean[ch], r = rstd[ch];
    float s_g = 0.0f, s_gx = 0.0f;
    EACH(i, float d = g[i]; s_g += d; s_gx += d * ((x[i] - mu) * r);)
    float sum_g = cluster_sum(block_sum(s_g, shared), slots, rank);
    float sum_gx = cluster_sum(block_sum(s_gx, shared), slots + CLUSTER, rank);
    if (threadIdx.x == 0 && rank == 0) { gw[ch] = sum_gx; gb[ch] = sum_g; }
    if (!gx) return;
    float w = weight ? weight[ch] : 1.0f;
    float s1 = weight ? sum_g * w : sum_g, s2 = weight ? sum_gx * w : sum_gx;
    float scale = r * inv_m;
    EACH(i, float gxhat = weight ? g[i] * w : g[i];
         gx[i] = batch ? (gxhat * fm - ((x[i] - mu) * r * s2 + s1)) * scale : gxhat * r;)
}
"""
# Blocks per channel: None picks 8 (a thread block cluster) on GPUs of compute capability
# 9.0 and later, 1 before them.
CLUSTER = None
_MODULES = {}


def _cluster(cupy):
    if CLUSTER is not None:
        return CLUSTER
    return 8 if int(cupy.cuda.Device().compute_capability) >= 90 else 1


def _launch(cupy, name, c, args):
    """Run kernel `name` over `c` channels with `args` and a scratch buffer for the
    cluster's partial sums."""
    cluster = _cluster(cupy)
    if cluster not in _MODULES:
        _MODULES[cluster] = cupy.RawModule(code=_SOURCE, options=(
            "--fmad=false", "-DCLUSTER=%d" % cluster))
    scratch = cupy.empty(2 * cluster * c, np.float32)
    _MODULES[cluster].get_function(name)((c * cluster,), (_THREADS,), args + (scratch,))


def _f32(cupy, a):
    return cupy.ascontiguousarray(a, dtype=np.float32)


def forward(cupy, x, shape, mean, var, weight, bias, eps):
    """(y, mean, var, saved) as burn.host.autodiff.helpers.Inner.batch_norm_forward
    defines them, for float32 `x` of `shape` (flat or shaped) on the GPU."""
    n, c = shape[0], shape[1]
    m = x.size // c
    x = _f32(cupy, x).reshape(-1)
    y = cupy.empty_like(x)
    batch = mean is None
    if batch:
        mean, var = cupy.empty(c, np.float32), cupy.empty(c, np.float32)
    else:
        mean, var = _f32(cupy, mean), _f32(cupy, var)
    rstd = cupy.empty(c, np.float32)
    weight = None if weight is None else _f32(cupy, weight)
    bias = None if bias is None else _f32(cupy, bias)
    if x.size:  # else an empty batch in evaluation: nothing to normalise
        _launch(cupy, "burn_bn_forward", c,
                (x, y, mean, var, rstd, weight, bias, np.int32(batch), np.int32(c),
                 np.int32(m // n), np.int64(m), np.float32(1.0 / m), np.float32(eps)))
    return y, mean, var, (shape, x, mean, rstd, batch)


def backward(cupy, g, saved, weight, need_x):
    """(gx or None, gweight, gbias) as Inner.batch_norm_backward defines them."""
    shape, x, mean, rstd, batch = saved
    c = shape[1]
    m = x.size // c
    g = _f32(cupy, g).reshape(-1)
    gx = cupy.empty_like(x) if need_x else None
    gw, gb = cupy.zeros(c, np.float32), cupy.zeros(c, np.float32)
    weight = None if weight is None else _f32(cupy, weight)
    if x.size:
        _launch(cupy, "burn_bn_backward", c,
                (g, x, mean, rstd, weight, gx, gw, gb, np.int32(batch), np.int32(c),
                 np.int32(m // shape[0]), np.int64(m), np.float32(m), np.float32(1.0 / m)))
    return gx, gw, gb

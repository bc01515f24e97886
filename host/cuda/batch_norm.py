"""Batch normalisation over dim 1 on the GPU: the forward pass is one kernel, the backward
pass another.

The generic pair (burn.host.autodiff.helpers.Inner.batch_norm_forward / _backward) moves
the channels first and runs a reduction or an elementwise kernel per step of the formula,
about 15 kernels forward and 12 backward. Here blocks sum a channel's statistics in shared
memory, then write its slice of the output, in one launch; the backward pass likewise sums
its two gradient statistics and writes the input's gradient, recomputing the normalised
input from `x`, mean and 1/std instead of keeping it.
On GPUs with thread block clusters (compute capability 9.0 on) a channel is shared by a
cluster of up to 8 blocks, which add their partial sums in rank order after a cluster
barrier: with one block per channel, a few wide channels (16 in ResNet-8's first stage) kept
most of the GPU idle. A channel gets about one thread per 8 loads, in blocks of 256 threads
(1024 for the widest channels): a fixed 8 blocks of 1024 had left most threads of a small
channel idle. Each thread moves four floats a load where a plane's length divides by 4
(float4; one float a load otherwise), its loop unrolled so that several loads are in flight.

Results: the elementwise steps are the generic pair's expressions in its order (no fused
multiply-add), so for the same statistics the outputs are the same bits; the sums run in
another order than CuPy's reductions, so the statistics (and through them the outputs)
agree with the generic pair within float32 rounding of a sum of m values (tests: relative
1e-5, 1e-4 for the gradients). float32, any [n, c, ...] shape with n * rest >= 1.
"""

import numpy as np

_SOURCE = r"""
// THREADS (threads a block) and CLUSTER (blocks a channel) come from the compile options.

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

// A thread moves V consecutive elements at a time (float4 where a plane's length divides by
// 4 and the arrays are 16-byte aligned): four times the bytes in flight per load.
template <int V> struct Vec { typedef float T; };
template <> struct Vec<4> { typedef float4 T; };
__device__ __forceinline__ float total(float v) { return v; }
__device__ __forceinline__ float total(float4 v) { return (v.x + v.y) + (v.z + v.w); }
template <typename F> __device__ __forceinline__ float map(float a, F f) { return f(a); }
template <typename F> __device__ __forceinline__ float4 map(float4 a, F f) {
    return make_float4(f(a.x), f(a.y), f(a.z), f(a.w));
}
template <typename F> __device__ __forceinline__ float map(float a, float b, F f) {
    return f(a, b);
}
template <typename F> __device__ __forceinline__ float4 map(float4 a, float4 b, F f) {
    return make_float4(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w));
}

// Runs `body` with `i` the offset (in vectors) of each of this block's vectors of channel ch
// of an [n, c, rest] array, stepping the plane b and position k without division; unrolled
// so that a thread's loads of several steps are in flight together.
#define EACH(i, body) { \
    I e0 = (I)rank * THREADS + threadIdx.x; \
    I b = e0 / rest; int k = (int)(e0 % rest); \
    _Pragma("unroll 4") \
    for (I e = e0; e < m; e += STRIDE) { \
        I i = (b * c + ch) * rest + k; body \
        k += step_k; b += step_b; if (k >= rest) { k -= rest; ++b; } } }
#define CHANNEL_SETUP \
    typedef typename Vec<V>::T vec; \
    __shared__ float shared[THREADS / 32]; \
    int ch = blockIdx.x / CLUSTER, rank = blockIdx.x % CLUSTER, \
        step_k = (int)(STRIDE % rest); \
    I step_b = STRIDE / rest; \
    float* slots = scratch + 2 * CLUSTER * ch;

// rest and m count vectors of V floats: a plane's length and a channel's size.
template <int V, typename I>
__global__ void CLUSTER_DIMS __launch_bounds__(THREADS, 1) burn_bn_forward(
        const float* __restrict__ xf, float* __restrict__ yf, float* mean, float* var,
        float* rstd, const float* weight, const float* bias, int batch, int c, I rest, I m,
        float inv_m, float eps, float* scratch) {
    CHANNEL_SETUP
    const vec* x = (const vec*)xf;
    vec* y = (vec*)yf;
    float mu, v;
    if (batch) {
        float s = 0.0f;
        EACH(i, s += total(x[i]);)
        mu = cluster_sum(block_sum(s, shared), slots, rank) * inv_m;
        s = 0.0f;
        EACH(i, s += total(map(x[i], [&](float t) { float d = t - mu; return d * d; }));)
        v = cluster_sum(block_sum(s, shared), slots + CLUSTER, rank) * inv_m;
        if (threadIdx.x == 0 && rank == 0) { mean[ch] = mu; var[ch] = v; }
    } else {
        mu = mean[ch];
        v = var[ch];
    }
    float r = 1.0f / sqrtf(v + eps);
    if (threadIdx.x == 0 && rank == 0) rstd[ch] = r;
    float w = weight ? weight[ch] : 1.0f, bb = bias ? bias[ch] : 0.0f;
    EACH(i, y[i] = map(x[i], [&](float t) {
        t = (t - mu) * r; if (weight) t = t * w; if (bias) t = t + bb; return t; });)
}

template <int V, typename I>
__global__ void CLUSTER_DIMS __launch_bounds__(THREADS, 1) burn_bn_backward(
        const float* __restrict__ gf, const float* __restrict__ xf, const float* mean,
        const float* rstd, const float* weight, float* __restrict__ gxf, float* gw,
        float* gb, int batch, int c, I rest, I m, float fm, float inv_m, float* scratch) {
    CHANNEL_SETUP
    const vec* g = (const vec*)gf;
    const vec* x = (const vec*)xf;
    vec* gx = (vec*)gxf;
    float mu = mean[ch], r = rstd[ch];
    float s_g = 0.0f, s_gx = 0.0f;
    EACH(i, vec d = g[i]; s_g += total(d);
         s_gx += total(map(d, x[i], [&](float dd, float t) { return dd * ((t - mu) * r); }));)
    float sum_g = cluster_sum(block_sum(s_g, shared), slots, rank);
    float sum_gx = cluster_sum(block_sum(s_gx, shared), slots + CLUSTER, rank);
    if (threadIdx.x == 0 && rank == 0) { gw[ch] = sum_gx; gb[ch] = sum_g; }
    if (!gxf) return;
    float w = weight ? weight[ch] : 1.0f;
    float s1 = weight ? sum_g * w : sum_g, s2 = weight ? sum_gx * w : sum_gx;
    float scale = r * inv_m;
    EACH(i, gx[i] = map(g[i], x[i], [&](float gg, float t) {
        float gxhat = weight ? gg * w : gg;
        return batch ? (gxhat * fm - ((t - mu) * r * s2 + s1)) * scale : gxhat * r; });)
}
"""
# The most blocks a channel: None picks 8 (a thread block cluster) on GPUs of compute
# capability 9.0 and later, 1 before them.
CLUSTER = None
# Arrays whose offsets reach this far are indexed in 64 bits (lowered by the tests).
WIDE_FROM = 2 ** 31 - 1
_KERNELS = [(name, width, index) for name in ("burn_bn_forward", "burn_bn_backward")
            for width in (1, 4) for index in ("int", "long long")]
_MODULES = {}


def _cluster(cupy):
    if CLUSTER is not None:
        return CLUSTER
    return 8 if int(cupy.cuda.Device().compute_capability) >= 90 else 1


def _blocks(cupy, steps):
    """(threads a block, blocks a channel) for a channel of `steps` loads: enough threads
    for about 8 loads each, in the fewest blocks of 256 (then of 1024) the GPU's clusters
    allow. Too many threads for a small channel left most of them idle and its blocks
    queued behind each other."""
    most = _cluster(cupy)
    for threads in (256, 1024):
        for cluster in (1, 2, 4, 8):
            if cluster <= most and threads * cluster * 8 >= steps:
                return threads, cluster
    return 1024, most


def _launch(cupy, name, c, arrays, planes, rest, scalars):
    """Run kernel `name` over `c` channels of [n, c, rest] arrays: float4 steps where
    `rest` divides by 4 and each of `planes` (the arrays of that shape) is 16-byte aligned,
    32-bit offsets where they fit, and a scratch buffer for the cluster's partial sums
    after the arguments."""
    width = 4 if rest % 4 == 0 and all(
        a is None or a.data.ptr % 16 == 0 for a in planes) else 1
    m = planes[0].size // c
    threads, cluster = _blocks(cupy, m // width)
    if (threads, cluster) not in _MODULES:
        _MODULES[threads, cluster] = cupy.RawModule(code=_SOURCE, options=(
            "--fmad=false", "-std=c++17", "-DTHREADS=%d" % threads, "-DCLUSTER=%d" % cluster),
            name_expressions=["%s<%d, %s>" % kernel for kernel in _KERNELS])
    index = "int" if planes[0].size + threads * cluster < WIDE_FROM else "long long"
    to_index = np.int32 if index == "int" else np.int64
    scratch = cupy.empty(2 * cluster * c, np.float32)
    kernel = _MODULES[threads, cluster].get_function("%s<%d, %s>" % (name, width, index))
    kernel((c * cluster,), (threads,), arrays + scalars[:2] + (
        to_index(rest // width), to_index(m // width)) + scalars[2:] + (scratch,))


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
        _launch(cupy, "burn_bn_forward", c, (x, y, mean, var, rstd, weight, bias), (x, y),
                m // n,
                (np.int32(batch), np.int32(c), np.float32(1.0 / m), np.float32(eps)))
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
        _launch(cupy, "burn_bn_backward", c, (g, x, mean, rstd, weight, gx, gw, gb),
                (g, x, gx), m // shape[0],
                (np.int32(batch), np.int32(c), np.float32(m), np.float32(1.0 / m)))
    return gx, gw, gb

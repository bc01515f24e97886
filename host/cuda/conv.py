"""Float32 convolutions on the GPU that read the input's windows in place (implicit GEMM).

The im2col path (burn.host.cuda.windows.im2col, then a batched cuBLAS product) writes
every window of the input out as columns, kh * kw times the input's size, reads them back
in the product and keeps them for the weight gradient. Here the forward pass and the
weight gradient are each one kernel that gathers the windows straight from the input into
shared memory, tile by tile: nothing is written out but the result.

Both kernels multiply tiles of BM x BN outputs, BK = 16 steps of the reduction at a time,
256 threads each computing 4 x 4 outputs; the next tile's values are loaded into
registers while the current one is multiplied (two shared-memory buffers, one barrier a
step). A reduction index k = (channel, i, j) is a "tap": its offset in the input and its
displacement (i * dh, j * dw), found once per block in a table, so the loads do no
division.

- forward: out[b, o, p] = sum over k of w[o, k] * window(b, k, p), p = (oy, ox) an output
  position, the window value zero outside the input. Tiles: BM output channels by BN
  positions (BM = 16, 32 or 64 by the channel count, BN = 4096 / BM).
- weight gradient: gw[o, k] = sum over (b, p) of g[b, o, p] * window(b, k, p). The sum
  over positions is split among blocks; each writes its partial [o, K] and the partials are
  added in order afterwards (no atomics: the same bits on every run).

Results agree with the im2col path within float32 rounding (the products sum in another
order, with fused multiply-adds as cuBLAS's do). `supported` says when these kernels
apply: float32, one group (the cupy backend's `conv2d_by_image`), 32-bit offsets, and a
tap table that fits shared memory.
"""

import numpy as np

from .windows import reach, strides

_SOURCE = r"""
#define THREADS 256
#define BK 16

struct Tap { int off, dy, dx; };

__device__ __forceinline__ Tap make_tap(int k, int khw, int kw, int dh, int dw, int xc,
                                        int xh, int xw) {
    int ch = k / khw, r = k - ch * khw, i = r / kw, j = r - i * kw;
    Tap t;
    t.off = ch * xc + i * dh * xh + j * dw * xw;
    t.dy = i * dh;
    t.dx = j * dw;
    return t;
}

// acc[mi][ni] += a[m0 + mi] * b[n0 + ni] over the BK steps of one buffer.
template <int AW, int BW>
__device__ __forceinline__ void multiply(float (&acc)[4][4], const float (*a)[AW],
                                         const float (*b)[BW], int m0, int n0) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        float4 av = *(const float4*)&a[k][m0];
        float4 bv = *(const float4*)&b[k][n0];
        float am[4] = {av.x, av.y, av.z, av.w}, bn[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
            for (int ni = 0; ni < 4; ++ni) acc[mi][ni] += am[mi] * bn[ni];
    }
}

// out [n, o, oh, ow] (contiguous) = w [o, K] times the windows of x [n, c, h, w] (any
// strides xn, xc, xh, xw). Tiles of BM channels by BN = 4096 / BM positions; `taps` is
// dynamic shared memory of K entries.
template <int BM>
__global__ void __launch_bounds__(THREADS) burn_conv_forward(
        const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out,
        int n, int c, int h, int wd, int o, int kh, int kw, int oh, int ow, int sh, int sw,
        int pt, int pl, int dh, int dw, int xn, int xc, int xh, int xw) {
    constexpr int BN = 4096 / BM, TX = BN / 4;
    constexpr int XR = BK * BN / THREADS, WR = BM * BK / THREADS, XSTEP = THREADS / BN;
    __shared__ __align__(16) float as[2][BK][BM + 4];
    __shared__ __align__(16) float bs[2][BK][BN];
    extern __shared__ Tap taps[];
    const int tid = threadIdx.x, khw = kh * kw, K = c * khw, hw = oh * ow, P = n * hw;
    for (int k = tid; k < K; k += THREADS) taps[k] = make_tap(k, khw, kw, dh, dw, xc, xh, xw);
    const int p0 = blockIdx.x * BN, o0 = blockIdx.y * BM;
    // This thread loads the window values of one position (column xcol of the tile) at
    // rows xrow + XSTEP * q, and the weights of rows wrow + 16 * q at column wcol.
    const int xcol = tid % BN, xrow = tid / BN, wcol = tid % BK, wrow = tid / BK;
    const int p = p0 + xcol;
    const bool live = p < P;
    int iy0 = 0, ix0 = 0, base = 0;
    if (live) {
        int b = p / hw, q = p - b * hw, oy = q / ow, ox = q - oy * ow;
        iy0 = oy * sh - pt;
        ix0 = ox * sw - pl;
        base = b * xn + iy0 * xh + ix0 * xw;
    }
    __syncthreads();
    float xr[XR], wr[WR];
    auto load = [&](int k0) {
#pragma unroll
        for (int q = 0; q < XR; ++q) {
            int k = k0 + xrow + XSTEP * q;
            float v = 0.0f;
            if (live && k < K) {
                Tap t = taps[k];
                if ((unsigned)(iy0 + t.dy) < (unsigned)h && (unsigned)(ix0 + t.dx) < (unsigned)wd)
                    v = x[base + t.off];
            }
            xr[q] = v;
        }
#pragma unroll
        for (int q = 0; q < WR; ++q) {
            int m = o0 + wrow + 16 * q, k = k0 + wcol;
            wr[q] = m < o && k < K ? w[m * K + k] : 0.0f;
        }
    };
    auto store = [&](int buf) {
#pragma unroll
        for (int q = 0; q < XR; ++q) bs[buf][xrow + XSTEP * q][xcol] = xr[q];
#pragma unroll
        for (int q = 0; q < WR; ++q) as[buf][wcol][wrow + 16 * q] = wr[q];
    };
    float acc[4][4] = {};
    const int ty = tid / TX, tx = tid % TX, steps = (K + BK - 1) / BK;
    load(0);
    store(0);
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        const int buf = s & 1;
        if (s + 1 < steps) load((s + 1) * BK);
        multiply(acc, as[buf], bs[buf], ty * 4, tx * 4);
        if (s + 1 < steps) store(buf ^ 1);
        __syncthreads();
    }
    int first = p0 + tx * 4, b = first / hw, q = first - b * hw;
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
        if (first + ni < P) {
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                int m = o0 + ty * 4 + mi;
                if (m < o) out[(b * o + m) * hw + q] = acc[mi][ni];
            }
        }
        if (++q == hw) { q = 0; ++b; }
    }
}

// part [splits, o, K]: block z's sum, over its `chunk` positions (b, oy, ox), of g [n, o,
// oh, ow] (contiguous) times the windows of x. Tiles of BM channels by BN = 4096 / BM taps.
template <int BM>
__global__ void __launch_bounds__(THREADS) burn_conv_grad_weight(
        const float* __restrict__ g, const float* __restrict__ x, float* __restrict__ part,
        int n, int c, int h, int wd, int o, int kh, int kw, int oh, int ow, int sh, int sw,
        int pt, int pl, int dh, int dw, int xn, int xc, int xh, int xw, int chunk) {
    constexpr int BN = 4096 / BM, TX = BN / 4;
    constexpr int XR = BN / 16, GR = BM / 16;
    __shared__ __align__(16) float as[2][BK][BM + 4];
    __shared__ __align__(16) float bs[2][BK][BN + 4];
    __shared__ Tap taps[BN];
    const int tid = threadIdx.x, khw = kh * kw, K = c * khw, hw = oh * ow, P = n * hw;
    const int k0 = blockIdx.x * BN, o0 = blockIdx.y * BM;
    for (int k = tid; k < BN; k += THREADS)
        if (k0 + k < K) taps[k] = make_tap(k0 + k, khw, kw, dh, dw, xc, xh, xw);
    // This thread loads, each step, position `row` of the step's 16: the window values of
    // taps col + 16 * q and the gradient of channels col + 16 * q.
    const int row = tid % BK, col = tid / BK;
    const int begin = blockIdx.z * chunk, end = min(P, begin + chunk);
    int p = begin + row, b = p / hw, q = p - b * hw, oy = q / ow, ox = q - oy * ow;
    __syncthreads();
    float xr[XR], gr[GR];
    auto load = [&]() {
        const bool live = p < end;
        const int iy0 = oy * sh - pt, ix0 = ox * sw - pl;
        const int base = b * xn + iy0 * xh + ix0 * xw;
#pragma unroll
        for (int r = 0; r < XR; ++r) {
            int k = col + 16 * r;
            float v = 0.0f;
            if (live && k0 + k < K) {
                Tap t = taps[k];
                if ((unsigned)(iy0 + t.dy) < (unsigned)h && (unsigned)(ix0 + t.dx) < (unsigned)wd)
                    v = x[base + t.off];
            }
            xr[r] = v;
        }
#pragma unroll
        for (int r = 0; r < GR; ++r) {
            int m = o0 + col + 16 * r;
            gr[r] = live && m < o ? g[(b * o + m) * hw + oy * ow + ox] : 0.0f;
        }
        // the position 16 steps on
        ox += BK;
        while (ox >= ow) {
            ox -= ow;
            if (++oy == oh) { oy = 0; ++b; }
        }
        p += BK;
    };
    auto store = [&](int buf) {
#pragma unroll
        for (int r = 0; r < XR; ++r) bs[buf][row][col + 16 * r] = xr[r];
#pragma unroll
        for (int r = 0; r < GR; ++r) as[buf][row][col + 16 * r] = gr[r];
    };
    float acc[4][4] = {};
    const int ty = tid / TX, tx = tid % TX, steps = (end - begin + BK - 1) / BK;
    if (steps > 0) {
        load();
        store(0);
    }
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        const int buf = s & 1;
        if (s + 1 < steps) load();
        multiply(acc, as[buf], bs[buf], ty * 4, tx * 4);
        if (s + 1 < steps) store(buf ^ 1);
        __syncthreads();
    }
    float* out = part + (long long)blockIdx.z * o * K;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) {
        int m = o0 + ty * 4 + mi;
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
            int k = k0 + tx * 4 + ni;
            if (m < o && k < K) out[m * K + k] = acc[mi][ni];
        }
    }
}
"""
_TILES = (16, 32, 64)
_NAMES = tuple("burn_conv_%s<%d>" % (kind, bm) for kind in ("forward", "grad_weight")
               for bm in _TILES)
# Shared memory a block may take without asking for more (the forward's tap table is
# dynamic, beside its static tiles).
_SHARED = 48 * 1024
_THREADS = 256
_MODULE = []
_SMS = []
# False sends every convolution through im2col columns (burn.host.cuda.windows), the path
# before these kernels: benchmarks compare the two.
IN_PLACE = True


def _kernel(cupy, kind, bm):
    if not _MODULE:
        _MODULE.append(cupy.RawModule(code=_SOURCE, options=("-std=c++17",),
                                      name_expressions=_NAMES))
    return _MODULE[0].get_function("burn_conv_%s<%d>" % (kind, bm))


def _tile(o):
    """The tile's channel count BM for `o` output channels."""
    return 16 if o <= 16 else 32 if o <= 32 else 64


def _forward_shared(o, taps):
    """Bytes of shared memory the forward kernel's block takes."""
    bm = _tile(o)
    return 4 * 2 * 16 * ((bm + 4) + 4096 // bm) + 12 * taps


def supported(x, w_shape, out_hw):
    """Whether these kernels take the one-group convolution of float32 `x` with weights of
    `w_shape` to `out_hw`: offsets that fit 31 bits, and a tap table that fits beside the
    tiles (so about 3,000 taps); and IN_PLACE."""
    if not IN_PLACE or x.dtype != np.float32 or x.size == 0:
        return False
    o, c, kh, kw = w_shape
    out = x.shape[0] * o * out_hw[0] * out_hw[1]
    if min(x.strides) < 0 or max(reach(x), out, o * c * kh * kw) >= 2 ** 31 - 1:
        return False
    return _forward_shared(o, c * kh * kw) <= _SHARED


def _geometry(x, w_shape, stride, padding, dilation, out_hw):
    n, c, h, wd = x.shape
    o, _, kh, kw = w_shape
    return [np.int32(v) for v in (n, c, h, wd, o, kh, kw, out_hw[0], out_hw[1], stride[0],
                                  stride[1], padding[0], padding[2], dilation[0],
                                  dilation[1])] + [np.int32(s) for s in strides(x)]


def forward(cupy, x, w, stride, padding, dilation, out_hw):
    """The convolution of float32 x [n, c, h, w] (any non-negative strides) with w [o, c,
    kh, kw], zero-padded by `padding` (top, bottom, left, right): [n, o, oh, ow]."""
    n, o = x.shape[0], w.shape[0]
    oh, ow = out_hw
    out = cupy.empty((n, o, oh, ow), np.float32)
    if out.size == 0:
        return out
    bm = _tile(o)
    taps = w.shape[1] * w.shape[2] * w.shape[3]
    grid = ((n * oh * ow + 4096 // bm - 1) // (4096 // bm), (o + bm - 1) // bm)
    _kernel(cupy, "forward", bm)(
        grid, (_THREADS,), [x, cupy.ascontiguousarray(w), out] +
        _geometry(x, w.shape, stride, padding, dilation, out_hw), shared_mem=12 * taps)
    return out


def grad_weight(cupy, g, x, w_shape, stride, padding, dilation):
    """d(loss)/d(w) [o, c, kh, kw] of forward's convolution from its output gradient g
    [n, o, oh, ow] and its input x."""
    n, o, oh, ow = g.shape
    taps = w_shape[1] * w_shape[2] * w_shape[3]
    g = cupy.ascontiguousarray(g, dtype=np.float32)
    bm = _tile(o)
    tiles = ((taps + 4096 // bm - 1) // (4096 // bm)) * ((o + bm - 1) // bm)
    positions = n * oh * ow
    if positions == 0:
        return cupy.zeros(w_shape, np.float32)
    # About two blocks per multiprocessor in all, each summing whole steps of 16 positions.
    if not _SMS:
        _SMS.append(cupy.cuda.Device().attributes["MultiProcessorCount"])
    sms = _SMS[0]
    splits = max(1, min(-(-2 * sms // tiles), -(-positions // 16)))
    chunk = 16 * -(-positions // (16 * splits))
    splits = -(-positions // chunk)
    part = cupy.empty((splits, o, taps), np.float32)
    _kernel(cupy, "grad_weight", bm)(
        ((taps + 4096 // bm - 1) // (4096 // bm), (o + bm - 1) // bm, splits),
        (_THREADS,), [g, x, part] +
        _geometry(x, w_shape, stride, padding, dilation, (oh, ow)) + [np.int32(chunk)])
    return part.sum(axis=0).reshape(w_shape)

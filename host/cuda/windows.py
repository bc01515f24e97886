"""Convolution windows on the GPU in one kernel launch each.

`im2col` gathers the zero-padded windows of an input into columns, and `scatter_windows`
sums window contributions back onto an input grid (col2im). The numpy implementations in
burn.host.backends.numpy_conv do either with one strided copy or add per kernel offset,
plus a fill and a copy for the padding: about a dozen launches for a 3x3 kernel, which
dominate a captured ResNet step. These read any strides (no copy to make an input
contiguous) and give the same bits: im2col only moves values, and scatter_windows adds each
grid position's contributions in the order the numpy version does, starting from zero.
float32 only; numpy_conv uses them through the cupy backend's array module.
"""

import numpy as np

_SOURCE = r"""
extern "C" __global__ void burn_im2col(
        const float* x, float* cols, long long total,
        int n, int h, int w, int kh, int kw, int oh, int ow,
        int sh, int sw, int pt, int pl, int dh, int dw,
        long long xn, long long xc, long long xh, long long xw) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= total) return;
    long long r = k;
    int ox = r % ow; r /= ow;
    int oy = r % oh; r /= oh;
    int b = r % n; r /= n;
    int j = r % kw; r /= kw;
    int i = r % kh; r /= kh;
    long long ch = r;
    int y = oy * sh - pt + i * dh;
    int xx = ox * sw - pl + j * dw;
    float v = 0.0f;
    if (y >= 0 && y < h && xx >= 0 && xx < w)
        v = x[b * xn + ch * xc + y * xh + xx * xw];
    cols[k] = v;
}

extern "C" __global__ void burn_col2im(
        const float* src, float* grid, long long total,
        int nb, int h, int w, int kh, int kw, int oh, int ow,
        int sh, int sw, int pt, int pl, int dh, int dw,
        long long sa, long long si, long long sj, long long sb, long long sy,
        long long sx) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= total) return;
    long long r = k;
    int x = r % w; r /= w;
    int y = r % h; r /= h;
    int b = r % nb; r /= nb;
    long long a = r;
    int yp = y + pt, xp = x + pl;
    float acc = 0.0f;
    for (int i = 0; i < kh; ++i) {
        int ty = yp - i * dh;
        if (ty < 0 || ty % sh) continue;
        int oy = ty / sh;
        if (oy >= oh) continue;
        for (int j = 0; j < kw; ++j) {
            int tx = xp - j * dw;
            if (tx < 0 || tx % sw) continue;
            int ox = tx / sw;
            if (ox >= ow) continue;
            acc += src[a * sa + i * si + j * sj + b * sb + oy * sy + ox * sx];
        }
    }
    grid[k] = acc;
}
"""
_THREADS = 256
_MODULE = []


def _kernel(cupy, name):
    if not _MODULE:
        _MODULE.append(cupy.RawModule(code=_SOURCE, options=("--fmad=false",)))
    return _MODULE[0].get_function(name)


def _strides(a):
    return [np.int64(s // a.itemsize) for s in a.strides]


def _launch(cupy, name, total, args):
    blocks = (total + _THREADS - 1) // _THREADS
    _kernel(cupy, name)((blocks,), (_THREADS,), tuple(args))


def _geometry(kernel, stride, padding, dilation, out_hw):
    return [np.int32(v) for v in (kernel[0], kernel[1], out_hw[0], out_hw[1], stride[0],
                                  stride[1], padding[0], padding[2], dilation[0],
                                  dilation[1])]


def im2col(cupy, x, kernel, stride, padding, dilation, out_hw):
    """Columns [c, kh, kw, n, oh, ow] of float32 `x` [n, c, h, w] zero-padded by
    `padding` (top, bottom, left, right): numpy_conv.im2col in one launch."""
    n, c, h, w = x.shape
    cols = cupy.empty((c, kernel[0], kernel[1], n, out_hw[0], out_hw[1]), dtype=np.float32)
    if cols.size:
        _launch(cupy, "burn_im2col", cols.size,
                [x, cols, np.int64(cols.size), np.int32(n), np.int32(h), np.int32(w)] +
                _geometry(kernel, stride, padding, dilation, out_hw) + _strides(x))
    return cols


def scatter_windows(cupy, blocks, shape, kernel, stride, padding, dilation, out_hw):
    """numpy_conv.scatter_windows in one launch: the [a, b, h, w] sum of the float32
    window contributions `blocks` [a, kh, kw, b, oh, ow] (any strides)."""
    _, b, h, w = shape
    grid = cupy.empty(shape, dtype=np.float32)
    if grid.size:
        _launch(cupy, "burn_col2im", grid.size,
                [blocks, grid, np.int64(grid.size), np.int32(b), np.int32(h), np.int32(w)] +
                _geometry(kernel, stride, padding, dilation, out_hw) + _strides(blocks))
    return grid

"""Convolution windows on the GPU in one kernel launch each.

`im2col` gathers the zero-padded windows of an input into columns, and `scatter_windows`
sums window contributions back onto an input grid (col2im). The numpy implementations in
burn.host.backends.numpy_conv do either with one strided copy or add per kernel offset,
plus a fill and a copy for the padding: about a dozen launches for a 3x3 kernel, which
dominate a captured ResNet step. These read any strides (no copy to make an input
contiguous), index in 32 bits wherever the arrays allow (64-bit division and
multiplication per element made a first version compute-bound), and give the same bits:
im2col only moves values, and scatter_windows adds each grid position's contributions in
the order the numpy version does, starting from zero.
float32 only; numpy_conv uses them through the cupy backend's array module.
"""

import numpy as np

_SOURCE = r"""
// I: the index type, int where every offset fits in 31 bits (no 64-bit division or
// multiplication in the hot loops), else long long.
template <typename I>
__global__ void burn_im2col(
        const float* x, float* cols, I plane, I rows, I cb, I crow,
        int n, int h, int w, int kh, int kw, int oh, int ow,
        int sh, int sw, int pt, int pl, int dh, int dw, I xn, I xc, I xh, I xw) {
    // One thread per output position (b, oy, ox); it walks the rows (channel, i, j) of its
    // column, so consecutive threads write consecutive addresses. Row r of image b starts
    // at cols + b * cb + r * crow.
    I p = blockIdx.x * (I)blockDim.x + threadIdx.x;
    if (p >= plane) return;
    int ox = (int)(p % ow);
    I r = p / ow;
    int oy = (int)(r % oh);
    int b = (int)(r / oh);
    int y0 = oy * sh - pt, x0 = ox * sw - pl;
    const float* xb = x + b * xn;
    float* out = cols + b * cb + (p - (I)b * oh * ow);
    I row = 0;
    for (I ch = 0; row < rows; ++ch) {
        const float* xc_ = xb + ch * xc;
        for (int i = 0; i < kh; ++i) {
            int y = y0 + i * dh;
            bool in_y = y >= 0 && y < h;
            for (int j = 0; j < kw; ++j, ++row) {
                int xx = x0 + j * dw;
                out[row * crow] = in_y && xx >= 0 && xx < w ? xc_[y * xh + xx * xw] : 0.0f;
            }
        }
    }
}

template <typename I>
__global__ void burn_col2im(
        const float* src, float* grid, I total,
        int nb, int h, int w, int kh, int kw, int oh, int ow,
        int sh, int sw, int pt, int pl, int dh, int dw,
        I sa, I si, I sj, I sb, I sy, I sx) {
    I k = blockIdx.x * (I)blockDim.x + threadIdx.x;
    if (k >= total) return;
    int x = (int)(k % w);
    I r = k / w;
    int y = (int)(r % h);
    r /= h;
    int b = (int)(r % nb);
    I a = r / nb;
    int yp = y + pt, xp = x + pl;
    const float* base = src + a * sa + b * sb;
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
            acc += base[i * si + j * sj + oy * sy + ox * sx];
        }
    }
    grid[k] = acc;
}
"""
_NAMES = ("burn_im2col<int>", "burn_im2col<long long>", "burn_col2im<int>",
          "burn_col2im<long long>")
_THREADS = 256
# Arrays whose offsets reach this far are indexed in 64 bits.
WIDE_FROM = 2 ** 31 - 1
_MODULE = []


def _kernel(cupy, name, wide):
    if not _MODULE:
        _MODULE.append(cupy.RawModule(code=_SOURCE, options=("--fmad=false",),
                                      name_expressions=_NAMES))
    return _MODULE[0].get_function("%s<%s>" % (name, "long long" if wide else "int"))


def _launch(cupy, name, threads, furthest, args):
    """Launch `name` over `threads` threads; its index arguments (given as Python ints) go
    as 32-bit values when `furthest`, the largest element offset either array has, fits."""
    wide = furthest >= WIDE_FROM
    index = np.int64 if wide else np.int32
    blocks = (threads + _THREADS - 1) // _THREADS
    args = tuple(index(a) if isinstance(a, int) else a for a in args)
    _kernel(cupy, name, wide)((blocks,), (_THREADS,), args)


def strides(a):
    """The strides of array `a` in elements."""
    return [s // a.itemsize for s in a.strides]


def reach(a):
    """One past the largest element offset of array `a` (any strides)."""
    return 1 + sum((d - 1) * abs(s) for d, s in zip(a.shape, strides(a)))


def _geometry(kernel, stride, padding, dilation, out_hw):
    return [np.int32(v) for v in (kernel[0], kernel[1], out_hw[0], out_hw[1], stride[0],
                                  stride[1], padding[0], padding[2], dilation[0],
                                  dilation[1])]


def im2col(cupy, x, kernel, stride, padding, dilation, out_hw, by_image=False):
    """Columns [c, kh, kw, n, oh, ow] of float32 `x` [n, c, h, w] zero-padded by
    `padding` (top, bottom, left, right): numpy_conv.im2col in one launch. `by_image`:
    laid out [n, c, kh, kw, oh, ow] instead, a matrix of columns per image."""
    n, c, h, w = x.shape
    oh, ow = out_hw
    rows = c * kernel[0] * kernel[1]
    shape = (n, c, kernel[0], kernel[1], oh, ow) if by_image else \
        (c, kernel[0], kernel[1], n, oh, ow)
    cols = cupy.empty(shape, dtype=np.float32)
    if cols.size:
        plane = n * oh * ow
        cb, crow = (rows * oh * ow, oh * ow) if by_image else (oh * ow, plane)
        _launch(cupy, "burn_im2col", plane, max(cols.size, reach(x)),
                [x, cols, plane, rows, cb, crow, np.int32(n), np.int32(h), np.int32(w)] +
                _geometry(kernel, stride, padding, dilation, out_hw) + strides(x))
    return cols


def scatter_windows(cupy, blocks, shape, kernel, stride, padding, dilation, out_hw):
    """numpy_conv.scatter_windows in one launch: the [a, b, h, w] sum of the float32
    window contributions `blocks` [a, kh, kw, b, oh, ow] (any strides)."""
    _, b, h, w = shape
    grid = cupy.empty(shape, dtype=np.float32)
    if grid.size:
        _launch(cupy, "burn_col2im", grid.size, max(grid.size, reach(blocks)),
                [blocks, grid, grid.size, np.int32(b), np.int32(h), np.int32(w)] +
                _geometry(kernel, stride, padding, dilation, out_hw) + strides(blocks))
    return grid

/* float32 max / average pooling over NCHW windows and their gradients. */
#include "../common/internal.h"

static flex_status check_pool(const flex_dims4 *in_dims, const void *x, size_t x_len,
                              const flex_window *win, const flex_dims4 *out_dims,
                              const void *y, size_t y_len) {
    FLEX_TRY(flex__check_io(in_dims, x, x_len, win, out_dims, y, y_len, 1));
    return in_dims->c == out_dims->c ? FLEX_OK : FLEX_E_SHAPE;
}

static flex_status check_avg(const flex_window *win, int32_t count_include_pad) {
    if (count_include_pad != 0 && count_include_pad != 1)
        return FLEX_E_PARAM;
    /* average pooling has no dilation */
    return (win->dilation_h == 1 && win->dilation_w == 1) ? FLEX_OK : FLEX_E_STRIDE;
}

/* Index in the plane of the first maximum of a window, or -1 when it has no element. */
static int32_t argmax(const float *plane, const flex_dims4 *in, const flex_window *win,
                      flex__window_at a) {
    int32_t ky, kx, best = -1;
    float m = 0.0f;
    for (ky = 0; ky < win->kernel_h; ky++) {
        const int32_t iy = a.y0 + ky * win->dilation_h;
        if (iy < 0 || iy >= in->h)
            continue;
        for (kx = 0; kx < win->kernel_w; kx++) {
            const int32_t ix = a.x0 + kx * win->dilation_w;
            float v;
            if (ix < 0 || ix >= in->w)
                continue;
            v = plane[iy * in->w + ix];
            if (best < 0 || v > m || v != v) {
                best = iy * in->w + ix;
                m = v;
                if (v != v)
                    return best;
            }
        }
    }
    return best;
}

/* Output columns [*lo, *hi) of a row whose windows lie wholly inside the input's columns. */
static void inside_cols(const flex_dims4 *in, const flex_window *win, int32_t out_w,
                        int32_t *lo, int32_t *hi) {
    const int32_t last = in->w - 1 - (win->kernel_w - 1) * win->dilation_w + win->pad_left;
    *lo = (win->pad_left + win->stride_w - 1) / win->stride_w;
    *hi = last < 0 ? 0 : last / win->stride_w + 1;
    if (*hi > out_w)
        *hi = out_w;
    if (*lo > *hi)
        *lo = *hi;
}

/* Whether the windows of output row oy lie wholly inside the input's rows. */
static int row_inside(const flex_dims4 *in, const flex_window *win, int32_t oy) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    return y0 >= 0 && y0 + (win->kernel_h - 1) * win->dilation_h < in->h;
}

/* Whether any of the n floats is a NaN (a branch-free scan). */
FLEX_INLINE int has_nan(const float *x, int32_t n) {
    int32_t i, nan = 0;
    for (i = 0; i < n; i++)
        nan |= x[i] != x[i];
    return nan;
}

/* A window wholly inside a plane without NaN, its top-left element at plane[first], is
 * scanned without bounds checks and without branches on the data (they mispredict on real
 * data); `row` is the plane index step of one kernel row, kh x kw the kernel (constants
 * where the callers below unroll the scan). */
FLEX_INLINE float inside_max(const float *plane, int32_t first, int32_t kh, int32_t kw,
                             int32_t row, int32_t dw) {
    int32_t ky, kx;
    float m = plane[first];
    for (ky = 0; ky < kh; ky++)
        for (kx = 0; kx < kw; kx++) {
            const float v = plane[first + ky * row + kx * dw];
            m = v > m ? v : m;
        }
    return m;
}

/* The plane index of inside_max's first maximum (a later element replaces the best only
 * when strictly greater). */
FLEX_INLINE int32_t inside_argmax(const float *plane, int32_t first, int32_t kh, int32_t kw,
                                  int32_t row, int32_t dw) {
    int32_t ky, kx, best = first;
    float m = plane[first];
    for (ky = 0; ky < kh; ky++)
        for (kx = 0; kx < kw; kx++) {
            const int32_t i = first + ky * row + kx * dw;
            const float v = plane[i];
            best += (i - best) & -(int32_t)(v > m); /* mask arithmetic: kept branch-free */
            m = v > m ? v : m;
        }
    return best;
}

/* Sum of the real elements of a window. */
static float window_sum(const float *plane, const flex_dims4 *in, flex__window_at a) {
    int32_t y, x;
    float s = 0.0f;
    for (y = a.ys; y < a.ye; y++)
        for (x = a.xs; x < a.xe; x++)
            s += plane[y * in->w + x];
    return s;
}

static float divisor(flex__window_at a, int32_t count_include_pad) {
    return (float)(count_include_pad ? a.clip_h * a.clip_w : a.real);
}

/* y[ox0:ox1] of output row oy: the windows that need bounds checks or hold a NaN. */
static void max_slow(const float *plane, const flex_dims4 *in, const flex_window *win,
                     int32_t oy, int32_t ox0, int32_t ox1, float *y) {
    int32_t ox;
    for (ox = ox0; ox < ox1; ox++) {
        const int32_t i = argmax(plane, in, win, flex__locate(win, in, oy, ox));
        y[ox] = i < 0 ? -flex__inff() : plane[i];
    }
}

/* dx of windows [ox0, ox1) of output row oy: as max_slow. */
static void max_slow_grad(const float *plane, const flex_dims4 *in, const flex_window *win,
                          int32_t oy, int32_t ox0, int32_t ox1, const float *dy, float *dx) {
    int32_t ox;
    for (ox = ox0; ox < ox1; ox++) {
        const int32_t j = argmax(plane, in, win, flex__locate(win, in, oy, ox));
        if (j >= 0)
            dx[j] += dy[ox];
    }
}

/* The columns [*a, *b) of output row oy whose windows the branch-free scans take: those
 * wholly inside the input ([lo, hi) of inside_cols) of a row inside it, in a plane without
 * NaN. */
static void fast_cols(const flex_dims4 *in, const flex_window *win, int32_t oy, int clean,
                      int32_t lo, int32_t hi, int32_t *a, int32_t *b) {
    const int take = clean && row_inside(in, win, oy);
    *a = take ? lo : 0;
    *b = take ? hi : 0;
}

/* Plane index of the top-left element of the window of output (oy, ox). */
static int32_t window_origin(const flex_dims4 *in, const flex_window *win, int32_t oy,
                             int32_t ox) {
    return (oy * win->stride_h - win->pad_top) * in->w + ox * win->stride_w - win->pad_left;
}

/* Max pooling of the planes into y (out.h x out.w each), or with dy and dx (zeroed) its
 * gradient: dy routed to each window's first maximum. */
FLEX_INLINE void max_planes_k(const float *x, const flex_dims4 *in, const flex_window *win,
                              const flex_dims4 *out, int32_t planes, int32_t kh, int32_t kw,
                              float *y, const float *dy, float *dx) {
    const int32_t plane_in = in->h * in->w, row = win->dilation_h * in->w;
    const int32_t dw = win->dilation_w, sw = win->stride_w;
    int32_t p, oy, ox, a, b, lo, hi;
    inside_cols(in, win, out->w, &lo, &hi);
    for (p = 0; p < planes; p++) {
        const float *plane = x + p * plane_in;
        const int clean = !has_nan(plane, plane_in);
        for (oy = 0; oy < out->h; oy++) {
            const int32_t first = window_origin(in, win, oy, 0);
            fast_cols(in, win, oy, clean, lo, hi, &a, &b);
            if (dx) {
                for (ox = a; ox < b; ox++)
                    dx[inside_argmax(plane, first + ox * sw, kh, kw, row, dw)] += dy[ox];
                if (a > 0 || b < out->w) {
                    max_slow_grad(plane, in, win, oy, 0, a, dy, dx);
                    max_slow_grad(plane, in, win, oy, b, out->w, dy, dx);
                }
                dy += out->w;
            } else {
                for (ox = a; ox < b; ox++)
                    y[ox] = inside_max(plane, first + ox * sw, kh, kw, row, dw);
                if (a > 0 || b < out->w) {
                    max_slow(plane, in, win, oy, 0, a, y);
                    max_slow(plane, in, win, oy, b, out->w, y);
                }
                y += out->w;
            }
        }
        if (dx)
            dx += plane_in;
    }
}

/* max_planes_k, on 64-bit hosts with the scans of the common 2x2 and 3x3 kernels unrolled
 * (small targets keep one copy of the code). */
FLEX_CLONES
static void max_planes(const float *x, const flex_dims4 *in, const flex_window *win,
                       const flex_dims4 *out, int32_t planes, float *y, const float *dy,
                       float *dx) {
    const int32_t kh = win->kernel_h, kw = win->kernel_w;
#if defined(__x86_64__) || defined(__aarch64__)
    if (kh == 2 && kw == 2) {
        max_planes_k(x, in, win, out, planes, 2, 2, y, dy, dx);
        return;
    }
    if (kh == 3 && kw == 3) {
        max_planes_k(x, in, win, out, planes, 3, 3, y, dy, dx);
        return;
    }
#endif
    max_planes_k(x, in, win, out, planes, kh, kw, y, dy, dx);
}

flex_status flex_f32_max_pool2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                const flex_window *win,
                                const flex_dims4 *out_dims, float *y, size_t y_len) {
    FLEX_TRY(check_pool(in_dims, x, x_len, win, out_dims, y, y_len));
    max_planes(x, in_dims, win, out_dims, in_dims->n * in_dims->c, y, 0, 0);
    return FLEX_OK;
}

flex_status flex_f32_avg_pool2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                const flex_window *win, int32_t count_include_pad,
                                const flex_dims4 *out_dims, float *y, size_t y_len) {
    int32_t p, oy, ox;
    FLEX_TRY(check_pool(in_dims, x, x_len, win, out_dims, y, y_len));
    FLEX_TRY(check_avg(win, count_include_pad));
    for (p = 0; p < in_dims->n * in_dims->c; p++) {
        const float *plane = x + p * in_dims->h * in_dims->w;
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++) {
                const flex__window_at a = flex__locate(win, in_dims, oy, ox);
                const float s = window_sum(plane, in_dims, a);
                const float d = divisor(a, count_include_pad);
                *y++ = d > 0.0f ? s / d : 0.0f;
            }
    }
    return FLEX_OK;
}

flex_status flex_f32_max_pool2d_grad(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                     const flex_window *win, const flex_dims4 *out_dims,
                                     const float *dy, size_t dy_len,
                                     float *dx, size_t dx_len) {
    int32_t i;
    if (!dx)
        return FLEX_E_NULL;
    FLEX_TRY(check_pool(in_dims, x, x_len, win, out_dims, dy, dy_len));
    FLEX_TRY(flex__check_len(dx_len, (int32_t)x_len));
    for (i = 0; i < (int32_t)dx_len; i++)
        dx[i] = 0.0f;
    max_planes(x, in_dims, win, out_dims, in_dims->n * in_dims->c, 0, dy, dx);
    return FLEX_OK;
}

flex_status flex_f32_avg_pool2d_grad(const flex_dims4 *in_dims, const flex_window *win,
                                     int32_t count_include_pad, const flex_dims4 *out_dims,
                                     const float *dy, size_t dy_len,
                                     float *dx, size_t dx_len) {
    int32_t p, oy, ox, y, x;
    FLEX_TRY(check_pool(in_dims, dx, dx_len, win, out_dims, dy, dy_len));
    FLEX_TRY(check_avg(win, count_include_pad));
    for (y = 0; y < (int32_t)dx_len; y++)
        dx[y] = 0.0f;
    for (p = 0; p < in_dims->n * in_dims->c; p++) {
        float *plane = dx + p * in_dims->h * in_dims->w;
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++) {
                const flex__window_at a = flex__locate(win, in_dims, oy, ox);
                const float d = divisor(a, count_include_pad);
                const float g = d > 0.0f ? *dy / d : 0.0f;
                dy++;
                for (y = a.ys; y < a.ye; y++)
                    for (x = a.xs; x < a.xe; x++)
                        plane[y * in_dims->w + x] += g;
            }
    }
    return FLEX_OK;
}

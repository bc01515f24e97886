/* float32 max / average pooling over NCHW windows and their gradients. */
#include "../common/internal.h"

static flex_status check_pool(const flex_dims4 *in_dims, const void *x, size_t x_len,
                              const flex_window *win, const flex_dims4 *out_dims,
                              const void *y, size_t y_len) {
    int32_t count;
    if (!x || !y)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &count));
    FLEX_TRY(flex__check_len(x_len, count));
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(y_len, count));
    FLEX_TRY(flex__check_spatial(in_dims, win, out_dims, 1));
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

/* The windows that lie wholly inside the input (most of them) are scanned without bounds
 * checks and without branches on the data, which mispredict on real data: first the maximum
 * (maxss-style) and whether the window holds a NaN, then, for the gradient, the index of the
 * first element equal to it (or of the first NaN). Same results as argmax. */
FLEX_INLINE float max_inside(const float *plane, const flex_dims4 *in, const flex_window *win,
                             int32_t first, int32_t *nan) {
    int32_t ky, kx, seen = 0;
    float m = plane[first];
    for (ky = 0; ky < win->kernel_h; ky++)
        for (kx = 0; kx < win->kernel_w; kx++) {
            const float v = plane[first + ky * win->dilation_h * in->w + kx * win->dilation_w];
            seen |= v != v;
            m = v > m ? v : m;
        }
    *nan = seen;
    return m;
}

FLEX_INLINE int32_t argmax_inside(const float *plane, const flex_dims4 *in,
                                  const flex_window *win, int32_t first) {
    int32_t nan, ky, kx, best = first;
    const float m = max_inside(plane, in, win, first, &nan);
    for (ky = win->kernel_h - 1; ky >= 0; ky--) /* backwards: the first match is kept */
        for (kx = win->kernel_w - 1; kx >= 0; kx--) {
            const int32_t i = first + ky * win->dilation_h * in->w + kx * win->dilation_w;
            const float v = plane[i];
            const int32_t hit = ((v == m) & !nan) | ((v != v) & nan);
            best += (i - best) & -hit; /* mask arithmetic: compilers keep it branch-free */
        }
    return best;
}

/* Top-left plane index of the window of output (oy, ox), or -1 if it is not wholly inside. */
FLEX_INLINE int32_t inside_at(const flex_dims4 *in, const flex_window *win, int32_t oy,
                              int32_t ox) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    const int32_t x0 = ox * win->stride_w - win->pad_left;
    if (y0 >= 0 && x0 >= 0 && y0 + (win->kernel_h - 1) * win->dilation_h < in->h &&
        x0 + (win->kernel_w - 1) * win->dilation_w < in->w)
        return y0 * in->w + x0;
    return -1;
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

flex_status flex_f32_max_pool2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                const flex_window *win,
                                const flex_dims4 *out_dims, float *y, size_t y_len) {
    int32_t p, oy, ox;
    FLEX_TRY(check_pool(in_dims, x, x_len, win, out_dims, y, y_len));
    for (p = 0; p < in_dims->n * in_dims->c; p++) {
        const float *plane = x + p * in_dims->h * in_dims->w;
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++) {
                const int32_t at = inside_at(in_dims, win, oy, ox);
                int32_t nan, i;
                if (at >= 0) {
                    const float m = max_inside(plane, in_dims, win, at, &nan);
                    *y++ = nan ? flex__nanf() : m;
                    continue;
                }
                i = argmax(plane, in_dims, win, flex__locate(win, in_dims, oy, ox));
                *y++ = i < 0 ? -flex__inff() : plane[i];
            }
    }
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
    int32_t p, oy, ox, i;
    const int32_t plane_in = in_dims ? in_dims->h * in_dims->w : 0;
    if (!dx)
        return FLEX_E_NULL;
    FLEX_TRY(check_pool(in_dims, x, x_len, win, out_dims, dy, dy_len));
    FLEX_TRY(flex__check_len(dx_len, (int32_t)x_len));
    for (i = 0; i < (int32_t)dx_len; i++)
        dx[i] = 0.0f;
    for (p = 0; p < in_dims->n * in_dims->c; p++) {
        const float *plane = x + p * plane_in;
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++) {
                const int32_t at = inside_at(in_dims, win, oy, ox);
                const int32_t j = at >= 0 ? argmax_inside(plane, in_dims, win, at)
                                          : argmax(plane, in_dims, win,
                                                   flex__locate(win, in_dims, oy, ox));
                const float g = *dy++;
                if (j >= 0)
                    dx[p * plane_in + j] += g;
            }
    }
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

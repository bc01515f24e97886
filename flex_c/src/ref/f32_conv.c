/* float32 convolution with groups (NCHW, OIHW) and its input / weight gradients, as GEMMs
 * over the im2col matrix of each (image, group): rows are the taps (input channel of the
 * group, ky, kx), columns the output pixels. The matrix is never stored whole: the GEMM
 * engine packs one block at a time straight from the image (flex__gemm_acc), and the input
 * gradient scatters one block of columns at a time back onto the image.
 *
 *   forward       y[og, pixels]   = w[og, taps] @ cols[taps, pixels]   (+ bias)
 *   weight grad   dw[og, taps]    = dy[og, pixels] @ cols[taps, pixels]^T
 *   input grad    cols[taps, pix] = w[og, taps]^T @ dy[og, pixels], scattered onto dx
 */
#include "../common/internal.h"

typedef struct {
    int32_t ox_lo, ox_hi; /* output columns with a valid input column */
    int32_t x_off;        /* input column of output column 0 */
} tap_cols;

static tap_cols columns(const flex_window *win, int32_t kx, int32_t in_w, int32_t out_w) {
    tap_cols t;
    const int32_t first = win->pad_left - kx * win->dilation_w; /* ox*stride >= first */
    const int32_t last = in_w - 1 + first;                        /* ox*stride <= last */
    t.x_off = -first;
    t.ox_lo = first <= 0 ? 0 : (first + win->stride_w - 1) / win->stride_w;
    t.ox_hi = last < 0 ? 0 : last / win->stride_w + 1;
    if (t.ox_hi > out_w)
        t.ox_hi = out_w;
    if (t.ox_lo > t.ox_hi)
        t.ox_lo = t.ox_hi;
    return t;
}

static flex_status check_conv(const flex_dims4 *in_dims, const void *x, size_t x_len,
                              const void *weight, size_t weight_len, const flex_window *win,
                              int32_t groups, const flex_dims4 *out_dims, const void *y,
                              size_t y_len) {
    int32_t count;
    if (!x || !weight || !y)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &count));
    FLEX_TRY(flex__check_len(x_len, count));
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(y_len, count));
    FLEX_TRY(flex__check_spatial(in_dims, win, out_dims, 0));
    if (groups < 1 || in_dims->c % groups != 0 || out_dims->c % groups != 0)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(out_dims->c, in_dims->c / groups, &count));
    FLEX_TRY(flex__product(count, win->kernel_h, &count));
    FLEX_TRY(flex__product(count, win->kernel_w, &count));
    return flex__check_len(weight_len, count);
}

static void zero(float *p, int32_t n) {
    int32_t i;
    for (i = 0; i < n; i++)
        p[i] = 0.0f;
}

/* One (image, group) of a convolution: its input channels and the window geometry. */
typedef struct {
    const flex_window *win;
    const float *x; /* first input channel of the group in this image (read) */
    float *dx;      /* the same for the input gradient (written) */
    int32_t in_h, in_w, out_w;
} conv_geom;

/* Runs BODY for each output row segment of pixels [pix0, pix0 + count) that tap `tap` reads
 * from the image, with: lo, hi (the segment's output columns whose input lies inside the
 * image), src (the image index that output column 0 of that row reads, before the stride)
 * and at (the offset of the segment's output column 0 from pixel pix0). Rows and columns
 * that fall in the padding are skipped (their im2col value is 0). */
#define FOR_TAP_SEGMENTS(g, tap, pix0, count, BODY)                                        \
    do {                                                                                   \
        const flex_window *w_ = (g)->win;                                                  \
        const int32_t kx_ = (tap) % w_->kernel_w, t_ = (tap) / w_->kernel_w;               \
        const int32_t ky_ = t_ % w_->kernel_h, ic_ = t_ / w_->kernel_h;                    \
        const tap_cols c_ = columns(w_, kx_, (g)->in_w, (g)->out_w);                       \
        int32_t oy_ = (pix0) / (g)->out_w, ox_ = (pix0) % (g)->out_w, done_ = 0;           \
        while (done_ < (count)) {                                                          \
            const int32_t run_ = (count) - done_ < (g)->out_w - ox_ ? (count) - done_      \
                                                                    : (g)->out_w - ox_;   \
            const int32_t iy_ = oy_ * w_->stride_h - w_->pad_top + ky_ * w_->dilation_h;   \
            const int32_t lo = ox_ > c_.ox_lo ? ox_ : c_.ox_lo;                            \
            const int32_t hi = ox_ + run_ < c_.ox_hi ? ox_ + run_ : c_.ox_hi;              \
            if (iy_ >= 0 && iy_ < (g)->in_h && lo < hi) {                                  \
                const int32_t src = (ic_ * (g)->in_h + iy_) * (g)->in_w + c_.x_off;        \
                const int32_t at = done_ - ox_; /* pixel ox is at[ox] */                   \
                BODY                                                                       \
            }                                                                              \
            done_ += run_;                                                                 \
            ox_ = 0;                                                                       \
            oy_++;                                                                         \
        }                                                                                  \
    } while (0)

/* out[0:count] = im2col row `tap` over pixels [pix0, pix0 + count). */
FLEX_INLINE void tap_row(const conv_geom *g, int32_t tap, int32_t pix0, int32_t count,
                         float *out) {
    const int32_t sw = g->win->stride_w;
    zero(out, count);
    FOR_TAP_SEGMENTS(g, tap, pix0, count, {
        const float *xs = g->x + src + lo * sw;
        float *o = out + at + lo;
        int32_t i;
        if (sw == 1) /* contiguous: a plain copy the compiler vectorizes */
            for (i = 0; i < hi - lo; i++)
                o[i] = xs[i];
        else
            for (i = 0; i < hi - lo; i++)
                o[i] = xs[i * sw];
    });
}

/* dx += im2col row `tap` of values vals[0:count] over pixels [pix0, pix0 + count). */
FLEX_INLINE void tap_scatter(const conv_geom *g, int32_t tap, int32_t pix0, int32_t count,
                             const float *vals) {
    const int32_t sw = g->win->stride_w;
    FOR_TAP_SEGMENTS(g, tap, pix0, count, {
        float *d = g->dx + src + lo * sw;
        const float *v = vals + at + lo;
        int32_t i;
        if (sw == 1)
            for (i = 0; i < hi - lo; i++)
                d[i] += v[i];
        else
            for (i = 0; i < hi - lo; i++)
                d[i * sw] += v[i];
    });
}

#define ROW_MAX (FLEX_GEMM_KB > FLEX_GEMM_NB ? FLEX_GEMM_KB : FLEX_GEMM_NB)

/* Packs cols[p0:p0+kb (taps), j0:j0+nb (pixels)]. */
FLEX_CLONES
static void pack_cols(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                      float *dst) {
    float row[ROW_MAX];
    int32_t p;
    for (p = 0; p < kb; p++) {
        tap_row((const conv_geom *)ctx, p0 + p, j0, nb, row);
        flex__panel_row(dst, kb, p, row, nb);
    }
}

/* Packs cols^T[p0:p0+kb (pixels), j0:j0+nb (taps)]. */
FLEX_CLONES
static void pack_cols_t(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                        float *dst) {
    float row[ROW_MAX];
    int32_t p, j;
    for (j = 0; j < nb; j++) {
        tap_row((const conv_geom *)ctx, j0 + j, p0, kb, row);
        for (p = 0; p < kb; p++)
            FLEX_PANEL(dst, kb, p, j) = row[p];
    }
}

typedef struct {
    const float *b;
    int32_t ld;
} rows_of;

/* Packs b[p0:p0+kb, j0:j0+nb] of a row-major matrix with row stride ld. */
FLEX_CLONES
static void pack_rows(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                      float *dst) {
    const rows_of *s = (const rows_of *)ctx;
    int32_t p;
    for (p = 0; p < kb; p++)
        flex__panel_row(dst, kb, p, s->b + (p0 + p) * s->ld + j0, nb);
}

/* Per-group sizes of a convolution. */
typedef struct {
    int32_t cg, og, taps, pixels, plane_in;
} conv_sizes;

static conv_sizes sizes_of(const flex_dims4 *in, const flex_window *win, int32_t groups,
                           const flex_dims4 *out) {
    conv_sizes s;
    s.cg = in->c / groups;
    s.og = out->c / groups;
    s.taps = s.cg * win->kernel_h * win->kernel_w;
    s.pixels = out->h * out->w;
    s.plane_in = in->h * in->w;
    return s;
}

static conv_geom geom_of(const flex_dims4 *in, const flex_window *win, const flex_dims4 *out) {
    conv_geom g;
    g.win = win;
    g.x = 0;
    g.dx = 0;
    g.in_h = in->h;
    g.in_w = in->w;
    g.out_w = out->w;
    return g;
}

/* ---- depthwise fast path ----------------------------------------------------------------
 * A depthwise convolution (groups == in.c == out.c) with stride 1 is a tiny GEMM per
 * channel (one row), so it runs directly instead: the plane is
 * copied into a zero-padded scratch of width wp; then every tap is one long contiguous
 * multiply-add over a "wide" output grid of the same width (row oy at oy * wp; its columns
 * past out_w are scratch and dropped), instead of short loops over each output row. */
#if defined(__x86_64__) || defined(__aarch64__)
#define DW_SCRATCH 8192
#else
#define DW_SCRATCH 256
#endif

typedef struct {
    int32_t hp, wp; /* padded plane */
    int32_t len;    /* wide-grid positions that hold an output: (out_h - 1) * wp + out_w */
} wide_grid;

static int depthwise_fits(const flex_dims4 *in, const flex_window *win, int32_t groups,
                          const flex_dims4 *out, wide_grid *g) {
    if (in->c != groups || out->c != groups || win->stride_h != 1 || win->stride_w != 1)
        return 0;
    g->hp = out->h + (win->kernel_h - 1) * win->dilation_h;
    g->wp = out->w + (win->kernel_w - 1) * win->dilation_w;
    g->len = (out->h - 1) * g->wp + out->w;
    return (int64_t)g->hp * g->wp <= DW_SCRATCH;
}

/* xp (hp x wp) = the plane x (h x w) shifted by the top / left padding, zeros elsewhere. */
static void pad_plane(const float *x, const flex_dims4 *in, const flex_window *win,
                      const wide_grid *g, float *xp) {
    int32_t y, c;
    zero(xp, g->hp * g->wp);
    for (y = 0; y < in->h; y++)
        for (c = 0; c < in->w; c++)
            xp[(y + win->pad_top) * g->wp + c + win->pad_left] = x[y * in->w + c];
}

static int32_t tap_offset(const flex_window *win, const wide_grid *g, int32_t tap) {
    return (tap / win->kernel_w) * win->dilation_h * g->wp +
           (tap % win->kernel_w) * win->dilation_w;
}

FLEX_CLONES
static void axpy(int32_t n, float a, const float *x, float *y) {
    int32_t i;
    for (i = 0; i < n; i++)
        y[i] += a * x[i];
}

FLEX_CLONES
static float dot(int32_t n, const float *x, const float *y) {
    float acc[8];
    const int32_t n8 = n - n % 8;
    int32_t i, j;
    for (j = 0; j < 8; j++) /* a loop, not an initializer: that would call memset */
        acc[j] = 0.0f;
    for (i = 0; i < n8; i += 8) { /* eight lanes: one vector register */
        float t[8];
        for (j = 0; j < 8; j++)
            t[j] = x[i + j] * y[i + j];
        for (j = 0; j < 8; j++)
            acc[j] += t[j];
    }
    for (; i < n; i++)
        acc[0] += x[i] * y[i];
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* dy_w (wide grid) = the output plane dy, zeros in the dropped columns. */
static void widen(const float *dy, const flex_dims4 *out, const wide_grid *g, float *dy_w) {
    int32_t y, c;
    zero(dy_w, g->len);
    for (y = 0; y < out->h; y++)
        for (c = 0; c < out->w; c++)
            dy_w[y * g->wp + c] = dy[y * out->w + c];
}

static void depthwise_forward(const flex_dims4 *in, const float *x, const float *weight,
                              const float *bias, const flex_window *win,
                              const flex_dims4 *out, const wide_grid *g, float *y) {
    float xp[DW_SCRATCH], acc[DW_SCRATCH];
    const int32_t taps = win->kernel_h * win->kernel_w;
    int32_t b, ch, t, r, c;
    for (b = 0; b < in->n; b++)
        for (ch = 0; ch < in->c; ch++) {
            float *yp = y + (b * out->c + ch) * out->h * out->w;
            pad_plane(x + (b * in->c + ch) * in->h * in->w, in, win, g, xp);
            zero(acc, g->len);
            for (t = 0; t < taps; t++)
                axpy(g->len, weight[ch * taps + t], xp + tap_offset(win, g, t), acc);
            for (r = 0; r < out->h; r++)
                for (c = 0; c < out->w; c++)
                    yp[r * out->w + c] = acc[r * g->wp + c] + (bias ? bias[ch] : 0.0f);
        }
}

static void depthwise_input_grad(const flex_dims4 *in, float *dx, const float *weight,
                                 const flex_window *win, const flex_dims4 *out,
                                 const float *dy, const wide_grid *g) {
    float dxp[DW_SCRATCH], dy_w[DW_SCRATCH];
    const int32_t taps = win->kernel_h * win->kernel_w;
    int32_t b, ch, t, r, c;
    for (b = 0; b < in->n; b++)
        for (ch = 0; ch < in->c; ch++) {
            float *dxc = dx + (b * in->c + ch) * in->h * in->w;
            zero(dxp, g->hp * g->wp);
            widen(dy + (b * out->c + ch) * out->h * out->w, out, g, dy_w);
            for (t = 0; t < taps; t++)
                axpy(g->len, weight[ch * taps + t], dy_w, dxp + tap_offset(win, g, t));
            /* with stride 1 the padded plane is exactly hp x wp: the input is inside it */
            for (r = 0; r < in->h; r++)
                for (c = 0; c < in->w; c++)
                    dxc[r * in->w + c] = dxp[(r + win->pad_top) * g->wp + c + win->pad_left];
        }
}

static void depthwise_weight_grad(const flex_dims4 *in, const float *x, const flex_window *win,
                                  const flex_dims4 *out, const float *dy, const wide_grid *g,
                                  float *dw) {
    float xp[DW_SCRATCH], dy_w[DW_SCRATCH];
    const int32_t taps = win->kernel_h * win->kernel_w;
    int32_t b, ch, t;
    for (b = 0; b < in->n; b++)
        for (ch = 0; ch < in->c; ch++) {
            pad_plane(x + (b * in->c + ch) * in->h * in->w, in, win, g, xp);
            widen(dy + (b * out->c + ch) * out->h * out->w, out, g, dy_w);
            for (t = 0; t < taps; t++)
                dw[ch * taps + t] += dot(g->len, dy_w, xp + tap_offset(win, g, t));
        }
}

flex_status flex_f32_conv2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                            const float *weight, size_t weight_len,
                            const float *bias, size_t bias_len,
                            const flex_window *win, int32_t groups,
                            const flex_dims4 *out_dims, float *y, size_t y_len) {
    int32_t b, g, oc, i;
    conv_sizes s;
    conv_geom geo;
    wide_grid wide;
    FLEX_TRY(check_conv(in_dims, x, x_len, weight, weight_len, win, groups, out_dims, y,
                        y_len));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_dims->c));
    if (depthwise_fits(in_dims, win, groups, out_dims, &wide)) {
        depthwise_forward(in_dims, x, weight, bias, win, out_dims, &wide, y);
        return FLEX_OK;
    }
    s = sizes_of(in_dims, win, groups, out_dims);
    geo = geom_of(in_dims, win, out_dims);
    for (b = 0; b < out_dims->n; b++)
        for (g = 0; g < groups; g++) {
            float *yg = y + (b * out_dims->c + g * s.og) * s.pixels;
            for (oc = 0; oc < s.og; oc++)
                for (i = 0; i < s.pixels; i++)
                    yg[oc * s.pixels + i] = bias ? bias[g * s.og + oc] : 0.0f;
            geo.x = x + (b * in_dims->c + g * s.cg) * s.plane_in;
            flex__gemm_acc(s.og, s.pixels, s.taps, weight + g * s.og * s.taps, s.taps, 1,
                           pack_cols, &geo, yg, s.pixels);
        }
    return FLEX_OK;
}

flex_status flex_f32_conv2d_input_grad(const flex_dims4 *in_dims, float *dx, size_t dx_len,
                                       const float *weight, size_t weight_len,
                                       const flex_window *win, int32_t groups,
                                       const flex_dims4 *out_dims, const float *dy,
                                       size_t dy_len) {
    float cols[FLEX_GEMM_KB * FLEX_GEMM_NB];
    int32_t b, g, t0, j0, t;
    conv_sizes s;
    conv_geom geo;
    rows_of dyg;
    wide_grid wide;
    FLEX_TRY(check_conv(in_dims, dx, dx_len, weight, weight_len, win, groups, out_dims, dy,
                        dy_len));
    if (depthwise_fits(in_dims, win, groups, out_dims, &wide)) {
        depthwise_input_grad(in_dims, dx, weight, win, out_dims, dy, &wide);
        return FLEX_OK;
    }
    zero(dx, (int32_t)dx_len);
    s = sizes_of(in_dims, win, groups, out_dims);
    geo = geom_of(in_dims, win, out_dims);
    dyg.ld = s.pixels;
    for (b = 0; b < out_dims->n; b++)
        for (g = 0; g < groups; g++) {
            const float *wg = weight + g * s.og * s.taps;
            geo.dx = dx + (b * in_dims->c + g * s.cg) * s.plane_in;
            dyg.b = dy + (b * out_dims->c + g * s.og) * s.pixels;
            for (j0 = 0; j0 < s.pixels; j0 += FLEX_GEMM_NB) {
                const int32_t nb = s.pixels - j0 < FLEX_GEMM_NB ? s.pixels - j0 : FLEX_GEMM_NB;
                rows_of blk = dyg;
                blk.b += j0;
                for (t0 = 0; t0 < s.taps; t0 += FLEX_GEMM_KB) {
                    const int32_t kb = s.taps - t0 < FLEX_GEMM_KB ? s.taps - t0 : FLEX_GEMM_KB;
                    /* cols[kb, nb] = w[:, t0:t0+kb]^T @ dy[:, j0:j0+nb] */
                    zero(cols, kb * nb);
                    flex__gemm_acc(kb, nb, s.og, wg + t0, 1, s.taps, pack_rows, &blk, cols,
                                   nb);
                    for (t = 0; t < kb; t++)
                        tap_scatter(&geo, t0 + t, j0, nb, cols + t * nb);
                }
            }
        }
    return FLEX_OK;
}

flex_status flex_f32_conv2d_weight_grad(const flex_dims4 *in_dims, const float *x,
                                        size_t x_len, const flex_window *win, int32_t groups,
                                        const flex_dims4 *out_dims, const float *dy,
                                        size_t dy_len, float *dw, size_t dw_len,
                                        float *db, size_t db_len) {
    int32_t b, g, oc, i;
    conv_sizes s;
    conv_geom geo;
    wide_grid wide;
    FLEX_TRY(check_conv(in_dims, x, x_len, dw, dw_len, win, groups, out_dims, dy, dy_len));
    FLEX_TRY(flex__check_bias(db, db_len, out_dims->c));
    zero(dw, (int32_t)dw_len);
    s = sizes_of(in_dims, win, groups, out_dims);
    geo = geom_of(in_dims, win, out_dims);
    if (depthwise_fits(in_dims, win, groups, out_dims, &wide))
        depthwise_weight_grad(in_dims, x, win, out_dims, dy, &wide, dw);
    else
        for (b = 0; b < out_dims->n; b++)
            for (g = 0; g < groups; g++) {
                geo.x = x + (b * in_dims->c + g * s.cg) * s.plane_in;
                flex__gemm_acc(s.og, s.taps, s.pixels,
                               dy + (b * out_dims->c + g * s.og) * s.pixels, s.pixels, 1,
                               pack_cols_t, &geo, dw + g * s.og * s.taps, s.taps);
            }
    if (db) {
        zero(db, out_dims->c);
        for (b = 0; b < out_dims->n; b++)
            for (oc = 0; oc < out_dims->c; oc++) {
                const float *gp = dy + (b * out_dims->c + oc) * s.pixels;
                float acc = 0.0f;
                for (i = 0; i < s.pixels; i++)
                    acc += gp[i];
                db[oc] += acc;
            }
    }
    return FLEX_OK;
}

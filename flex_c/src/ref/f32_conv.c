/* float32 convolution with groups (NCHW, OIHW) and its input / weight gradients, as GEMMs
 * over the im2col matrix of each group: rows are the taps (input channel of the group, ky,
 * kx), columns the output pixels of all the images in turn. The matrix is never stored
 * whole: the GEMM engine packs one block at a time straight from the images
 * (flex__gemm_acc), and the input gradient scatters one block of columns at a time back.
 *
 *   forward       y[og, pixels]   = w[og, taps] @ cols[taps, pixels]   (+ bias)
 *   weight grad   dw[og, taps]    = dy[og, pixels] @ cols[taps, pixels]^T
 *   input grad    cols[taps, pix] = w[og, taps]^T @ dy[og, pixels], scattered onto dx
 *
 * Stride-1 convolutions that fit a scratch buffer take the paths of f32_conv_wide.c instead.
 */
#include "f32_conv.h"

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

/* One group of a convolution over the whole batch. The pixel index q runs over every output
 * pixel of every image (q = image * pixels + oy * out_w + ox), so that small images share a
 * GEMM instead of each paying for its own. */
typedef struct {
    const flex_window *win;
    const float *x;  /* the group's first input channel in image 0 (read) */
    float *dx;       /* the same for the input gradient (written) */
    const float *dy; /* the group's first output channel in image 0 (gradients, read) */
    int32_t in_h, in_w, out_h, out_w;
    int32_t pixels;  /* out_h * out_w */
    int32_t x_image; /* elements from one image to the next in x / dx: in.c * in.h * in.w */
    int32_t y_image; /* the same in y / dy: out.c * pixels */
    int32_t q_base;  /* pixel of the current GEMM's first pixel column (or row) */
    const int32_t *map; /* NULL, or tap_map's table (small images) */
} conv_geom;

/* Runs BODY for each output row segment of pixels [q0, q0 + count) that tap `tap` reads from
 * the image, with: lo, hi (the segment's output columns whose input lies inside the image),
 * src (the x / dx index that output column 0 of that row reads, before the stride) and at
 * (the offset of the segment's output column 0 from pixel q0). Rows and columns that fall
 * in the padding are skipped (their im2col value is 0). */
#define FOR_TAP_SEGMENTS(g, tap, q0, count, BODY)                                          \
    do {                                                                                   \
        const flex_window *w_ = (g)->win;                                                  \
        const int32_t kx_ = (tap) % w_->kernel_w, t_ = (tap) / w_->kernel_w;               \
        const int32_t ky_ = t_ % w_->kernel_h, ic_ = t_ / w_->kernel_h;                    \
        const tap_cols c_ = columns(w_, kx_, (g)->in_w, (g)->out_w);                       \
        const int32_t rem_ = (q0) % (g)->pixels;                                           \
        int32_t img_ = (q0) / (g)->pixels, oy_ = rem_ / (g)->out_w;                        \
        int32_t ox_ = rem_ % (g)->out_w, done_ = 0;                                        \
        while (done_ < (count)) {                                                          \
            const int32_t run_ = (count) - done_ < (g)->out_w - ox_ ? (count) - done_      \
                                                                    : (g)->out_w - ox_;   \
            const int32_t iy_ = oy_ * w_->stride_h - w_->pad_top + ky_ * w_->dilation_h;   \
            const int32_t lo = ox_ > c_.ox_lo ? ox_ : c_.ox_lo;                            \
            const int32_t hi = ox_ + run_ < c_.ox_hi ? ox_ + run_ : c_.ox_hi;              \
            if (iy_ >= 0 && iy_ < (g)->in_h && lo < hi) {                                  \
                const int32_t src = img_ * (g)->x_image +                                  \
                                    (ic_ * (g)->in_h + iy_) * (g)->in_w + c_.x_off;        \
                const int32_t at = done_ - ox_; /* pixel ox is at[ox] */                   \
                BODY                                                                       \
            }                                                                              \
            done_ += run_;                                                                 \
            ox_ = 0;                                                                       \
            if (++oy_ == (g)->out_h) {                                                     \
                oy_ = 0;                                                                   \
                img_++;                                                                    \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Calls BODY for each image's part of the pixels [q0, q0 + count): with `off` the index of
 * the part's first pixel in its image's channel plane, `img` the image, `at` the part's
 * offset from q0 and `len` its length. */
#define FOR_IMAGE_PARTS(g, q0, count, BODY)                                                \
    do {                                                                                   \
        int32_t at = 0;                                                                    \
        while (at < (count)) {                                                             \
            const int32_t img = ((q0) + at) / (g)->pixels, off = ((q0) + at) % (g)->pixels; \
            const int32_t len = (count) - at < (g)->pixels - off ? (count) - at            \
                                                                 : (g)->pixels - off;     \
            BODY                                                                           \
            at += len;                                                                     \
        }                                                                                  \
    } while (0)

/* Small images: a table of the x index (within an image) that each (tap, pixel of an image)
 * reads, -1 in the padding, replaces the per-row segments, which would hold a few pixels. */
#if defined(__x86_64__) || defined(__aarch64__)
#define MAP_MAX 16384
#else
#define MAP_MAX 256
#endif

/* Fills map[taps * pixels] (see MAP_MAX) when it fits and a GEMM block spans images;
 * returns it or NULL. */
static const int32_t *tap_map(const conv_geom *g, int32_t taps, int32_t images,
                              int32_t *map) {
    const flex_window *w = g->win;
    int32_t t, oy, ox;
    if (g->pixels >= FLEX_GEMM_NB || images < 2 || (int64_t)taps * g->pixels > MAP_MAX)
        return 0;
    for (t = 0; t < taps; t++) {
        const int32_t kx = t % w->kernel_w, ky = (t / w->kernel_w) % w->kernel_h;
        const int32_t ic = t / (w->kernel_w * w->kernel_h);
        for (oy = 0; oy < g->out_h; oy++)
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t iy = oy * w->stride_h - w->pad_top + ky * w->dilation_h;
                const int32_t ix = ox * w->stride_w - w->pad_left + kx * w->dilation_w;
                const int in = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
                map[t * g->pixels + oy * g->out_w + ox] =
                    in ? (ic * g->in_h + iy) * g->in_w + ix : -1;
            }
    }
    return map;
}

/* base[o], or +0.0f when o is -1 (padding), without a branch on the table (it mispredicts):
 * a padding entry reads base[0] and masks the bits away. */
FLEX_INLINE float map_load(const float *base, int32_t o) {
    const int32_t pad = -(int32_t)(o < 0); /* all ones in the padding */
    union {
        float f;
        int32_t i;
    } v;
    v.f = base[o & ~pad];
    v.i &= ~pad;
    return v.f;
}

/* out[0:count] = im2col row `tap` over pixels [q0, q0 + count). */
FLEX_INLINE void tap_row(const conv_geom *g, int32_t tap, int32_t q0, int32_t count,
                         float *out) {
    const int32_t sw = g->win->stride_w;
    if (g->map) {
        const int32_t *m = g->map + tap * g->pixels;
        int32_t i;
        FOR_IMAGE_PARTS(g, q0, count, {
            const float *base = g->x + img * g->x_image;
            for (i = 0; i < len; i++) /* one tight loop per image: it vectorizes */
                out[at + i] = map_load(base, m[off + i]);
        });
        return;
    }
    flex__zero(out, count);
    FOR_TAP_SEGMENTS(g, tap, q0, count, {
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

/* dx += im2col row `tap` of values vals[0:count] over pixels [q0, q0 + count). */
FLEX_INLINE void tap_scatter(const conv_geom *g, int32_t tap, int32_t q0, int32_t count,
                             const float *vals) {
    const int32_t sw = g->win->stride_w;
    if (g->map) {
        const int32_t *m = g->map + tap * g->pixels;
        int32_t i;
        FOR_IMAGE_PARTS(g, q0, count, {
            float *base = g->dx + img * g->x_image;
            for (i = 0; i < len; i++) {
                const int32_t o = m[off + i];
                if (o >= 0)
                    base[o] += vals[at + i];
            }
        });
        return;
    }
    FOR_TAP_SEGMENTS(g, tap, q0, count, {
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

/* rows[r, 0:count] = plane r of `src` (output layout, r < n_rows) over pixels
 * [q0, q0 + count); rows has row stride `ld`. */
static void gather_rows(const conv_geom *g, const float *src, int32_t n_rows, int32_t q0,
                        int32_t count, float *rows, int32_t ld) {
    int32_t r, i;
    FOR_IMAGE_PARTS(g, q0, count, {
        for (r = 0; r < n_rows; r++) {
            const float *s = src + img * g->y_image + r * g->pixels + off;
            float *d = rows + r * ld + at;
            for (i = 0; i < len; i++)
                d[i] = s[i];
        }
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
        const conv_geom *g = (const conv_geom *)ctx;
        tap_row(g, p0 + p, g->q_base + j0, nb, row);
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
        const conv_geom *g = (const conv_geom *)ctx;
        tap_row(g, j0 + j, g->q_base + p0, kb, row);
        for (p = 0; p < kb; p++)
            FLEX_PANEL(dst, kb, p, j) = row[p];
    }
}

/* Packs dy[p0:p0+kb (the group's output channels), j0:j0+nb (pixels)]. */
FLEX_CLONES
static void pack_dy(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                    float *dst) {
    const conv_geom *g = (const conv_geom *)ctx;
    float row[ROW_MAX];
    int32_t p;
    for (p = 0; p < kb; p++) {
        gather_rows(g, g->dy + (p0 + p) * g->pixels, 1, g->q_base + j0, nb, row, nb);
        flex__panel_row(dst, kb, p, row, nb);
    }
}

/* Output channels per GEMM of the batched forward / weight gradient (their scratch rows). */
#if defined(__x86_64__) || defined(__aarch64__)
#define OC_BLOCK 64
#else
#define OC_BLOCK 4
#endif

static flex__conv_sizes sizes_of(const flex_dims4 *in, const flex_window *win, int32_t groups,
                                 const flex_dims4 *out) {
    flex__conv_sizes s;
    s.cg = in->c / groups;
    s.og = out->c / groups;
    s.taps = s.cg * win->kernel_h * win->kernel_w;
    return s;
}

static conv_geom geom_of(const flex_dims4 *in, const flex_window *win, const flex_dims4 *out) {
    conv_geom g;
    g.win = win;
    g.x = 0;
    g.dx = 0;
    g.dy = 0;
    g.in_h = in->h;
    g.in_w = in->w;
    g.out_h = out->h;
    g.out_w = out->w;
    g.pixels = out->h * out->w;
    g.x_image = in->c * in->h * in->w;
    g.y_image = out->c * g.pixels;
    g.q_base = 0;
    g.map = 0;
    return g;
}

/* y[oc0:oc0+m] of one group over pixels [q0, q0 + nb) += w_rows @ cols. A block inside one
 * image is accumulated in place; one that spans images goes through `tmp` [m x nb]. */
static void forward_block(conv_geom *g, const float *w_rows, int32_t m, int32_t taps,
                          float *y_rows, int32_t q0, int32_t nb, float *tmp) {
    int32_t r, i;
    g->q_base = q0;
    if (q0 % g->pixels + nb <= g->pixels) {
        flex__gemm_acc(m, nb, taps, w_rows, taps, 1, pack_cols, g,
                       y_rows + (q0 / g->pixels) * g->y_image + q0 % g->pixels, g->pixels);
        return;
    }
    flex__zero(tmp, m * nb);
    flex__gemm_acc(m, nb, taps, w_rows, taps, 1, pack_cols, g, tmp, nb);
    FOR_IMAGE_PARTS(g, q0, nb, {
        for (r = 0; r < m; r++) {
            float *d = y_rows + img * g->y_image + r * g->pixels + off;
            const float *s = tmp + r * nb + at;
            for (i = 0; i < len; i++)
                d[i] += s[i];
        }
    });
}

/* The im2col forward pass (any stride) over the whole batch; y holds the bias already. */
FLEX_NOINLINE static void gemm_forward(const float *x, const float *weight, int32_t groups,
                                       const flex__conv_sizes *s, conv_geom *geo, int32_t images,
                                       float *y) {
    float tmp[OC_BLOCK * FLEX_GEMM_NB];
    int32_t map[MAP_MAX];
    const int32_t total = images * geo->pixels;
    int32_t g, oc0, q0;
    geo->map = tap_map(geo, s->taps, images, map);
    for (g = 0; g < groups; g++) {
        geo->x = x + g * s->cg * geo->in_h * geo->in_w;
        for (oc0 = 0; oc0 < s->og; oc0 += OC_BLOCK) {
            const int32_t m = s->og - oc0 < OC_BLOCK ? s->og - oc0 : OC_BLOCK;
            const int32_t first = g * s->og + oc0;
            for (q0 = 0; q0 < total; q0 += FLEX_GEMM_NB)
                forward_block(geo, weight + first * s->taps, m, s->taps,
                              y + first * geo->pixels, q0,
                              total - q0 < FLEX_GEMM_NB ? total - q0 : FLEX_GEMM_NB, tmp);
        }
    }
}

flex_status flex_f32_conv2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                            const float *weight, size_t weight_len,
                            const float *bias, size_t bias_len,
                            const flex_window *win, int32_t groups,
                            const flex_dims4 *out_dims, float *y, size_t y_len) {
    int32_t b, oc, i;
    flex__conv_sizes s;
    conv_geom geo;
    flex__conv_grid wide;
    flex__conv_wide plan;
    FLEX_TRY(check_conv(in_dims, x, x_len, weight, weight_len, win, groups, out_dims, y,
                        y_len));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_dims->c));
    if (flex__conv_dw_fits(in_dims, win, groups, out_dims, &wide)) {
        flex__conv_dw_forward(in_dims, x, weight, bias, win, out_dims, &wide, y);
        return FLEX_OK;
    }
    s = sizes_of(in_dims, win, groups, out_dims);
    geo = geom_of(in_dims, win, out_dims);
    for (b = 0; b < out_dims->n; b++)
        for (oc = 0; oc < out_dims->c; oc++)
            for (i = 0; i < geo.pixels; i++)
                y[(b * out_dims->c + oc) * geo.pixels + i] = bias ? bias[oc] : 0.0f;
    if ((geo.pixels >= FLEX_GEMM_NB || out_dims->n == 1) &&
        flex__conv_wide_fits(in_dims, win, &s, out_dims, &plan))
        flex__conv_wide_forward(in_dims, x, weight, win, groups, out_dims, &s, &plan, y);
    else
        gemm_forward(x, weight, groups, &s, &geo, out_dims->n, y);
    return FLEX_OK;
}

flex_status flex_f32_conv2d_input_grad(const flex_dims4 *in_dims, float *dx, size_t dx_len,
                                       const float *weight, size_t weight_len,
                                       const flex_window *win, int32_t groups,
                                       const flex_dims4 *out_dims, const float *dy,
                                       size_t dy_len) {
    float cols[FLEX_GEMM_KB * FLEX_GEMM_NB];
    int32_t map[MAP_MAX];
    int32_t g, t0, q0, t, total;
    flex__conv_sizes s;
    conv_geom geo;
    flex__conv_grid wide;
    FLEX_TRY(check_conv(in_dims, dx, dx_len, weight, weight_len, win, groups, out_dims, dy,
                        dy_len));
    if (flex__conv_dw_fits(in_dims, win, groups, out_dims, &wide)) {
        flex__conv_dw_input_grad(in_dims, dx, weight, win, out_dims, dy, &wide);
        return FLEX_OK;
    }
    flex__zero(dx, (int32_t)dx_len);
    s = sizes_of(in_dims, win, groups, out_dims);
    geo = geom_of(in_dims, win, out_dims);
    total = out_dims->n * geo.pixels;
    geo.map = tap_map(&geo, s.taps, out_dims->n, map);
    for (g = 0; g < groups; g++) {
        const float *wg = weight + g * s.og * s.taps;
        geo.dx = dx + g * s.cg * geo.in_h * geo.in_w;
        geo.dy = dy + g * s.og * geo.pixels;
        for (q0 = 0; q0 < total; q0 += FLEX_GEMM_NB) {
            const int32_t nb = total - q0 < FLEX_GEMM_NB ? total - q0 : FLEX_GEMM_NB;
            for (t0 = 0; t0 < s.taps; t0 += FLEX_GEMM_KB) {
                const int32_t kb = s.taps - t0 < FLEX_GEMM_KB ? s.taps - t0 : FLEX_GEMM_KB;
                /* cols[kb, nb] = w[:, t0:t0+kb]^T @ dy[:, q0:q0+nb] */
                flex__zero(cols, kb * nb);
                geo.q_base = q0;
                flex__gemm_acc(kb, nb, s.og, wg + t0, 1, s.taps, pack_dy, &geo, cols, nb);
                for (t = 0; t < kb; t++)
                    tap_scatter(&geo, t0 + t, q0, nb, cols + t * nb);
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
    float rows[OC_BLOCK * FLEX_GEMM_KB];
    int32_t map[MAP_MAX];
    int32_t b, g, oc, oc0, i, q0, total;
    flex__conv_sizes s;
    conv_geom geo;
    flex__conv_grid wide;
    FLEX_TRY(check_conv(in_dims, x, x_len, dw, dw_len, win, groups, out_dims, dy, dy_len));
    FLEX_TRY(flex__check_bias(db, db_len, out_dims->c));
    flex__zero(dw, (int32_t)dw_len);
    s = sizes_of(in_dims, win, groups, out_dims);
    geo = geom_of(in_dims, win, out_dims);
    total = out_dims->n * geo.pixels;
    geo.map = tap_map(&geo, s.taps, out_dims->n, map);
    if (flex__conv_dw_fits(in_dims, win, groups, out_dims, &wide))
        flex__conv_dw_weight_grad(in_dims, x, win, out_dims, dy, &wide, dw);
    else
        for (g = 0; g < groups; g++) {
            geo.x = x + g * s.cg * geo.in_h * geo.in_w;
            for (oc0 = 0; oc0 < s.og; oc0 += OC_BLOCK) {
                const int32_t m = s.og - oc0 < OC_BLOCK ? s.og - oc0 : OC_BLOCK;
                const int32_t first = g * s.og + oc0;
                /* dw[oc0:oc0+m] += dy rows over a block of pixels @ that block of cols^T */
                for (q0 = 0; q0 < total; q0 += FLEX_GEMM_KB) {
                    const int32_t kb = total - q0 < FLEX_GEMM_KB ? total - q0 : FLEX_GEMM_KB;
                    gather_rows(&geo, dy + first * geo.pixels, m, q0, kb, rows, kb);
                    geo.q_base = q0;
                    flex__gemm_acc(m, s.taps, kb, rows, kb, 1, pack_cols_t, &geo,
                                   dw + first * s.taps, s.taps);
                }
            }
        }
    if (db) {
        flex__zero(db, out_dims->c);
        for (b = 0; b < out_dims->n; b++)
            for (oc = 0; oc < out_dims->c; oc++) {
                const float *gp = dy + (b * out_dims->c + oc) * geo.pixels;
                float acc = 0.0f;
                for (i = 0; i < geo.pixels; i++)
                    acc += gp[i];
                db[oc] += acc;
            }
    }
    return FLEX_OK;
}

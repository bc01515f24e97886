/* float32 kernels of the exported graph (NHWC memory order, OHWI filters) with TFLite's fused
 * activation codes. Convolutions and fully connected layers run on the blocked GEMM engine
 * (flex__gemm_acc): an output row's pixels are the GEMM rows, read in place from the image
 * with a stride, and the filter's taps are packed as B, so nothing is stored whole. */
#include "../common/internal.h"

/* The clamp of a fused activation code; FLEX_E_PARAM for an unknown code. */
static flex_status act_range(int32_t act, float *lo, float *hi) {
    if (act == FLEX_ACT_NONE || act == FLEX_ACT_RELU) {
        *lo = act == FLEX_ACT_RELU ? 0.0f : -flex__inff();
        *hi = flex__inff();
    } else if (act == FLEX_ACT_RELU_N1_TO_1) {
        *lo = -1.0f;
        *hi = 1.0f;
    } else if (act == FLEX_ACT_RELU6) {
        *lo = 0.0f;
        *hi = 6.0f;
    } else {
        return FLEX_E_PARAM;
    }
    return FLEX_OK;
}

/* y[i] = clamp(y[i]); NaN passes through, as burn.graph's apply_act leaves it. */
FLEX_INLINE void clamp_all(float *y, int32_t n, int32_t act, float lo, float hi) {
    int32_t i;
    if (act == FLEX_ACT_NONE)
        return;
    for (i = 0; i < n; i++) {
        const float v = y[i];
        y[i] = v < lo ? lo : (v > hi ? hi : v);
    }
}

/* y[pixels, channels] = bias (or 0) on every pixel. */
static void fill_bias(float *y, int32_t pixels, int32_t channels, const float *bias) {
    int32_t p, c;
    for (p = 0; p < pixels; p++, y += channels)
        for (c = 0; c < channels; c++)
            y[c] = bias ? bias[c] : 0.0f;
}

/* B[p, j] = w[j * cs + p]: filter rows (one output channel each, taps innermost) as the
 * GEMM's [taps, channels] operand. */
typedef struct {
    const float *w;
    int32_t cs;
} filter_t;

FLEX_CLONES
static void pack_filter(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                        float *dst) {
    const filter_t *f = (const filter_t *)ctx;
    int32_t p, j;
    for (j = 0; j < nb; j++) {
        const float *row = f->w + (j0 + j) * f->cs + p0;
        for (p = 0; p < kb; p++)
            FLEX_PANEL(dst, kb, p, j) = row[p];
    }
}

static flex_status check_bias(const float *bias, size_t bias_len, int32_t channels) {
    if (!bias)
        return bias_len == 0 ? FLEX_OK : FLEX_E_NULL;
    return flex__check_len(bias_len, channels);
}

static flex_status check_io(const flex_dims4 *in_dims, const float *x, size_t x_len,
                            const flex_window *win, const flex_dims4 *out_dims, const float *y,
                            size_t y_len) {
    int32_t count;
    if (!x || !y)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &count));
    FLEX_TRY(flex__check_len(x_len, count));
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(y_len, count));
    return flex__check_spatial(in_dims, win, out_dims, 0);
}

/* Stack scratch, in floats: output spans of in-place execution (see by_spans) and im2col
 * blocks (conv_patches). */
#if defined(__x86_64__) || defined(__aarch64__)
#define CHUNK_MAX 16384
#define PATCH_MAX 16384
#else
#define CHUNK_MAX 256
#define PATCH_MAX 256
#endif

static int overlaps(const float *a, size_t a_len, const float *b, size_t b_len) {
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + b_len * sizeof(float) && pb < pa + a_len * sizeof(float);
}

/* Computes output units (pixels, or rows of a fully connected layer) [p0, p1), each
 * `channels` floats, into dst, the fused activation included. */
typedef void (*span_fn)(const void *ctx, int32_t p0, int32_t p1, float *dst);

/* Runs `fn` over all `units` output units. The .bst arena may place the output a little
 * below an input that dies at this op (docs/bst-format.md): unit p may be written once
 * every input of the units up to p has been read. Then each span is computed in a scratch
 * buffer and copied out once complete, in increasing address order. */
FLEX_NOINLINE
static flex_status by_spans(span_fn fn, const void *ctx, int32_t units, int32_t channels,
                            int in_place, float *output) {
    FLEX_ALIGNED float scratch[CHUNK_MAX];
    const int32_t per_span = CHUNK_MAX / channels;
    int32_t p0, i;
    if (!in_place) {
        fn(ctx, 0, units, output);
        return FLEX_OK;
    }
    if (per_span < 1)
        return FLEX_E_SIZE; /* a unit larger than the scratch cannot run in place */
    for (p0 = 0; p0 < units; p0 += per_span) {
        const int32_t p1 = units - p0 < per_span ? units : p0 + per_span;
        float *out = output + p0 * channels;
        fn(ctx, p0, p1, scratch);
        for (i = 0; i < (p1 - p0) * channels; i++)
            out[i] = scratch[i];
    }
    return FLEX_OK;
}

typedef struct {
    const flex_dims4 *in, *out;
    const flex_window *win;
    const float *x, *w, *bias;
    float lo, hi;
    int32_t act, groups, depth_multiplier, is_max;
    int32_t ic, oc, gic, goc, wstride, a_rs;
} graph_op;

/* One GEMM: y[0:hi-lo, the group's channels] += the input rows of output columns [lo, hi)
 * (x_off: the input index that column 0 reads, which may lie before the row; row stride
 * a_rs) @ filter taps [tap0, tap0 + k) of the group's output channels. */
static void gemm_piece(const graph_op *g, int32_t group, int32_t x_off, float *y, int32_t lo,
                       int32_t hi, int32_t tap0, int32_t k) {
    filter_t f;
    if (lo >= hi)
        return;
    f.w = g->w + group * g->goc * g->wstride + tap0;
    f.cs = g->wstride;
    flex__gemm_acc(hi - lo, g->goc, k, g->x + x_off + lo * g->a_rs + group * g->gic,
                   g->a_rs, 1, pack_filter, &f, y + group * g->goc, g->oc);
}

/* Output columns [c0, c1) of output row `row` (image * out.h + oy) += the convolution,
 * into y (column c0 first): one GEMM per tap and group over the columns it reads inside the
 * image. */
static void conv_row(const graph_op *g, int32_t row, int32_t c0, int32_t c1, float *y) {
    const flex_window *win = g->win;
    const int32_t b = row / g->out->h, oy = row % g->out->h;
    const int32_t in_w = g->in->w, sw = win->stride_w;
    int32_t ky, kx, grp;
    for (ky = 0; ky < win->kernel_h; ky++) {
        const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
        const int32_t xrow = ((b * g->in->h + iy) * in_w - win->pad_left) * g->ic;
        if (iy < 0 || iy >= g->in->h)
            continue;
        for (kx = 0; kx < win->kernel_w; kx++) {
            const int32_t first = win->pad_left - kx * win->dilation_w;
            const int32_t end = in_w - 1 + first;
            int32_t lo = first <= 0 ? 0 : (first + sw - 1) / sw;
            int32_t hi = end < 0 ? 0 : end / sw + 1;
            if (lo < c0)
                lo = c0;
            if (hi > c1)
                hi = c1;
            for (grp = 0; grp < g->groups; grp++)
                gemm_piece(g, grp, xrow + kx * win->dilation_w * g->ic,
                           y + (lo - c0) * g->oc, lo, hi, (ky * win->kernel_w + kx) * g->gic,
                           g->gic);
        }
    }
}

/* The im2col rows of pixels [p0, p1): each window's inputs in (ky, kx, channel) order, 0
 * outside the image. Geometry in locals: with -fno-strict-aliasing (Python's flags) every
 * float store would otherwise reload it from *g. */
FLEX_INLINE void fill_patches(const graph_op *g, int32_t p0, int32_t p1, float *patch) {
    const int32_t in_h = g->in->h, in_w = g->in->w, ic = g->ic;
    const int32_t out_h = g->out->h, out_w = g->out->w;
    const int32_t kh = g->win->kernel_h, kw = g->win->kernel_w;
    const int32_t sh = g->win->stride_h, sw = g->win->stride_w;
    const int32_t dh = g->win->dilation_h, dw = g->win->dilation_w;
    const int32_t pt = g->win->pad_top, pl = g->win->pad_left, row_len = kw * ic;
    const float *x = g->x;
    int32_t p, ky, kx, c;
    for (p = p0; p < p1; p++) {
        const int32_t ox = p % out_w, row = p / out_w;
        const int32_t oy = row % out_h, b = row / out_h;
        const int32_t ix0 = ox * sw - pl;
        for (ky = 0; ky < kh; ky++) {
            const int32_t iy = oy * sh - pt + ky * dh;
            if (iy >= 0 && iy < in_h && dw == 1 && ix0 >= 0 && ix0 + kw <= in_w) {
                /* the window row lies inside the image: kw * ic contiguous inputs */
                const float *xi = x + ((b * in_h + iy) * in_w + ix0) * ic;
                for (c = 0; c < row_len; c++)
                    patch[c] = xi[c];
                patch += row_len;
                continue;
            }
            for (kx = 0; kx < kw; kx++, patch += ic) {
                const int32_t ix = ix0 + kx * dw;
                const float *xi = x + ((b * in_h + iy) * in_w + ix) * ic;
                if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w)
                    for (c = 0; c < ic; c++)
                        patch[c] = 0.0f;
                else
                    for (c = 0; c < ic; c++)
                        patch[c] = xi[c];
            }
        }
    }
}

/* dst[0:p1-p0, :] += the im2col rows of pixels [p0, p1) @ the filter (no groups), one
 * GEMM per block of rows that fits PATCH_MAX floats. */
FLEX_NOINLINE FLEX_CLONES
static void conv_patches(const graph_op *g, int32_t p0, int32_t p1, float *dst) {
    FLEX_ALIGNED float patch[PATCH_MAX];
    const int32_t taps = g->wstride, per_block = PATCH_MAX / g->wstride;
    int32_t q0;
    filter_t f;
    f.w = g->w;
    f.cs = taps;
    for (q0 = p0; q0 < p1; q0 += per_block) {
        const int32_t q1 = p1 - q0 < per_block ? p1 : q0 + per_block;
        fill_patches(g, q0, q1, patch);
        flex__gemm_acc(q1 - q0, g->oc, taps, patch, taps, 1, pack_filter, &f,
                       dst + (q0 - p0) * g->oc, g->oc);
    }
}

/* Pointwise convolutions read the input in place, small-filter ones go through im2col
 * blocks, and grouped or very large filters through per-row GEMMs over the image. */
static void conv_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const int32_t ow = g->out->w;
    const flex_window *win = g->win;
    const int pointwise = win->kernel_h == 1 && win->kernel_w == 1 && win->stride_h == 1 &&
                          win->stride_w == 1 && win->pad_top == 0 && win->pad_left == 0 &&
                          g->in->h == g->out->h && g->in->w == ow;
    int32_t p = p0, grp;
    fill_bias(dst, p1 - p0, g->oc, g->bias);
    if (pointwise) { /* the output pixels are the input's: one GEMM per group */
        for (grp = 0; grp < g->groups; grp++)
            gemm_piece(g, grp, p0 * g->ic, dst, 0, p1 - p0, 0, g->gic);
    } else if (g->groups == 1 && g->wstride <= PATCH_MAX) {
        conv_patches(g, p0, p1, dst);
    } else {
        while (p < p1) {
            const int32_t c0 = p % ow, c1 = p1 - p < ow - c0 ? c0 + p1 - p : ow;
            conv_row(g, p / ow, c0, c1, dst + (p - p0) * g->oc);
            p += c1 - c0;
        }
    }
    clamp_all(dst, (p1 - p0) * g->oc, g->act, g->lo, g->hi);
}

/* Checks and fills what every windowed op shares. */
static flex_status graph_op_init(graph_op *g, const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, const float *bias,
                                 size_t bias_len, const flex_window *win, int32_t act,
                                 const flex_dims4 *out_dims, float *output,
                                 size_t output_len) {
    FLEX_TRY(check_io(in_dims, input, input_len, win, out_dims, output, output_len));
    FLEX_TRY(check_bias(bias, bias_len, out_dims->c));
    FLEX_TRY(act_range(act, &g->lo, &g->hi));
    g->in = in_dims;
    g->out = out_dims;
    g->win = win;
    g->x = input;
    g->w = filter;
    g->bias = bias;
    g->act = act;
    g->ic = in_dims->c;
    g->oc = out_dims->c;
    return FLEX_OK;
}

flex_status flex_f32_nhwc_conv2d(const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, size_t filter_len,
                                 const float *bias, size_t bias_len, const flex_window *win,
                                 int32_t groups, int32_t act, const flex_dims4 *out_dims,
                                 float *output, size_t output_len) {
    int32_t count;
    graph_op g;
    FLEX_TRY(graph_op_init(&g, in_dims, input, input_len, filter, bias, bias_len, win, act,
                           out_dims, output, output_len));
    if (!filter)
        return FLEX_E_NULL;
    if (groups < 1 || in_dims->c % groups || out_dims->c % groups)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(win->kernel_h * win->kernel_w, in_dims->c / groups, &count));
    g.wstride = count;
    FLEX_TRY(flex__product(count, out_dims->c, &count));
    FLEX_TRY(flex__check_len(filter_len, count));
    g.groups = groups;
    g.gic = in_dims->c / groups;
    g.goc = out_dims->c / groups;
    g.a_rs = win->stride_w * in_dims->c;
    return by_spans(conv_span, &g, out_dims->n * out_dims->h * out_dims->w, g.oc,
                    overlaps(input, input_len, output, output_len), output);
}

/* o[0:oc] += x[c / mult] * w[c] over one tap. */
FLEX_INLINE void depthwise_tap(float *o, const float *x, const float *w, int32_t oc,
                          int32_t mult) {
    int32_t c;
    if (mult == 1) {
        for (c = 0; c < oc; c++)
            o[c] += x[c] * w[c];
    } else {
        for (c = 0; c < oc; c++)
            o[c] += x[c / mult] * w[c];
    }
}

FLEX_CLONES
static void depthwise_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const int32_t in_h = g->in->h, in_w = g->in->w, ic = g->ic, oc = g->oc;
    const int32_t out_h = g->out->h, out_w = g->out->w, mult = g->depth_multiplier;
    const int32_t kh = g->win->kernel_h, kw = g->win->kernel_w;
    const int32_t sh = g->win->stride_h, sw = g->win->stride_w;
    const int32_t dh = g->win->dilation_h, dw = g->win->dilation_w;
    const int32_t pt = g->win->pad_top, pl = g->win->pad_left;
    const float *x = g->x, *w = g->w;
    int32_t p, ky, kx;
    fill_bias(dst, p1 - p0, oc, g->bias);
    for (p = p0; p < p1; p++) {
        const int32_t ox = p % out_w, row = p / out_w;
        const int32_t oy = row % out_h, b = row / out_h;
        float *o = dst + (p - p0) * oc;
        for (ky = 0; ky < kh; ky++) {
            const int32_t iy = oy * sh - pt + ky * dh;
            if (iy < 0 || iy >= in_h)
                continue;
            for (kx = 0; kx < kw; kx++) {
                const int32_t ix = ox * sw - pl + kx * dw;
                if (ix < 0 || ix >= in_w)
                    continue;
                depthwise_tap(o, x + ((b * in_h + iy) * in_w + ix) * ic,
                              w + (ky * kw + kx) * oc, oc, mult);
            }
        }
    }
    clamp_all(dst, (p1 - p0) * oc, g->act, g->lo, g->hi);
}

flex_status flex_f32_nhwc_depthwise_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_window *win,
                                           int32_t depth_multiplier, int32_t act,
                                           const flex_dims4 *out_dims, float *output,
                                           size_t output_len) {
    int32_t count;
    graph_op g;
    FLEX_TRY(graph_op_init(&g, in_dims, input, input_len, filter, bias, bias_len, win, act,
                           out_dims, output, output_len));
    if (!filter)
        return FLEX_E_NULL;
    if (depth_multiplier < 1 || out_dims->c % depth_multiplier ||
        out_dims->c / depth_multiplier != in_dims->c)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(win->kernel_h * win->kernel_w, out_dims->c, &count));
    FLEX_TRY(flex__check_len(filter_len, count));
    g.depth_multiplier = depth_multiplier;
    return by_spans(depthwise_span, &g, out_dims->n * out_dims->h * out_dims->w, g.oc,
                    overlaps(input, input_len, output, output_len), output);
}

static void fully_connected_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    filter_t f;
    f.w = g->w;
    f.cs = g->ic;
    fill_bias(dst, p1 - p0, g->oc, g->bias);
    flex__gemm_acc(p1 - p0, g->oc, g->ic, g->x + p0 * g->ic, g->ic, 1, pack_filter, &f, dst,
                   g->oc);
    clamp_all(dst, (p1 - p0) * g->oc, g->act, g->lo, g->hi);
}

flex_status flex_f32_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const float *input,
                                     size_t input_len, const float *filter, size_t filter_len,
                                     const float *bias, size_t bias_len, int32_t act,
                                     float *output, size_t output_len) {
    int32_t count;
    graph_op g;
    if (!input || !filter || !output)
        return FLEX_E_NULL;
    if (batches < 1 || in_features < 1 || out_features < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(batches, in_features, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    FLEX_TRY(flex__product(out_features, in_features, &count));
    FLEX_TRY(flex__check_len(filter_len, count));
    FLEX_TRY(flex__product(batches, out_features, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(check_bias(bias, bias_len, out_features));
    FLEX_TRY(act_range(act, &g.lo, &g.hi));
    g.x = input;
    g.w = filter;
    g.bias = bias;
    g.act = act;
    g.ic = in_features;
    g.oc = out_features;
    return by_spans(fully_connected_span, &g, batches, out_features,
                    overlaps(input, input_len, output, output_len), output);
}

/* Average (over the in-bounds cells) or max of each pixel's window. */
FLEX_CLONES
static void pool_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const flex_window *win = g->win;
    const int32_t ch = g->oc;
    int32_t p, fy, fx, c;
    for (p = p0; p < p1; p++) {
        const int32_t ox = p % g->out->w, row = p / g->out->w;
        const int32_t oy = row % g->out->h, b = row / g->out->h;
        const int32_t y0 = oy * win->stride_h - win->pad_top;
        const int32_t x0 = ox * win->stride_w - win->pad_left;
        const int32_t fy0 = y0 < 0 ? -y0 : 0, fx0 = x0 < 0 ? -x0 : 0;
        const int32_t fy1 = g->in->h - y0 < win->kernel_h ? g->in->h - y0 : win->kernel_h;
        const int32_t fx1 = g->in->w - x0 < win->kernel_w ? g->in->w - x0 : win->kernel_w;
        float *o = dst + (p - p0) * ch;
        int first = 1;
        for (fy = fy0; fy < fy1; fy++)
            for (fx = fx0; fx < fx1; fx++) {
                const float *xi = g->x + ((b * g->in->h + y0 + fy) * g->in->w + x0 + fx) * ch;
                for (c = 0; c < ch; c++) {
                    const float v = xi[c];
                    o[c] = first ? v : (g->is_max ? (v > o[c] ? v : o[c]) : o[c] + v);
                }
                first = 0;
            }
        if (first) /* a window in the padding only */
            for (c = 0; c < ch; c++)
                o[c] = 0.0f;
        else if (!g->is_max)
            for (c = 0; c < ch; c++)
                o[c] /= (float)((fy1 - fy0) * (fx1 - fx0));
        clamp_all(o, ch, g->act, g->lo, g->hi);
    }
}

static flex_status pool(const flex_dims4 *in_dims, const float *x, size_t x_len,
                        const flex_window *win, int32_t act, const flex_dims4 *out_dims,
                        float *y, size_t y_len, int32_t is_max) {
    graph_op g;
    FLEX_TRY(graph_op_init(&g, in_dims, x, x_len, 0, 0, 0, win, act, out_dims, y, y_len));
    if (in_dims->c != out_dims->c || win->dilation_h != 1 || win->dilation_w != 1)
        return FLEX_E_SHAPE;
    g.is_max = is_max;
    return by_spans(pool_span, &g, out_dims->n * out_dims->h * out_dims->w, g.oc,
                    overlaps(x, x_len, y, y_len), y);
}

flex_status flex_f32_nhwc_avg_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len) {
    return pool(in_dims, input, input_len, win, act, out_dims, output, output_len, 0);
}

flex_status flex_f32_nhwc_max_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len) {
    return pool(in_dims, input, input_len, win, act, out_dims, output, output_len, 1);
}

/* MEAN over the middle axis of [outer, reduce, inner], each output element written after
 * its inputs are read, in increasing order (the arena's in-place rule). */
flex_status flex_f32_mean(int32_t outer, int32_t reduce, int32_t inner, const float *input,
                          size_t input_len, float *output, size_t output_len) {
    int32_t count, a, k, r;
    if (!input || !output)
        return FLEX_E_NULL;
    if (outer < 1 || reduce < 1 || inner < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(outer, inner, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(flex__product(count, reduce, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    for (a = 0; a < outer; a++)
        for (k = 0; k < inner; k++) {
            const float *x = input + a * reduce * inner + k;
            float acc = 0.0f;
            for (r = 0; r < reduce; r++)
                acc += x[r * inner];
            output[a * inner + k] = acc / (float)reduce;
        }
    return FLEX_OK;
}

/* y[i] = act(a[i] op b[i % b_len]), the innermost-dims broadcast of the graph's ADD / MUL. */
FLEX_CLONES
static flex_status binary(size_t n, const float *a, const float *b, size_t b_len,
                          int32_t act, float *y, int is_mul) {
    size_t i, j;
    float lo, hi;
    if (!a || !b || !y)
        return FLEX_E_NULL;
    if (n < 1 || b_len < 1 || n % b_len)
        return FLEX_E_SHAPE;
    FLEX_TRY(act_range(act, &lo, &hi));
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++)
            y[i + j] = is_mul ? a[i + j] * b[j] : a[i + j] + b[j];
    for (i = 0; i < n; i += (size_t)INT32_MAX)
        clamp_all(y + i, n - i < (size_t)INT32_MAX ? (int32_t)(n - i) : INT32_MAX, act, lo,
                  hi);
    return FLEX_OK;
}

flex_status flex_f32_add_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output) {
    return binary(n, a, b, b_len, act, output, 0);
}

flex_status flex_f32_mul_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output) {
    return binary(n, a, b, b_len, act, output, 1);
}

flex_status flex_f32_act(size_t n, const float *input, int32_t act, float *output) {
    size_t i;
    float lo, hi;
    if (!input || !output)
        return FLEX_E_NULL;
    FLEX_TRY(act_range(act, &lo, &hi));
    for (i = 0; i < n; i++) {
        const float v = input[i];
        output[i] = act == FLEX_ACT_NONE ? v : (v < lo ? lo : (v > hi ? hi : v));
    }
    return FLEX_OK;
}

flex_status flex_f32_softmax_beta(int32_t rows, int32_t depth, const float *input,
                                  size_t input_len, float beta, float *output,
                                  size_t output_len) {
    int32_t count, r, c;
    if (!input || !output)
        return FLEX_E_NULL;
    if (rows < 1 || depth < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(rows, depth, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    FLEX_TRY(flex__check_len(output_len, count));
    for (r = 0; r < rows; r++) {
        const float *x = input + r * depth;
        float *y = output + r * depth;
        float top = x[0], total = 0.0f;
        for (c = 1; c < depth; c++)
            if (x[c] > top)
                top = x[c];
        for (c = 0; c < depth; c++) {
            y[c] = flex__expf((x[c] - top) * beta);
            total += y[c];
        }
        for (c = 0; c < depth; c++)
            y[c] = y[c] / total;
    }
    return FLEX_OK;
}

/* float32 kernels of the exported graph (NHWC memory order, OHWI filters) with TFLite's fused
 * activation codes. A convolution with three filter columns and column stride 1 runs as
 * Winograd F(4, 3) along its rows where that applies (f32_winograd.c). Other convolutions
 * and fully connected layers are GEMMs with the output pixels as rows and the filter as B
 * (packed once per call): each row reads its window in place (flex__gemm_gather), from the
 * image or from a zero-padded copy of a band of its rows, so nothing like im2col is stored;
 * the bias and the activation are applied as the GEMM stores its tiles. Depthwise
 * convolutions and pools walk the channels of each pixel (contiguous in NHWC); a 3x3
 * depthwise convolution with column stride 1 walks tiles of pixels along a row instead. */
#include "../common/internal.h"

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

/* Stack scratch, in floats: output spans of in-place execution (see by_spans), the band of
 * zero-padded input rows of a convolution (conv_gather) and its packed filter block, of at
 * most KB_MAX taps (a 16-column panel of 256 taps stays in L1 on hosts). */
#define PACK_MAX (FLEX_GEMM_KB * FLEX_GEMM_NB)
#if defined(__x86_64__) || defined(__aarch64__)
#define CHUNK_MAX 16384
#define BAND_MAX 16384
#define KB_MAX 256
#else
#define CHUNK_MAX 256
#define BAND_MAX 256
#define KB_MAX (PACK_MAX / FLEX_GEMM_NR)
#endif

static int overlaps(const float *a, size_t a_len, const float *b, size_t b_len) {
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + b_len * sizeof(float) && pb < pa + a_len * sizeof(float);
}

/* Computes output units (pixels, or rows of a fully connected layer) [p0, p1), each
 * `channels` floats, into dst, the fused activation included. */
typedef void (*span_fn)(const void *ctx, int32_t p0, int32_t p1, float *dst);

/* Runs `fn` over all `units` output units, `row` of them to an output row. The .bst arena
 * may place the output a little below an input that dies at this op (docs/bst-format.md):
 * unit p may be written once every input of the units up to p has been read. Then each span
 * is computed in a scratch buffer and copied out once complete, in increasing address
 * order. A span is whole rows where a row fits the scratch, else a multiple of
 * FLEX_WINOGRAD_TILE units within a row: it starts at a Winograd tile, so an op takes the
 * same path (and gives the same bits) in place or not. */
FLEX_NOINLINE
static flex_status by_spans(span_fn fn, const void *ctx, int32_t units, int32_t row,
                            int32_t channels, int in_place, float *output) {
    FLEX_ALIGNED float scratch[CHUNK_MAX];
    int32_t per_span = CHUNK_MAX / channels, p0, p1, i;
    if (!in_place) {
        fn(ctx, 0, units, output);
        return FLEX_OK;
    }
    if (per_span < 1)
        return FLEX_E_SIZE; /* a unit larger than the scratch cannot run in place */
    if (per_span >= row)
        per_span = per_span / row * row;
    else if (per_span >= FLEX_WINOGRAD_TILE)
        per_span = per_span / FLEX_WINOGRAD_TILE * FLEX_WINOGRAD_TILE;
    for (p0 = 0; p0 < units; p0 = p1) {
        float *out = output + p0 * channels;
        p1 = units - p0 < per_span ? units : p0 + per_span;
        if (per_span < row && p1 / row > p0 / row)
            p1 = (p0 / row + 1) * row; /* the rest of the row */
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
    flex__strided f;
    if (lo >= hi)
        return;
    f.b = g->w + group * g->goc * g->wstride + tap0;
    f.rs = 1;
    f.cs = g->wstride;
    flex__gemm_acc(hi - lo, g->goc, k, g->x + x_off + lo * g->a_rs + group * g->gic,
                   g->a_rs, 1, flex__pack_strided, &f, y + group * g->goc, g->oc);
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

/* How a convolution reads its windows in place (conv_gather). A window is `runs` runs of
 * run_len contiguous inputs: one per window row when a row's taps are contiguous (no groups,
 * no column dilation), else one per tap. */
typedef struct {
    int32_t kh_ext, wp; /* input rows a window spans; input columns an output row's span */
    int32_t pitch;      /* floats from one source row to the next */
    int32_t band_rows;  /* output rows per band of padded rows; 0: read the image itself */
    int32_t run_len, runs_per_row;
} gather_plan;

/* Fills `pl`; 0 when one output row's band of padded input rows does not fit BAND_MAX. */
static int plan_gather(const graph_op *g, gather_plan *pl) {
    const flex_window *w = g->win;
    const int32_t contiguous = g->groups == 1 && w->dilation_w == 1;
    int64_t fit;
    pl->kh_ext = (w->kernel_h - 1) * w->dilation_h + 1;
    pl->wp = (g->out->w - 1) * w->stride_w + (w->kernel_w - 1) * w->dilation_w + 1;
    pl->run_len = contiguous ? w->kernel_w * g->ic : g->gic;
    pl->runs_per_row = contiguous ? 1 : w->kernel_w;
    if (w->pad_top == 0 && w->pad_left == 0 && pl->wp <= g->in->w &&
        (g->out->h - 1) * w->stride_h + pl->kh_ext <= g->in->h) {
        pl->pitch = g->in->w * g->ic; /* every window lies inside the image */
        pl->band_rows = 0;
        return 1;
    }
    fit = BAND_MAX / ((int64_t)pl->wp * g->ic);
    if (fit < pl->kh_ext)
        return 0;
    pl->pitch = pl->wp * g->ic;
    pl->band_rows = (int32_t)((fit - pl->kh_ext) / w->stride_h + 1);
    return 1;
}

/* The segments of taps [k0, k1) of a window (offsets from its corner); returns their count. */
static int32_t window_segments(const graph_op *g, const gather_plan *pl, int32_t k0, int32_t k1,
                               int32_t *off, int32_t *len) {
    const flex_window *w = g->win;
    int32_t n = 0, k = k0;
    while (k < k1) {
        const int32_t run = k / pl->run_len, at = k % pl->run_len;
        const int32_t ky = run / pl->runs_per_row, kx = run % pl->runs_per_row;
        len[n] = pl->run_len - at < k1 - k ? pl->run_len - at : k1 - k;
        off[n] = ky * w->dilation_h * pl->pitch + kx * w->dilation_w * g->ic + at;
        k += len[n++];
    }
    return n;
}

/* band[0:rows, 0:pitch] = input rows iy0 .. iy0 + rows - 1 of image b from column -pad_left,
 * zeros outside the image. */
static void fill_band(const graph_op *g, const gather_plan *pl, int32_t b, int32_t iy0,
                      int32_t rows, float *band) {
    const int32_t ic = g->ic, in_w = g->in->w, pad = g->win->pad_left;
    const int32_t left = (pad < pl->wp ? pad : pl->wp) * ic;
    const int32_t cols = pl->wp - pad < in_w ? pl->wp - pad : in_w;
    const int32_t copy = cols > 0 ? cols * ic : 0;
    int32_t r, i;
    for (r = 0; r < rows; r++, band += pl->pitch) {
        const int32_t iy = iy0 + r;
        const float *src;
        if (iy < 0 || iy >= g->in->h) {
            for (i = 0; i < pl->pitch; i++)
                band[i] = 0.0f;
            continue;
        }
        src = g->x + (b * g->in->h + iy) * in_w * ic;
        for (i = 0; i < left; i++)
            band[i] = 0.0f;
        for (i = 0; i < copy; i++)
            band[left + i] = src[i];
        for (i = left + copy; i < pl->pitch; i++)
            band[i] = 0.0f;
    }
}

/* dst[0:p1-p0, :] = the convolution of output pixels [p0, p1): per group and block of taps
 * and output channels, the filter block is packed once and every pixel's window is read in
 * place, from the image or from a band of its padded rows (built once per band). */
FLEX_NOINLINE
static void conv_gather(const graph_op *g, const gather_plan *pl, int32_t p0, int32_t p1,
                        float *dst) {
    FLEX_ALIGNED float packed[PACK_MAX];
    FLEX_ALIGNED float band[BAND_MAX];
    int32_t off[KB_MAX], len[KB_MAX];
    const flex_window *w = g->win;
    const int32_t ow = g->out->w, pixels = g->out->h * ow, k = g->wstride;
    const int32_t image = g->in->h * g->in->w * g->ic;
    const int32_t blocks = (k + KB_MAX - 1) / KB_MAX, kstep = (k + blocks - 1) / blocks;
    int32_t grp, k0, j0, p, band_b = -1, band_oy = -1;
    flex__rows rows;
    flex__strided f;
    rows.width = ow;
    rows.ystep = w->stride_h * pl->pitch;
    rows.xstep = w->stride_w * g->ic;
    rows.off = off;
    rows.len = len;
    f.rs = 1;
    f.cs = k;
    for (grp = 0; grp < g->groups; grp++)
        for (k0 = 0; k0 < k; k0 += kstep) {
            const int32_t kb = k - k0 < kstep ? k - k0 : kstep;
            const int32_t nb_max = PACK_MAX / (kb * FLEX_GEMM_NR) * FLEX_GEMM_NR;
            rows.segs = window_segments(g, pl, k0, k0 + kb, off, len);
            rows.k = kb;
            f.b = g->w + grp * g->goc * k;
            for (j0 = 0; j0 < g->goc; j0 += nb_max) {
                const int32_t nb = g->goc - j0 < nb_max ? g->goc - j0 : nb_max;
                const int32_t col = grp * g->goc + j0;
                flex__pack_block(flex__pack_strided, &f, k0, kb, j0, nb, packed);
                for (p = p0; p < p1;) {
                    const int32_t b = p / pixels, at = p % pixels, oy = at / ow;
                    int32_t first = 0, end = pixels, q1;
                    if (pl->band_rows) { /* output rows [oy, end / ow) from one band */
                        const int32_t oy1 = g->out->h - oy < pl->band_rows ? g->out->h
                                                                            : oy + pl->band_rows;
                        if (b != band_b || oy != band_oy)
                            fill_band(g, pl, b, oy * w->stride_h - w->pad_top,
                                      (oy1 - oy - 1) * w->stride_h + pl->kh_ext, band);
                        band_b = b;
                        band_oy = oy;
                        first = oy * ow;
                        end = oy1 * ow;
                        rows.src = band + grp * g->gic;
                    } else {
                        rows.src = g->x + b * image + grp * g->gic;
                    }
                    q1 = end - at < p1 - p ? end : at + p1 - p;
                    flex__gemm_gather(&rows, at - first, q1 - first, nb, packed,
                                      g->bias ? g->bias + col : 0, k0 == 0, k0 + kb == k,
                                      g->lo, g->hi, dst + (p - p0) * g->oc + col, g->oc);
                    p += q1 - at;
                }
            }
        }
}

/* Winograd where it applies, else windows read in place when a band fits, else one GEMM
 * per tap and output row segment. */
static void conv_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const int32_t ow = g->out->w;
    gather_plan pl;
    int32_t p = p0;
    if (flex__winograd_conv(g->in, g->x, g->w, g->bias, g->win, g->groups, g->lo, g->hi, g->out,
                            p0, p1, dst))
        return;
    if (plan_gather(g, &pl)) {
        conv_gather(g, &pl, p0, p1, dst);
        return;
    }
    fill_bias(dst, p1 - p0, g->oc, g->bias);
    while (p < p1) {
        const int32_t c0 = p % ow, c1 = p1 - p < ow - c0 ? c0 + p1 - p : ow;
        conv_row(g, p / ow, c0, c1, dst + (p - p0) * g->oc);
        p += c1 - c0;
    }
    clamp_all(dst, (p1 - p0) * g->oc, g->act, g->lo, g->hi);
}

/* Checks and fills what every windowed op shares. */
static flex_status graph_op_init(graph_op *g, const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, const float *bias,
                                 size_t bias_len, const flex_window *win, int32_t act,
                                 const flex_dims4 *out_dims, float *output,
                                 size_t output_len) {
    FLEX_TRY(flex__check_io(in_dims, input, input_len, win, out_dims, output, output_len,
                            0));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_dims->c));
    FLEX_TRY(flex__f32_act_range(act, &g->lo, &g->hi));
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

/* A filter of out.c * kh * kw * per_tap floats; g->wstride = kh * kw * per_tap (the length
 * of a convolution's filter row). */
static flex_status check_filter(graph_op *g, const float *filter, size_t filter_len,
                                int32_t per_tap) {
    int32_t count;
    if (!filter)
        return FLEX_E_NULL;
    FLEX_TRY(flex__product(g->win->kernel_h * g->win->kernel_w, per_tap, &g->wstride));
    FLEX_TRY(flex__product(g->wstride, g->oc, &count));
    return flex__check_len(filter_len, count);
}

flex_status flex_f32_nhwc_conv2d(const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, size_t filter_len,
                                 const float *bias, size_t bias_len, const flex_window *win,
                                 int32_t groups, int32_t act, const flex_dims4 *out_dims,
                                 float *output, size_t output_len) {
    graph_op g;
    FLEX_TRY(graph_op_init(&g, in_dims, input, input_len, filter, bias, bias_len, win, act,
                           out_dims, output, output_len));
    if (groups < 1 || in_dims->c % groups || out_dims->c % groups)
        return FLEX_E_SHAPE;
    FLEX_TRY(check_filter(&g, filter, filter_len, in_dims->c / groups));
    g.groups = groups;
    g.gic = in_dims->c / groups;
    g.goc = out_dims->c / groups;
    g.a_rs = win->stride_w * in_dims->c;
    return by_spans(conv_span, &g, out_dims->n * out_dims->h * out_dims->w, out_dims->w, g.oc,
                    overlaps(input, input_len, output, output_len), output);
}

/* The taps [k0, k1) of a window axis that land inside the input (size n) when the window
 * starts at `start` with step `dil` (no division in the usual step of 1). */
FLEX_INLINE void inside(int32_t start, int32_t dil, int32_t taps, int32_t n, int32_t *k0,
                        int32_t *k1) {
    if (dil == 1) {
        *k0 = start < 0 ? -start : 0;
        *k1 = n - start < taps ? n - start : taps;
    } else {
        *k0 = start < 0 ? (-start + dil - 1) / dil : 0;
        *k1 = start + (taps - 1) * dil < n ? taps : (n - 1 - start) / dil + 1;
    }
    if (*k1 < *k0)
        *k1 = *k0;
}

/* The taps of one output pixel's window that lie inside the input: rows [ky0, ky1), columns
 * [kx0, kx1); corner: the input index of the window's corner (possibly outside the input). */
typedef struct {
    int32_t corner, ky0, ky1, kx0, kx1;
} dw_window;

#define DW3_TILE 8           /* output pixels of a depthwise3_span tile at most */
#define DW3_MAX_CHANNELS 128 /* the widest layer depthwise3_span takes */

/* o[c:oc] = clamp(bias + the window's taps) one channel at a time (any depth multiplier). */
FLEX_INLINE void dw_channels(const graph_op *g, const dw_window *d, int32_t c, float *o) {
    const int32_t in_w = g->in->w, ic = g->ic, oc = g->oc, mult = g->depth_multiplier;
    const int32_t kw = g->win->kernel_w, dh = g->win->dilation_h, dw = g->win->dilation_w;
    int32_t ky, kx;
    for (; c < oc; c++) {
        float acc = g->bias ? g->bias[c] : 0.0f;
        for (ky = d->ky0; ky < d->ky1; ky++)
            for (kx = d->kx0; kx < d->kx1; kx++)
                acc += g->x[d->corner + (ky * dh * in_w + kx * dw) * ic + c / mult] *
                       g->w[(ky * kw + kx) * oc + c];
        o[c] = acc < g->lo ? g->lo : (acc > g->hi ? g->hi : acc);
    }
}

#ifdef FLEX_VECTOR
/* Channels [c, c + 8 * nv) of `pixels` (1 or 2) neighbouring output pixels of one row with
 * the same window taps (the second one's window sw columns on): o[c:...] (and o[oc + c:...])
 * = clamp(bias + the window's taps), in pixels * nv (at most 8, constants once inlined)
 * vector accumulators; 4 or more hide the FMA latency, and a pair shares each weight load. */
FLEX_INLINE void dw_vectors(const graph_op *g, const dw_window *d, int32_t c, int32_t nv,
                            int32_t pixels, float *o) {
    const int32_t kw = g->win->kernel_w, oc = g->oc;
    const int32_t ystep = g->win->dilation_h * g->in->w * g->ic;
    const int32_t xstep = g->win->dilation_w * g->ic, next = g->win->stride_w * g->ic;
    const float l = g->lo, h = g->hi;
    const flex__v8 lo = {l, l, l, l, l, l, l, l}, hi = {h, h, h, h, h, h, h, h};
    flex__v8 acc[8];
    int32_t ky, kx, v, i;
    for (i = 0; i < pixels; i++)
        for (v = 0; v < nv; v++)
            acc[i * nv + v] =
                g->bias ? *(const flex__v8u *)(g->bias + c + 8 * v) : (flex__v8){0};
    for (ky = d->ky0; ky < d->ky1; ky++)
        for (kx = d->kx0; kx < d->kx1; kx++) {
            const float *xi = g->x + d->corner + ky * ystep + kx * xstep + c;
            const float *wi = g->w + (ky * kw + kx) * oc + c;
            for (v = 0; v < nv; v++) {
                const flex__v8 wv = *(const flex__v8u *)(wi + 8 * v);
                for (i = 0; i < pixels; i++)
                    acc[i * nv + v] += *(const flex__v8u *)(xi + i * next + 8 * v) * wv;
            }
        }
    for (i = 0; i < pixels * nv; i++) {
        flex__clamp8(&acc[i], &lo, &hi);
        *(flex__v8u *)(o + (i / nv) * oc + c + 8 * (i % nv)) = acc[i];
    }
}

/* 3x3 depthwise, column stride and dilation 1, depth multiplier 1: channels [c, c + 8) of
 * T (a constant once inlined) neighbouring output pixels of one row, the first at column ox.
 * The three filter taps of a kernel row stay in registers and each input column is loaded
 * once for the up to three outputs that read it. Each output adds its taps in the window's
 * order, skipping those outside the input, in straight-line code: no loop carries an
 * accumulator, so the compiler contracts every product into an FMA alike for every T, and
 * an output gets the same bits in place as out of place. */
FLEX_INLINE void dw3_tile(const graph_op *g, const dw_window *d, int32_t ox, int32_t c,
                          int32_t T, float *o) {
    const int32_t in_w = g->in->w, ic = g->ic, oc = g->oc;
    const int32_t ystep = g->win->dilation_h * in_w * ic;
    const int32_t x0 = ox - g->win->pad_left; /* the input column of the window's corner */
    const float l = g->lo, h = g->hi;
    const flex__v8 lo = {l, l, l, l, l, l, l, l}, hi = {h, h, h, h, h, h, h, h};
    flex__v8 acc[DW3_TILE], w0, w1, w2, xv;
    int32_t ky, j, t;
    for (t = 0; t < T; t++)
        acc[t] = g->bias ? *(const flex__v8u *)(g->bias + c) : (flex__v8){0};
    for (ky = 0; ky < 3; ky++) {
        const float *wr = g->w + ky * 3 * oc + c;
        const int32_t row = d->corner + ky * ystep + c; /* (ky, column x0), may lie outside */
        if (ky < d->ky0 || ky >= d->ky1)
            continue;
        w0 = *(const flex__v8u *)wr;
        w1 = *(const flex__v8u *)(wr + oc);
        w2 = *(const flex__v8u *)(wr + 2 * oc);
        for (j = 0; j < T + 2; j++) {
            if (x0 + j < 0 || x0 + j >= in_w)
                continue;
            xv = *(const flex__v8u *)(g->x + (row + j * ic));
            if (j < T)
                acc[j] += xv * w0;
            if (j >= 1 && j - 1 < T)
                acc[j - 1] += xv * w1;
            if (j >= 2)
                acc[j - 2] += xv * w2;
        }
    }
    for (t = 0; t < T; t++) {
        flex__clamp8(&acc[t], &lo, &hi);
        *(flex__v8u *)(o + t * oc + c) = acc[t];
    }
}
#endif

/* The window of output pixel (oy, ox) of image b. */
FLEX_INLINE dw_window dw_window_at(const graph_op *g, int32_t b, int32_t oy, int32_t ox) {
    const int32_t y0 = oy * g->win->stride_h - g->win->pad_top;
    const int32_t x0 = ox * g->win->stride_w - g->win->pad_left;
    dw_window d;
    d.corner = ((b * g->in->h + y0) * g->in->w + x0) * g->ic;
    inside(y0, g->win->dilation_h, g->win->kernel_h, g->in->h, &d.ky0, &d.ky1);
    inside(x0, g->win->dilation_w, g->win->kernel_w, g->in->w, &d.kx0, &d.kx1);
    return d;
}

/* Output pixel p of a span walk: image b, row oy, column ox. */
typedef struct {
    int32_t p, b, oy, ox;
} dw_cursor;

FLEX_INLINE dw_cursor dw_cursor_at(const graph_op *g, int32_t p) {
    const dw_cursor at = {p, p / g->out->w / g->out->h, p / g->out->w % g->out->h,
                          p % g->out->w};
    return at;
}

/* Moves the cursor n pixels on, within its row (n <= what is left of it). */
FLEX_INLINE void dw_cursor_step(const graph_op *g, dw_cursor *at, int32_t n) {
    at->p += n;
    at->ox += n;
    if (at->ox == g->out->w) {
        at->ox = 0;
        if (++at->oy == g->out->h) {
            at->oy = 0;
            at->b++;
        }
    }
}

/* Output pixels in pairs (an even column and the next) where the two have the same taps
 * inside the input, else one by one; a span starts at an even column (see by_spans), so a
 * pixel is paired in place as out of place, and gets the same bits whatever the compiler
 * made of the two paths. With depth multiplier 1, their channels in register blocks (2 x 32, or 64
 * for one pixel, then 8 at a time), the rest (all of them with a larger multiplier, or
 * without vector types) one at a time. Each output is stored once, with the activation. */
FLEX_CLONES
static void depthwise_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const int32_t oc = g->oc;
    dw_cursor at = dw_cursor_at(g, p0);
    int32_t c;
    while (at.p < p1) {
        const dw_window d = dw_window_at(g, at.b, at.oy, at.ox);
        dw_window e;
        float *o = dst + (at.p - p0) * oc;
        int32_t pixels = 1;
        if (!(at.ox & 1) && at.p + 1 < p1 && at.ox + 1 < g->out->w) {
            e = dw_window_at(g, at.b, at.oy, at.ox + 1);
            pixels = e.kx0 == d.kx0 && e.kx1 == d.kx1 ? 2 : 1;
        }
        c = 0;
#ifdef FLEX_VECTOR
        if (g->depth_multiplier == 1 && pixels == 2) {
            for (; c + 32 <= oc; c += 32)
                dw_vectors(g, &d, c, 4, 2, o);
            for (; c + 8 <= oc; c += 8)
                dw_vectors(g, &d, c, 1, 2, o);
        } else if (g->depth_multiplier == 1) {
            for (; c + 64 <= oc; c += 64)
                dw_vectors(g, &d, c, 8, 1, o);
            for (; c + 32 <= oc; c += 32)
                dw_vectors(g, &d, c, 4, 1, o);
            for (; c + 8 <= oc; c += 8)
                dw_vectors(g, &d, c, 1, 1, o);
        }
#endif
        dw_channels(g, &d, c, o);
        if (pixels == 2)
            dw_channels(g, &e, c, o + oc);
        dw_cursor_step(g, &at, pixels);
    }
}

#ifdef FLEX_VECTOR
/* dw3_tile over n (1 to DW3_TILE) pixels, with a constant T. */
FLEX_INLINE void dw3_pixels(const graph_op *g, const dw_window *d, int32_t ox, int32_t c,
                            int32_t n, float *o) {
    switch (n) {
    case 8: dw3_tile(g, d, ox, c, 8, o); break;
    case 7: dw3_tile(g, d, ox, c, 7, o); break;
    case 6: dw3_tile(g, d, ox, c, 6, o); break;
    case 5: dw3_tile(g, d, ox, c, 5, o); break;
    case 4: dw3_tile(g, d, ox, c, 4, o); break;
    case 3: dw3_tile(g, d, ox, c, 3, o); break;
    case 2: dw3_tile(g, d, ox, c, 2, o); break;
    default: dw3_tile(g, d, ox, c, 1, o);
    }
}

/* depthwise_span for the shapes of dw3_tile: tiles of up to DW3_TILE pixels within a row,
 * eight channels at a time, the channels beyond the last multiple of 8 one pixel at a time. */
FLEX_CLONES
static void depthwise3_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const int32_t oc = g->oc, ow = g->out->w, tail = oc / 8 * 8;
    dw_cursor at = dw_cursor_at(g, p0);
    int32_t i, n, c;
    while (at.p < p1) {
        const dw_window d = dw_window_at(g, at.b, at.oy, at.ox);
        float *o = dst + (at.p - p0) * oc;
        n = ow - at.ox < p1 - at.p ? ow - at.ox : p1 - at.p;
        if (n > DW3_TILE)
            n = DW3_TILE;
        for (c = 0; c < tail; c += 8)
            dw3_pixels(g, &d, at.ox, c, n, o);
        for (i = 0; tail < oc && i < n; i++) {
            const dw_window e = dw_window_at(g, at.b, at.oy, at.ox + i);
            dw_channels(g, &e, tail, o + i * oc);
        }
        dw_cursor_step(g, &at, n);
    }
}
#endif

/* The span function of a depthwise convolution: depthwise3_span for 3x3 windows with
 * column stride and dilation 1, depth multiplier 1 and at most DW3_MAX_CHANNELS channels
 * (wider layers ran faster pixel by pixel), else depthwise_span. */
static span_fn depthwise_kernel(const flex_window *win, int32_t depth_multiplier,
                                int32_t channels) {
#ifdef FLEX_VECTOR
    if (depth_multiplier == 1 && win->kernel_h == 3 && win->kernel_w == 3 &&
        win->stride_w == 1 && win->dilation_w == 1 && channels <= DW3_MAX_CHANNELS)
        return depthwise3_span;
#else
    (void)win, (void)depth_multiplier, (void)channels;
#endif
    return depthwise_span;
}

flex_status flex_f32_nhwc_depthwise_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_window *win,
                                           int32_t depth_multiplier, int32_t act,
                                           const flex_dims4 *out_dims, float *output,
                                           size_t output_len) {
    graph_op g;
    FLEX_TRY(graph_op_init(&g, in_dims, input, input_len, filter, bias, bias_len, win, act,
                           out_dims, output, output_len));
    if (depth_multiplier < 1 || out_dims->c % depth_multiplier ||
        out_dims->c / depth_multiplier != in_dims->c)
        return FLEX_E_SHAPE;
    FLEX_TRY(check_filter(&g, filter, filter_len, 1));
    g.depth_multiplier = depth_multiplier;
    return by_spans(depthwise_kernel(win, depth_multiplier, g.oc), &g,
                    out_dims->n * out_dims->h * out_dims->w, out_dims->w,
                    g.oc, overlaps(input, input_len, output, output_len), output);
}

/* A fully connected layer is a 1x1 convolution over a row of `batches` pixels. */
flex_status flex_f32_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const float *input,
                                     size_t input_len, const float *filter, size_t filter_len,
                                     const float *bias, size_t bias_len, int32_t act,
                                     float *output, size_t output_len) {
    const flex_window win = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
    flex_dims4 in, out;
    FLEX_TRY(flex__check_fc(batches, in_features, out_features, input, input_len, filter,
                            filter_len, output, output_len));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_features));
    in.n = out.n = 1;
    in.h = out.h = 1;
    in.w = out.w = batches;
    in.c = in_features;
    out.c = out_features;
    return flex_f32_nhwc_conv2d(&in, input, input_len, filter, filter_len, bias, bias_len, &win,
                                1, act, &out, output, output_len);
}

/* Average (over the in-bounds cells) or max of each pixel's window: the first cell copied,
 * then one pass over the channels per further cell. */
FLEX_CLONES
static void pool_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const graph_op *g = (const graph_op *)ctx;
    const flex_window *win = g->win;
    const int32_t ch = g->oc, in_h = g->in->h, in_w = g->in->w;
    int32_t p, fy, fx, c;
    for (p = p0; p < p1; p++) {
        const int32_t ox = p % g->out->w, row = p / g->out->w;
        const int32_t oy = row % g->out->h, b = row / g->out->h;
        const int32_t y0 = oy * win->stride_h - win->pad_top;
        const int32_t x0 = ox * win->stride_w - win->pad_left;
        const int32_t fy0 = y0 < 0 ? -y0 : 0, fx0 = x0 < 0 ? -x0 : 0;
        const int32_t fy1 = in_h - y0 < win->kernel_h ? in_h - y0 : win->kernel_h;
        const int32_t fx1 = in_w - x0 < win->kernel_w ? in_w - x0 : win->kernel_w;
        const int32_t corner = ((b * in_h + y0) * in_w + x0) * ch; /* may lie outside */
        float *o = dst + (p - p0) * ch;
        if (fy0 >= fy1 || fx0 >= fx1) { /* a window in the padding only */
            for (c = 0; c < ch; c++)
                o[c] = 0.0f;
        } else {
            for (c = 0; c < ch; c++)
                o[c] = g->x[corner + (fy0 * in_w + fx0) * ch + c];
            for (fy = fy0; fy < fy1; fy++)
                for (fx = fy == fy0 ? fx0 + 1 : fx0; fx < fx1; fx++) {
                    const float *xi = g->x + corner + (fy * in_w + fx) * ch;
                    if (g->is_max)
                        for (c = 0; c < ch; c++)
                            o[c] = xi[c] > o[c] ? xi[c] : o[c];
                    else
                        for (c = 0; c < ch; c++)
                            o[c] += xi[c];
                }
            if (!g->is_max)
                for (c = 0; c < ch; c++)
                    o[c] /= (float)((fy1 - fy0) * (fx1 - fx0));
        }
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
    return by_spans(pool_span, &g, out_dims->n * out_dims->h * out_dims->w, out_dims->w, g.oc,
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
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
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
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
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

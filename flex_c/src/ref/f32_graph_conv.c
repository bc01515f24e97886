/* float32 convolutions and fully connected layers of the exported graph (NHWC, OHWI
 * filters). A convolution with three filter columns and column stride 1 runs as Winograd
 * F(4, 3) along its rows where that applies (f32_winograd.c). Other convolutions and fully
 * connected layers are GEMMs with the output pixels as rows and the filter as B (packed once
 * per call): each row reads its window in place (flex__gemm_gather), from the image or from
 * a zero-padded copy of a band of its rows, so nothing like im2col is stored; the bias and
 * the activation are applied as the GEMM stores its tiles. */
#include "f32_graph.h"

/* y[pixels, channels] = bias (or 0) on every pixel. */
static void fill_bias(float *y, int32_t pixels, int32_t channels, const float *bias) {
    int32_t p, c;
    for (p = 0; p < pixels; p++, y += channels)
        for (c = 0; c < channels; c++)
            y[c] = bias ? bias[c] : 0.0f;
}

/* Stack scratch, in floats: the band of zero-padded input rows of a convolution
 * (conv_gather) and its packed filter block, of at most KB_MAX taps (a 16-column panel of
 * 256 taps stays in L1 on hosts). */
#define PACK_MAX (FLEX_GEMM_KB * FLEX_GEMM_NB)
#if defined(__x86_64__) || defined(__aarch64__)
#define BAND_MAX 16384
#define KB_MAX 256
#else
#define BAND_MAX 256
#define KB_MAX (PACK_MAX / FLEX_GEMM_NR)
#endif

/* One GEMM: y[0:hi-lo, the group's channels] += the input rows of output columns [lo, hi)
 * (x_off: the input index that column 0 reads, which may lie before the row; row stride
 * a_rs) @ filter taps [tap0, tap0 + k) of the group's output channels. */
static void gemm_piece(const flex__graph_op *g, int32_t group, int32_t x_off, float *y, int32_t lo,
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
static void conv_row(const flex__graph_op *g, int32_t row, int32_t c0, int32_t c1, float *y) {
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
static int plan_gather(const flex__graph_op *g, gather_plan *pl) {
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
static int32_t window_segments(const flex__graph_op *g, const gather_plan *pl, int32_t k0,
                               int32_t k1, int32_t *off, int32_t *len) {
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
static void fill_band(const flex__graph_op *g, const gather_plan *pl, int32_t b, int32_t iy0,
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
static void conv_gather(const flex__graph_op *g, const gather_plan *pl, int32_t p0, int32_t p1,
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

/* Whether conv_span writes the output pixels in increasing order, each tile of them only
 * after reading all of its inputs: conv_gather with one block of taps and of output
 * channels, whose GEMM takes every channel of a tile at once (flex__gemm_gather_whole).
 * Then an output laid over the input as the .bst arena plans it needs no scratch (a band
 * of padded rows, too, is read only once the pixels before it are written, and the arena
 * keeps the rows it reads). Not where Winograd may run: its spans must start at a tile. */
static int in_order(const flex__graph_op *g) {
    const flex_window *w = g->win;
    gather_plan pl;
    if (w->kernel_w == 3 && w->stride_w == 1 && w->dilation_w == 1)
        return 0;
    return g->groups == 1 && g->wstride <= KB_MAX && flex__gemm_gather_whole(g->oc) &&
           plan_gather(g, &pl); /* (64 channels of KB_MAX taps fit one packed block) */
}

/* Winograd where it applies, else windows read in place when a band fits, else one GEMM
 * per tap and output row segment. */
static void conv_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const flex__graph_op *g = (const flex__graph_op *)ctx;
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
    flex__clamp_all(dst, (p1 - p0) * g->oc, g->act, g->lo, g->hi);
}

flex_status flex_f32_nhwc_conv2d(const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, size_t filter_len,
                                 const float *bias, size_t bias_len, const flex_window *win,
                                 int32_t groups, int32_t act, const flex_dims4 *out_dims,
                                 float *output, size_t output_len) {
    flex__graph_op g;
    FLEX_TRY(flex__graph_op_init(&g, in_dims, input, input_len, filter, bias, bias_len, win,
                                 act, out_dims, output, output_len));
    if (groups < 1 || in_dims->c % groups || out_dims->c % groups)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__graph_check_filter(&g, filter, filter_len, in_dims->c / groups));
    g.groups = groups;
    g.gic = in_dims->c / groups;
    g.goc = out_dims->c / groups;
    g.a_rs = win->stride_w * in_dims->c;
    return flex__by_spans(conv_span, &g, out_dims->n * out_dims->h * out_dims->w, out_dims->w, g.oc,
                          flex__graph_overlaps(input, input_len, output, output_len) &&
                              !in_order(&g),
                          output);
}

#if !defined(__x86_64__) && !defined(__aarch64__)
/* On a microcontroller a fully connected layer is one dot product per output, summed in
 * TFLM's order: the GEMM engine's packing and tiles cost more than they save without
 * SIMD. Output rows (batches) are spans of flex__by_spans, which handles an output over
 * its input. */
#define FC_DOTS 1

typedef struct {
    const float *x, *w, *bias;
    int32_t in_features, out_features;
    float lo, hi;
} fc_dots;

static void fc_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const fc_dots *f = (const fc_dots *)ctx;
    const int32_t zero = 0;
    const float none = 0.0f;
    /* each output: the sum, then its bias (or 0) added */
    const flex__fruns row = {1, 1, 1, &zero, &zero, &f->in_features, f->bias ? f->bias : &none};
    int32_t b, o;
    for (b = p0; b < p1; b++, dst += f->out_features) {
        flex__fdots(0.0f, f->x + b * f->in_features, f->w, f->in_features, &row,
                    f->bias ? 1 : 0, f->out_features, dst);
        for (o = 0; o < f->out_features; o++)
            dst[o] = flex__clampf(dst[o], f->lo, f->hi);
    }
}
#endif

/* A fully connected layer is a 1x1 convolution over a row of `batches` pixels (on a
 * microcontroller, dot products: FC_DOTS). */
flex_status flex_f32_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const float *input,
                                     size_t input_len, const float *filter, size_t filter_len,
                                     const float *bias, size_t bias_len, int32_t act,
                                     float *output, size_t output_len) {
#ifdef FC_DOTS
    fc_dots f;
#else
    const flex_window win = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
    flex_dims4 in, out;
#endif
    FLEX_TRY(flex__check_fc(batches, in_features, out_features, input, input_len, filter,
                            filter_len, output, output_len));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_features));
#ifdef FC_DOTS
    f.x = input;
    f.w = filter;
    f.bias = bias;
    f.in_features = in_features;
    f.out_features = out_features;
    FLEX_TRY(flex__f32_act_range(act, &f.lo, &f.hi));
    return flex__by_spans(fc_span, &f, batches, batches, out_features,
                          flex__graph_overlaps(input, input_len, output, output_len), output);
#else
    in.n = out.n = 1;
    in.h = out.h = 1;
    in.w = out.w = batches;
    in.c = in_features;
    out.c = out_features;
    return flex_f32_nhwc_conv2d(&in, input, input_len, filter, filter_len, bias, bias_len, &win,
                                1, act, &out, output, output_len);
#endif
}

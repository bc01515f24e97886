/* float32 depthwise convolutions of the exported graph (NHWC, filter [1, kh, kw, out.c]):
 * they walk the channels of each pixel (contiguous in NHWC); a 3x3 depthwise convolution
 * with column stride 1 walks tiles of pixels along a row instead. */
#include "f32_graph.h"

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

#define DW_ROWS 8 /* window rows of one flex__fdot call */

/* o[c:oc] = clamp(bias + the window's taps) one channel at a time (any depth multiplier): a
 * dot product over the window's rows inside the input, DW_ROWS of them a call (their runs
 * made once for all channels where the window has no more). */
FLEX_INLINE void dw_channels(const flex__graph_op *g, const dw_window *d, int32_t c, float *o) {
    const int32_t in_w = g->in->w, ic = g->ic, oc = g->oc, mult = g->depth_multiplier;
    const int32_t kw = g->win->kernel_w, dh = g->win->dilation_h, dw = g->win->dilation_w;
    int32_t xoff[DW_ROWS], woff[DW_ROWS], len[DW_ROWS];
    flex__fruns rows = {0, 0, 0, xoff, woff, len, 0};
    int32_t ky, next, made = -1; /* made: the first row of the runs in `rows` */
    rows.xs = dw * ic;
    rows.ws = oc;
    for (; c < oc; c++) {
        float acc = g->bias ? g->bias[c] : 0.0f;
        for (ky = d->ky0; ky < d->ky1; ky = next) {
            next = d->ky1 - ky < DW_ROWS ? d->ky1 : ky + DW_ROWS;
            for (rows.runs = 0; made != ky && rows.runs < next - ky; rows.runs++) {
                xoff[rows.runs] = d->corner + ((ky + rows.runs) * dh * in_w + d->kx0 * dw) * ic;
                woff[rows.runs] = ((ky + rows.runs) * kw + d->kx0) * oc;
                len[rows.runs] = d->kx1 - d->kx0;
            }
            rows.runs = next - ky;
            made = ky;
            acc = flex__fdot(acc, g->x + c / mult, g->w + c, &rows);
        }
        o[c] = flex__clampf(acc, g->lo, g->hi);
    }
}

#ifdef FLEX_VECTOR
/* Channels [c, c + 8 * nv) of `pixels` (1 or 2) neighbouring output pixels of one row with
 * the same window taps (the second one's window sw columns on): o[c:...] (and o[oc + c:...])
 * = clamp(bias + the window's taps), in pixels * nv (at most 8, constants once inlined)
 * vector accumulators; 4 or more hide the FMA latency, and a pair shares each weight load. */
FLEX_INLINE void dw_vectors(const flex__graph_op *g, const dw_window *d, int32_t c, int32_t nv,
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

/* 3x3 depthwise, column stride and dilation 1, depth multiplier 1: the channel block at c
 * (8 floats, or 16 in an AVX-512 function) of T (a constant once inlined)
 * neighbouring output pixels of one row, the first at column ox. The three filter taps of a
 * kernel row stay in registers and each input column is loaded once for the up to three
 * outputs that read it. Each output adds its taps in the window's order, skipping those
 * outside the input, in straight-line code: no loop carries an accumulator, so the compiler
 * contracts every product into an FMA alike for every T and either width, and an output
 * gets the same bits in place as out of place. CLAMP(v) clamps *v to [g->lo, g->hi]. */
#define DW3_TILE_BODY(VEC, VECU, CLAMP)                                                    \
    const int32_t in_w = g->in->w, ic = g->ic, oc = g->oc;                                 \
    const int32_t ystep = g->win->dilation_h * in_w * ic;                                  \
    const int32_t x0 = ox - g->win->pad_left; /* the input column of the window's corner */ \
    VEC acc[DW3_TILE], w0, w1, w2, xv;                                                     \
    int32_t ky, j, t;                                                                      \
    for (t = 0; t < T; t++)                                                                \
        acc[t] = g->bias ? *(const VECU *)(g->bias + c) : (VEC){0};                        \
    for (ky = 0; ky < 3; ky++) {                                                           \
        const float *wr = g->w + ky * 3 * oc + c;                                          \
        const int32_t row = d->corner + ky * ystep + c; /* (ky, x0), may lie outside */    \
        if (ky < d->ky0 || ky >= d->ky1)                                                   \
            continue;                                                                      \
        w0 = *(const VECU *)wr;                                                            \
        w1 = *(const VECU *)(wr + oc);                                                     \
        w2 = *(const VECU *)(wr + 2 * oc);                                                 \
        for (j = 0; j < T + 2; j++) {                                                      \
            if (x0 + j < 0 || x0 + j >= in_w)                                              \
                continue;                                                                  \
            xv = *(const VECU *)(g->x + (row + j * ic));                                   \
            if (j < T)                                                                     \
                acc[j] += xv * w0;                                                         \
            if (j >= 1 && j - 1 < T)                                                       \
                acc[j - 1] += xv * w1;                                                     \
            if (j >= 2)                                                                    \
                acc[j - 2] += xv * w2;                                                     \
        }                                                                                  \
    }                                                                                      \
    for (t = 0; t < T; t++) {                                                              \
        CLAMP(&acc[t]);                                                                    \
        *(VECU *)(o + t * oc + c) = acc[t];                                                \
    }

#define CLAMP8(v) flex__clamp8(v, &lo, &hi)

FLEX_INLINE void dw3_tile(const flex__graph_op *g, const dw_window *d, int32_t ox, int32_t c,
                          int32_t T, float *o) {
    const float l = g->lo, h = g->hi;
    const flex__v8 lo = {l, l, l, l, l, l, l, l}, hi = {h, h, h, h, h, h, h, h};
    DW3_TILE_BODY(flex__v8, flex__v8u, CLAMP8)
}

#ifdef FLEX_WIDE
#define DW3_WIDE 1
#include <immintrin.h>
/* max(lo, v), then min(hi, v): flex__clampf's answers, NaN kept (vmaxps and vminps return
 * their second operand when either one is NaN). */
#define CLAMP16(v) (*(v) = (flex__v16)_mm512_min_ps(hi, _mm512_max_ps(lo, (__m512)*(v))))

FLEX_INLINE FLEX_WIDE void dw3_tile16(const flex__graph_op *g, const dw_window *d, int32_t ox,
                                      int32_t c, int32_t T, float *o) {
    const __m512 lo = _mm512_set1_ps(g->lo), hi = _mm512_set1_ps(g->hi);
    DW3_TILE_BODY(flex__v16, flex__v16u, CLAMP16)
}
#endif
#endif

/* The window of output pixel (oy, ox) of image b. */
FLEX_INLINE dw_window dw_window_at(const flex__graph_op *g, int32_t b, int32_t oy, int32_t ox) {
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

FLEX_INLINE dw_cursor dw_cursor_at(const flex__graph_op *g, int32_t p) {
    const dw_cursor at = {p, p / g->out->w / g->out->h, p / g->out->w % g->out->h,
                          p % g->out->w};
    return at;
}

/* Moves the cursor n pixels on, within its row (n <= what is left of it). */
FLEX_INLINE void dw_cursor_step(const flex__graph_op *g, dw_cursor *at, int32_t n) {
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
 * inside the input, else one by one; a span starts at an even column (see flex__by_spans), so a
 * pixel is paired in place as out of place, and gets the same bits whatever the compiler
 * made of the two paths. With depth multiplier 1, their channels in register blocks (2 x 32, or 64
 * for one pixel, then 8 at a time), the rest (all of them with a larger multiplier, or
 * without vector types) one at a time. Each output is stored once, with the activation. */
FLEX_CLONES
static void depthwise_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const flex__graph_op *g = (const flex__graph_op *)ctx;
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
/* TILE (dw3_tile or dw3_tile16) over n (1 to DW3_TILE) pixels, with a constant T. */
#define DW3_PIXELS(TILE)                     \
    switch (n) {                             \
    case 8: TILE(g, d, ox, c, 8, o); break;  \
    case 7: TILE(g, d, ox, c, 7, o); break;  \
    case 6: TILE(g, d, ox, c, 6, o); break;  \
    case 5: TILE(g, d, ox, c, 5, o); break;  \
    case 4: TILE(g, d, ox, c, 4, o); break;  \
    case 3: TILE(g, d, ox, c, 3, o); break;  \
    case 2: TILE(g, d, ox, c, 2, o); break;  \
    default: TILE(g, d, ox, c, 1, o);        \
    }

FLEX_INLINE void dw3_pixels(const flex__graph_op *g, const dw_window *d, int32_t ox, int32_t c,
                            int32_t n, float *o) {
    DW3_PIXELS(dw3_tile)
}

#ifdef DW3_WIDE
/* Channels [0, c1) (c1 a multiple of 16) of n pixels (dw3_tile16). */
FLEX_WIDE
static void dw3_blocks16(const flex__graph_op *g, const dw_window *d, int32_t ox, int32_t c1,
                         int32_t n, float *o) {
    int32_t c;
    for (c = 0; c < c1; c += 16)
        DW3_PIXELS(dw3_tile16)
}
#endif

/* depthwise_span for the shapes of dw3_tile: tiles of up to DW3_TILE pixels within a row,
 * 16 channels at a time on AVX-512 hosts (flex__wide), then eight, the channels beyond the
 * last multiple of 8 one pixel at a time. With g->buffered (the output over the input)
 * each tile goes through a buffer, so that its pixels are written only after every input
 * of the tile is read. */
FLEX_CLONES
static void depthwise3_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    FLEX_ALIGNED float buf[DW3_TILE * DW3_MAX_CHANNELS];
    const flex__graph_op *g = (const flex__graph_op *)ctx;
    const int32_t oc = g->oc, ow = g->out->w, tail = oc / 8 * 8;
#ifdef DW3_WIDE
    const int wide = flex__wide();
#endif
    dw_cursor at = dw_cursor_at(g, p0);
    int32_t i, n, c;
    while (at.p < p1) {
        const dw_window d = dw_window_at(g, at.b, at.oy, at.ox);
        float *out = dst + (at.p - p0) * oc, *o = g->buffered ? buf : out;
        n = ow - at.ox < p1 - at.p ? ow - at.ox : p1 - at.p;
        if (n > DW3_TILE)
            n = DW3_TILE;
        c = 0;
#ifdef DW3_WIDE
        if (wide && tail >= 16) {
            c = tail / 16 * 16;
            dw3_blocks16(g, &d, at.ox, c, n, o);
        }
#endif
        for (; c < tail; c += 8)
            dw3_pixels(g, &d, at.ox, c, n, o);
        for (i = 0; tail < oc && i < n; i++) {
            const dw_window e = dw_window_at(g, at.b, at.oy, at.ox + i);
            dw_channels(g, &e, tail, o + i * oc);
        }
        for (i = 0; o == buf && i < n * oc; i++)
            out[i] = buf[i];
        dw_cursor_step(g, &at, n);
    }
}
#endif

/* The span function of a depthwise convolution: depthwise3_span for 3x3 windows with
 * column stride and dilation 1, depth multiplier 1 and at most DW3_MAX_CHANNELS channels
 * (wider layers ran faster pixel by pixel), else depthwise_span. */
static flex__span_fn depthwise_kernel(const flex_window *win, int32_t depth_multiplier,
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
    flex__graph_op g;
    flex__span_fn span;
    int in_place;
    FLEX_TRY(flex__graph_op_init(&g, in_dims, input, input_len, filter, bias, bias_len, win,
                                 act, out_dims, output, output_len));
    if (depth_multiplier < 1 || out_dims->c % depth_multiplier ||
        out_dims->c / depth_multiplier != in_dims->c)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__graph_check_filter(&g, filter, filter_len, 1));
    g.depth_multiplier = depth_multiplier;
    span = depthwise_kernel(win, depth_multiplier, g.oc);
    in_place = flex__graph_overlaps(input, input_len, output, output_len);
#ifdef FLEX_VECTOR
    g.buffered = in_place && span == depthwise3_span; /* then it needs no scratch */
#endif
    return flex__by_spans(span, &g, out_dims->n * out_dims->h * out_dims->w, out_dims->w, g.oc,
                          in_place && !g.buffered, output);
}

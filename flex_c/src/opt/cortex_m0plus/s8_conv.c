/* Cortex-M0+ int8 convolution: per output pixel the receptive field is gathered once into a
 * contiguous patch (padding filled with the input zero point, which adds nothing, exactly as
 * TFLM skipping it; a window that is one contiguous run of the input is used in place), then
 * flex__m0_dot_rows runs every output channel of a block over it and m0_requant.h turns the
 * sums into int8. The input offset enters once per channel as input_offset * sum(weights),
 * folded with the bias. 3x3 depthwise convolution runs channel by channel over a tile
 * (depthwise_3x3), other depthwise shapes walk channels innermost (m0_dw_channels.c).
 * Grouped convolution and patches too large for the stack buffer use the reference kernels
 * (ref/ref.h). An output over its input (the .bst arena's in-place plan) runs in spans of
 * pixels, since the channel blocks each read every input pixel (flex_s8_conv2d). Stack:
 * about 3 KB for conv2d (a 2.2 KB scratch, requantization records), 2.3 KB for the 3x3
 * depthwise (tile and line sums). */
#include "../../ref/ref.h"
#include "m0_depthwise.h"
#include "m0_dot.h"
#include "m0_dw_channels.h"
#include "m0_pairs.h"
#include "m0_requant.h"

#define PATCH_MAX 1152   /* 3 x 3 x 128: longest patch of the fast paths */
#define OC_BLOCK 16      /* output channels per block (requantization records) */
#define PAIR_K_MAX 128   /* longest patch the paired dot products take */
#define PAIR_MIN_ROWS 8  /* fewest rows a paired block may have (unless it holds all) */
#define SCRATCH_WORDS 560 /* 2.2 KB: band or patch, packed rows and patches, or a span */
#define BAND_MAX 768     /* bytes of the padded band of input rows */
#define SPAN_ROWS 8      /* in place, paired: filter rows packed at a time */
#define SPAN_MIN 4       /* in place, paired: fewest pixels a span may hold */

typedef int32_t word_t __attribute__((may_alias));
typedef uint16_t half_t __attribute__((may_alias));

/* dst[0:n] = src[0:n], a word at a time when both are word-aligned. */
static void copy_run(int8_t *dst, const int8_t *src, int32_t n) {
    if ((((uintptr_t)dst | (uintptr_t)src) & 3) == 0) {
        for (; n >= 4; n -= 4, dst += 4, src += 4)
            *(word_t *)dst = *(const word_t *)src;
    }
    while (n-- > 0)
        *dst++ = *src++;
}

static void fill_run(int8_t *dst, int8_t value, int32_t n) {
    while (n-- > 0)
        *dst++ = value;
}

/* kernel_h rows of `width` pixels into dst: input columns x0 .. x0 + width - 1 of input rows
 * y0 + ky * dilation_h of `image`, with `fill` outside it. */
static void padded_rows(const flex_dims4 *in, const int8_t *image, const flex_window *win,
                        int32_t y0, int32_t x0, int32_t width, int8_t fill, int8_t *dst) {
    const int32_t C = in->c, in_w = in->w, row = width * C;
    const int32_t left = x0 >= 0 ? 0 : (-x0 < width ? -x0 : width);
    const int32_t end = x0 + width <= in_w ? width : (in_w - x0 > left ? in_w - x0 : left);
    int32_t ky, iy;
    for (ky = 0; ky < win->kernel_h; ky++, dst += row) {
        iy = y0 + ky * win->dilation_h;
        if (iy < 0 || iy >= in->h) {
            fill_run(dst, fill, row);
            continue;
        }
        fill_run(dst, fill, left * C);
        copy_run(dst + left * C, image + (iy * in_w + x0 + left) * C, (end - left) * C);
        fill_run(dst + end * C, fill, row - end * C);
    }
}

/* Gather the window of output pixel (b, oy, ox); returns the patch start (the input itself
 * when the window is one contiguous run of it). */
static const int8_t *gather(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                            int32_t b, int32_t oy, int32_t ox, int8_t fill, int8_t *patch) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    const int32_t x0 = ox * win->stride_w - win->pad_left;
    const int32_t C = in->c;
    const int8_t *image = input + b * in->h * in->w * C;
    int32_t ky, kx;
    int8_t *dst = patch;
    if (win->kernel_h == 1 && x0 >= 0 && x0 + win->kernel_w <= in->w && y0 >= 0 &&
        y0 < in->h && (win->kernel_w == 1 || win->dilation_w == 1))
        return image + (y0 * in->w + x0) * C;
    if (win->dilation_w == 1) { /* each window row one run of the input, padded at its ends */
        padded_rows(in, image, win, y0, x0, win->kernel_w, fill, patch);
        return patch;
    }
    for (ky = 0; ky < win->kernel_h; ky++, dst += win->kernel_w * C) {
        const int32_t iy = y0 + ky * win->dilation_h;
        const int8_t *src = image + iy * in->w * C;
        for (kx = 0; kx < win->kernel_w; kx++) {
            const int32_t ix = x0 + kx * win->dilation_w;
            if (iy < 0 || iy >= in->h || ix < 0 || ix >= in->w)
                fill_run(dst + kx * C, fill, C);
            else
                copy_run(dst + kx * C, src + ix * C, C);
        }
    }
    return patch;
}

/* Packs (m0_pairs.h) the patch whose rows of `row` elements (even) start at `x`, `stride`
 * apart, into the `words` words of xp. */
FLEX_HOT
static void pack_band_patch(const int8_t *x, int32_t rows, int32_t row, int32_t stride,
                            int32_t words, int32_t *xp) {
    int32_t r, t, j = 0;
    if (row % 4 == 0) {
        for (r = 0; r < rows; r++, x += stride, j += row / 2)
            flex__m0_pack4(x, xp + j, row);
    } else {
        for (r = 0; r < rows; r++, x += stride)
            for (t = 0; t < row; t += 2)
                xp[j++] = (int32_t)((uint32_t)x[t + 1] + ((uint32_t)x[t] << 16));
    }
    for (; j < words; j++)
        xp[j] = 0;
}

/* What the per-pixel loops share: the geometry, and where patches come from. */
typedef struct {
    const flex_dims4 *in, *out;
    const int8_t *input;
    const flex_window *win;
    const flex_s8_quant *q;
    int32_t k, words, width; /* patch elements, packed words; band width in pixels */
    int banded;              /* patches packed from a padded band of input rows */
    int8_t *band;            /* that band, or the gather patch */
} conv_geom;

/* Raster position (b, oy, ox) of output pixel p. */
typedef struct {
    int32_t b, oy, ox;
} pixel_at;

static pixel_at locate(const flex_dims4 *out, int32_t p) {
    pixel_at a;
    a.b = p / (out->h * out->w);
    a.oy = p / out->w % out->h;
    a.ox = p % out->w;
    return a;
}

static void advance(const flex_dims4 *out, pixel_at *a) {
    if (++a->ox == out->w) {
        a->ox = 0;
        if (++a->oy == out->h) {
            a->oy = 0;
            a->b++;
        }
    }
}

/* Packs the patch of output pixel a into xp (g->words words). A banded geometry rebuilds its
 * band at the start of each output row and wherever `fresh` says the band is stale. */
static void pack_patch(const conv_geom *g, pixel_at a, int fresh, int32_t *xp) {
    const flex_window *win = g->win;
    const int32_t C = g->in->c;
    const int8_t fill = (int8_t)(-g->q->input_offset);
    if (!g->banded) {
        flex__m0_pack_x(gather(g->in, g->input, win, a.b, a.oy, a.ox, fill, g->band), g->k,
                        xp);
        return;
    }
    if (fresh || a.ox == 0) /* the window rows under this output row, padded */
        padded_rows(g->in, g->input + a.b * g->in->h * g->in->w * C, win,
                    a.oy * win->stride_h - win->pad_top, -win->pad_left, g->width, fill,
                    g->band);
    pack_band_patch(g->band + a.ox * win->stride_w * C, win->kernel_h, win->kernel_w * C,
                    g->width * C, g->words, xp);
}

/* Every output pixel's channels [oc0, oc0 + nb) (nb <= OC_BLOCK) through the paired dot
 * products, the filter block packed in wp; pixel p's channels go to
 * output + p * out->c + oc0. Each patch is packed into xp once for the block. */
static void conv_pairs(const conv_geom *g, const flex__m0_rq *rq, int all_fast,
                       const int32_t *wp, int32_t nb, int32_t *xp, int32_t *acc,
                       int8_t *output) {
    const int32_t units = g->out->n * g->out->h * g->out->w;
    int32_t p;
    pixel_at a = {0, 0, 0};
    for (p = 0; p < units; p++, output += g->out->c, advance(g->out, &a)) {
        pack_patch(g, a, p == 0, xp);
        flex__m0_pair_dot(xp, wp, g->words, acc, (nb + 3) >> 2);
        flex__m0_requant_block(acc, rq, nb, all_fast, output, g->q);
    }
}

/* Output pixels [p0, p1) and channels [oc0, oc0 + nb) through flex__m0_dot_rows over the
 * unpacked filter block w_block (k per row); pixel p's channels go to
 * dst + (p - p0) * out->c. */
static void conv_dots(const conv_geom *g, const flex__m0_rq *rq, int all_fast,
                      const int8_t *w_block, int32_t nb, int32_t p0, int32_t p1, int32_t *acc,
                      int8_t *dst) {
    const int8_t fill = (int8_t)(-g->q->input_offset);
    const int32_t k = g->k;
    int32_t p;
    pixel_at a = locate(g->out, p0);
    for (p = p0; p < p1; p++, dst += g->out->c, advance(g->out, &a)) {
        const int8_t *x = gather(g->in, g->input, g->win, a.b, a.oy, a.ox, fill, g->band);
        flex__m0_dot_rows(x + k, w_block + k, k, nb, acc);
        flex__m0_requant_block(acc, rq, nb, all_fast, dst, g->q);
    }
}

/* The per-channel arguments of flex_s8_conv2d. */
typedef struct {
    const int8_t *filter;
    const int32_t *bias, *multiplier, *shift;
} conv_channels;

/* Requantization records of channels [oc0, oc0 + nb) (row sums given, or taken from the
 * filter when sums is NULL); returns whether all take the fast form. */
static int block_rq(const conv_geom *g, const conv_channels *ch, int32_t oc0, int32_t nb,
                    const int32_t *sums, flex__m0_rq *rq) {
    return flex__m0_rq_block(rq, nb, ch->filter + oc0 * g->k, g->k, sums,
                             ch->bias ? ch->bias + oc0 : 0, ch->multiplier + oc0,
                             ch->shift + oc0, 1, g->q);
}

/* The paired path with the output over its input: spans of `span` pixels have their patches
 * packed into xs first, then every filter block (rows of `block`, packed into wp again per
 * span) runs over them and writes its channels in place. Once a span's patches are packed,
 * its pixels' outputs overwrite only inputs that no later pixel reads (the arena's plan). */
static void conv_pairs_spans(const conv_geom *g, const conv_channels *ch, int32_t *xs,
                             int32_t span, int32_t *wp, int32_t block, flex__m0_rq *rq,
                             int32_t *acc, int8_t *output) {
    const int32_t OC = g->out->c, units = g->out->n * g->out->h * g->out->w;
    int32_t p0, p1, p, oc0, nb;
    int all_fast;
    pixel_at a = {0, 0, 0};
    for (p0 = 0; p0 < units; p0 = p1) {
        p1 = units - p0 < span ? units : p0 + span;
        for (p = p0; p < p1; p++, advance(g->out, &a))
            pack_patch(g, a, p == p0, xs + (p - p0) * g->words);
        for (oc0 = 0; oc0 < OC; oc0 += nb) {
            nb = OC - oc0 < block ? OC - oc0 : block;
            flex__m0_pack_rows(ch->filter + oc0 * g->k, g->k, nb, wp, acc); /* row sums */
            all_fast = block_rq(g, ch, oc0, nb, acc, rq);
            for (p = p0; p < p1; p++) {
                flex__m0_pair_dot(xs + (p - p0) * g->words, wp, g->words, acc, (nb + 3) >> 2);
                flex__m0_requant_block(acc, rq, nb, all_fast, output + p * OC + oc0, g->q);
            }
        }
    }
}

/* Output channels run in blocks of OC_BLOCK or fewer. Patches of up to PAIR_K_MAX elements
 * use the paired dot products unless a weight is -128: out of place each filter block is
 * packed once and runs over every pixel; with the output over its input (an in-place
 * arena) a block would overwrite inputs that the next block still reads, so the pixels go
 * in spans (conv_pairs_spans). Other patches take the byte dot products, in place over
 * spans of pixels whose every channel is computed in the scratch first and copied out once
 * complete, in increasing order (docs/bst-format.md). All buffers share one 2 KB scratch. */
flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int32_t scratch[SCRATCH_WORDS];
    const conv_channels ch = {filter, bias, multiplier, shift};
    conv_geom g;
    flex__m0_rq rq[OC_BLOCK];
    int32_t acc[OC_BLOCK]; /* sums, then each pixel's dot products */
    int32_t k, oc0, nb, block, units, span, p0, p1, OC, patch_words, rows;
    int all_fast, overlap;
    int8_t *dst = output;
    FLEX_TRY(flex__s8_conv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                                 multiplier, shift, quant_len, win, groups, q, out_dims, output,
                                 output_len));
    k = win->kernel_h * win->kernel_w * in_dims->c;
    OC = out_dims->c;
    units = out_dims->n * out_dims->h * out_dims->w;
    if (groups != 1 || k > PATCH_MAX)
        return flex__ref_s8_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                   bias_len, multiplier, shift, quant_len, win, groups, q,
                                   out_dims, output, output_len);
    g.in = in_dims;
    g.out = out_dims;
    g.input = input;
    g.win = win;
    g.q = q;
    g.k = k;
    g.words = FLEX_M0_PAIR_WORDS(k);
    g.width = (out_dims->w - 1) * win->stride_w + win->kernel_w;
    g.band = (int8_t *)scratch;
    overlap = flex__s8_overlap(input, (size_t)in_dims->n * in_dims->h * in_dims->w *
                                          in_dims->c, output, (size_t)units * OC);
    if (k <= PAIR_K_MAX && flex__m0_pairable(filter, OC * k)) {
        /* the band (or gather patch) first, in words, then packed patches and rows */
        g.banded = win->dilation_w == 1 && win->kernel_w * in_dims->c % 2 == 0 &&
                   k != in_dims->c && win->kernel_h * g.width * in_dims->c <= BAND_MAX;
        patch_words = ((g.banded ? win->kernel_h * g.width * in_dims->c : k) + 3) / 4;
        rows = ((SCRATCH_WORDS - patch_words) / g.words - 1) & ~3; /* and a packed patch */
        block = rows < OC_BLOCK ? rows : OC_BLOCK;
        if (block >= OC || (block >= PAIR_MIN_ROWS && !overlap)) {
            for (oc0 = 0; oc0 < OC; oc0 += nb) {
                nb = OC - oc0 < block ? OC - oc0 : block;
                flex__m0_pack_rows(filter + oc0 * k, k, nb, scratch + patch_words, acc);
                all_fast = block_rq(&g, &ch, oc0, nb, acc, rq);
                conv_pairs(&g, rq, all_fast, scratch + patch_words, nb,
                           scratch + SCRATCH_WORDS - g.words, acc, output + oc0);
            }
            return FLEX_OK;
        }
        block = OC < SPAN_ROWS ? (OC + 3) & ~3 : SPAN_ROWS;
        span = (SCRATCH_WORDS - patch_words) / g.words - block;
        if (span >= SPAN_MIN) {
            conv_pairs_spans(&g, &ch, scratch + patch_words + block * g.words, span,
                             scratch + patch_words, block, rq, acc, output);
            return FLEX_OK;
        }
    }
    g.banded = 0;
    patch_words = (k + 3) / 4;
    span = units;
    if (OC > OC_BLOCK && overlap) {
        span = (SCRATCH_WORDS - patch_words) * 4 / OC;
        if (span == 0) /* the reference writes each pixel's channels in turn */
            return flex__ref_s8_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                       bias_len, multiplier, shift, quant_len, win, groups, q,
                                       out_dims, output, output_len);
        dst = (int8_t *)(scratch + patch_words);
    }
    for (p0 = 0; p0 < units; p0 = p1) {
        p1 = units - p0 < span ? units : p0 + span;
        for (oc0 = 0; oc0 < OC; oc0 += nb) {
            nb = OC - oc0 < OC_BLOCK ? OC - oc0 : OC_BLOCK;
            all_fast = block_rq(&g, &ch, oc0, nb, 0, rq);
            conv_dots(&g, rq, all_fast, filter + oc0 * k, nb, p0, p1, acc, dst + oc0);
        }
        if (dst != output) /* else this was the only span */
            copy_run(output + p0 * OC, dst, (p1 - p0) * OC);
    }
    return FLEX_OK;
}

#define DW_TILE_WORDS 256 /* padded window rows x columns, one word per pixel (4 channels) */
#define DW_LINE_MAX 128   /* outputs per line */

/* Where the tile of depthwise_3x3 keeps pixel (ty, tx): byte 4 (ty * ys + tx * xs) + lane. */
typedef struct {
    int32_t ys, xs;
} tile_layout;

/* One channel in C, one output at a time, over oh x ow outputs whose windows start at the
 * tile's origin: strides other than 1 and 2 and channels whose requantization needs the
 * general path. wk in kernel order. */
static void dw3x3_channel_c(const uint8_t *tile, tile_layout t, const int32_t *wk,
                            const flex__m0_rq *rq, const flex_window *win,
                            const flex_s8_quant *q, int32_t oh, int32_t ow, int32_t C,
                            int8_t *output) {
    const int32_t ys = t.ys * 4, xs = t.xs * 4;
    int32_t oy, ox, k;
    for (oy = 0; oy < oh; oy++)
        for (ox = 0; ox < ow; ox++) {
            const uint8_t *r = tile + oy * win->stride_h * ys + ox * win->stride_w * xs;
            int32_t acc = 0;
            for (k = 0; k < 9; k++)
                acc += wk[k] * r[(k / 3) * ys + (k % 3) * xs];
            output[(oy * ow + ox) * C] = flex__m0_requant(acc, rq, q);
        }
}

/* Tile row at `iy` of the image: pw words xs apart from `dst`, each four channels (c0..c0+3)
 * of one pixel offset by +128, or `pad` outside the image. */
static void fill_tile_row(uint32_t *dst, int32_t xs, int32_t pw, const int8_t *image,
                          const flex_dims4 *in, int32_t c0, int32_t iy, int32_t pad_left,
                          uint32_t pad) {
    const int inside = iy >= 0 && iy < in->h;
    const int32_t left = !inside ? pw : (pad_left < pw ? pad_left : pw);
    const int32_t end = !inside ? pw : (pad_left + in->w < pw ? pad_left + in->w : pw);
    int32_t tx;
    for (tx = 0; tx < left; tx++, dst += xs)
        *dst = pad;
    if (tx < end) { /* the arena may place an int8 tensor at any byte */
        const int8_t *src = image + (iy * in->w + tx - pad_left) * in->c + c0;
        if (((uintptr_t)src & 3) == 0) {
            for (; tx < end; tx++, dst += xs, src += in->c)
                *dst = (uint32_t) * (const word_t *)src ^ 0x80808080u;
        } else if (((uintptr_t)src & 1) == 0) {
            for (; tx < end; tx++, dst += xs, src += in->c)
                *dst = ((uint32_t)((const half_t *)src)[0] |
                        (uint32_t)((const half_t *)src)[1] << 16) ^ 0x80808080u;
        } else {
            for (; tx < end; tx++, dst += xs, src += in->c)
                *dst = ((uint32_t)(uint8_t)src[0] | (uint32_t)(uint8_t)src[1] << 8 |
                        (uint32_t)(uint8_t)src[2] << 16 | (uint32_t)(uint8_t)src[3] << 24) ^
                       0x80808080u;
        }
    }
    for (; tx < pw; tx++, dst += xs)
        *dst = pad;
}

/* How depthwise_3x3 walks an image: the tile's layout and size, and its bands of output
 * rows. */
typedef struct {
    tile_layout t;
    int tall;                 /* lines run down the columns (the whole image in one tile) */
    int32_t rows, cols;       /* tile rows filled per band (at most), columns per row */
    int32_t band;             /* output rows per band */
    int32_t lines, n;         /* lines per band (all of them when tall), outputs per line */
} dw_plan;

/* The tile plan of a 3x3 window over out; 0 when no tile of 3 rows fits. With strips (of
 * four outputs, stride s) every line spans at least the 3 s + 3 pixels a strip reads. */
static int dw_plan_for(const flex_dims4 *out, const flex_window *win, int strips,
                       dw_plan *pl) {
    const int32_t s = win->stride_w, sh = win->stride_h;
    const int32_t span = strips ? 3 * s + 3 : 3;
    const int32_t ph = (out->h - 1) * sh + 3, pw = (out->w - 1) * s + 3;
    const int32_t pitch_h = ph > span ? ph : span, pitch_w = pw > span ? pw : span;
    int32_t cap;
    if (out->h > out->w && pw * pitch_h <= DW_TILE_WORDS) {
        pl->tall = 1;
        pl->t.ys = 1;
        pl->t.xs = pitch_h;
        pl->rows = pitch_h;
        pl->cols = pw;
        pl->band = out->h;
        pl->lines = out->w;
        pl->n = out->h;
    } else {
        cap = DW_TILE_WORDS / pitch_w;
        if (cap < 3)
            return 0;
        pl->tall = 0;
        pl->t.ys = pitch_w;
        pl->t.xs = 1;
        pl->band = (cap - 3) / sh + 1;
        if (pl->band > out->h)
            pl->band = out->h;
        pl->rows = (pl->band - 1) * sh + 3;
        pl->cols = pitch_w;
        pl->lines = pl->band;
        pl->n = out->w;
    }
    return pl->n <= DW_LINE_MAX;
}

/* One 3x3 channel's constants: weights in pass order (taps along the line inner), the
 * base (bias and folded offsets), the requantization, and whether strips may run. */
typedef struct {
    int32_t wk[9];
    int32_t base;
    flex__m0_rq rq;
    int fast;
} dw_channel;

static void dw_channel_init(const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
                            const int32_t *shift, const flex_s8_quant *q, int32_t C, int32_t c,
                            int tall, dw_channel *d) {
    uint32_t sum = 0, bound = bias ? (uint32_t)(bias[c] < 0 ? -bias[c] : bias[c]) : 0u;
    int32_t ky, kx;
    for (ky = 0; ky < 3; ky++)
        for (kx = 0; kx < 3; kx++) {
            const int32_t w = filter[(ky * 3 + kx) * C + c];
            d->wk[tall ? kx * 3 + ky : ky * 3 + kx] = w;
            sum += (uint32_t)w;
            bound += (uint32_t)(w < 0 ? -w : w) * 255u;
        }
    d->base = (int32_t)((uint32_t)(bias ? bias[c] : 0) + sum * (uint32_t)(q->input_offset - 128));
    flex__m0_rq_init(&d->rq, d->base, multiplier[c], shift[c], q);
    /* every true accumulator (bias + sum of w * (x - zp)) below the limit */
    d->fast = d->rq.shift != 0 && bound < (uint32_t)FLEX_M0_RQ_LIMIT;
}

/* Strips of four outputs (assembly) over the n >= 1 outputs of a run of windows s pixels
 * apart from `lane` into acc[0:n] (the last strip overlapping its neighbour, or reading past
 * a run shorter than four). */
FLEX_INLINE void dw_run(const uint8_t *lane, int32_t pass, int32_t n, int32_t s,
                        const int32_t *wk, int32_t base, int32_t *acc) {
    void (*strips)(const uint8_t *, int32_t, int32_t, int32_t *, const int32_t *, int32_t) =
        s == 1 ? flex__m0_dw3_strips : flex__m0_dw3_strips2;
    strips(lane, pass, n < 4 ? 1 : n / 4, acc, wk, base);
    if (n > 4 && n % 4)
        strips(lane + (n - 4) * s * 4, pass, 1, acc + n - 4, wk, base);
}

/* Strips (and calls, of about a quarter of a strip's cost) of dw_run over n outputs, in
 * strip units times 4. */
static int32_t dw_run_cost(int32_t n) {
    return n <= 4 ? 5 : 4 * (n / 4) + (n % 4 ? 5 : 1);
}

/* One channel (lane of the tile) over `lines` lines of the band whose outputs start at
 * `output`: dw_run line by line, or over all lines at once as one run through the tile
 * when that costs less (line l's outputs then start at run position l * pitch; the
 * positions between lines are windows across the tile's edge, computed and dropped), then
 * flex__m0_requant_line per line. */
static void dw_channel_strips(const uint8_t *lane, const dw_plan *pl, int32_t lines,
                              int32_t s, const dw_channel *d, flex__m0_line_rq *lrq,
                              int32_t line_step, int8_t *output) {
    int32_t acc[DW_LINE_MAX];
    const int32_t pass = (pl->tall ? pl->t.xs : pl->t.ys) * 4, n = pl->n;
    const int32_t pitch = pass / 4, whole = (lines - 1) * pitch + n;
    const int flat = whole <= DW_LINE_MAX && dw_run_cost(whole) < lines * dw_run_cost(n);
    int32_t line;
    lrq->m0 = d->rq.m0;
    lrq->m1 = d->rq.m1;
    lrq->m2 = d->rq.m2;
    lrq->shift = d->rq.shift;
    lrq->nudge = d->rq.nudge;
    if (flat)
        dw_run(lane, pass, whole, s, d->wk, d->base, acc);
    for (line = 0; line < lines; line++) {
        if (!flat)
            dw_run(lane + line * s * pass, pass, n, s, d->wk, d->base, acc);
        flex__m0_requant_line(acc + (flat ? line * pitch : 0), n, output + line * line_step,
                              lrq);
    }
}

/* 3x3 depthwise convolution (depth multiplier 1, no dilation) four channels at a time: the
 * padded window region of the four channels is copied into a word-per-pixel tile, offset
 * by +128 (so that taps are unsigned byte loads; -128 * sum(weights) joins the bias) with
 * padding holding the input zero point; an image whose tile does not fit runs in bands of
 * output rows, each band's tile keeping the window rows it shares with the last one. With
 * strides 1 or 2 each channel runs line by line (along the longer output side when the whole
 * image fits) in strips of four outputs (dw_channel_strips). Returns 0 for shapes it does
 * not cover. */
static int depthwise_3x3(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                         const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                         const flex_window *win, int32_t depth_multiplier,
                         const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    uint32_t tile[DW_TILE_WORDS];
    dw_channel ch[4];
    flex__m0_line_rq lrq;
    dw_plan pl;
    const int32_t C = in->c, s = win->stride_w, sh = win->stride_h;
    const int strips = s == sh && (s == 1 || s == 2);
    const int32_t keep = sh < 3 ? 3 - sh : 0; /* window rows one band shares with the next */
    const uint32_t pad = (uint32_t)(128 - q->input_offset) * 0x01010101u;
    int32_t b, c0, j, k, ty, oy0, nb, rows, out_step, line_step;
    if (depth_multiplier != 1 || win->kernel_h != 3 || win->kernel_w != 3 ||
        win->dilation_h != 1 || win->dilation_w != 1 || C % 4 != 0 ||
        !dw_plan_for(out, win, strips, &pl))
        return 0;
    /* An output over its input overwrites, channel group by channel group, input bytes of
     * the same channels only when the distance is whole pixels: in one tile those are
     * already read; in bands, below the input they are pixels of rows earlier bands read. */
    if (flex__s8_overlap(input, (size_t)in->n * in->h * in->w * C, output,
                         (size_t)out->n * out->h * out->w * C) &&
        (((intptr_t)input - (intptr_t)output) % C != 0 ||
         (pl.band < out->h && ((uintptr_t)output > (uintptr_t)input || win->pad_top > keep ||
                               sh * in->w < out->w))))
        return 0;
    out_step = (pl.tall ? out->w : 1) * C;
    line_step = (pl.tall ? 1 : out->w) * C;
    lrq.act_min = q->act_min;
    lrq.act_max = q->act_max;
    lrq.out_stride = out_step;
    for (b = 0; b < out->n; b++) {
        const int8_t *image = input + b * in->h * in->w * C;
        int8_t *out_image = output + b * out->h * out->w * C;
        for (c0 = 0; c0 < C; c0 += 4) {
            for (j = 0; j < 4; j++)
                dw_channel_init(filter, bias, multiplier, shift, q, C, c0 + j, pl.tall, &ch[j]);
            for (oy0 = 0; oy0 < out->h; oy0 += nb) {
                nb = out->h - oy0 < pl.band ? out->h - oy0 : pl.band;
                rows = pl.tall ? pl.rows : (nb - 1) * sh + 3;
                ty = 0;
                if (oy0 > 0) /* the rows this band shares with the last one */
                    for (; ty < keep; ty++)
                        for (k = 0; k < pl.cols; k++)
                            tile[ty * pl.t.ys + k] = tile[(pl.band * sh + ty) * pl.t.ys + k];
                for (; ty < rows; ty++)
                    fill_tile_row(tile + ty * pl.t.ys, pl.t.xs, pl.cols, image, in, c0,
                                  oy0 * sh + ty - win->pad_top, win->pad_left, pad);
                for (j = 0; j < 4; j++) {
                    const uint8_t *lane = (const uint8_t *)tile + j;
                    int8_t *o = out_image + oy0 * out->w * C + c0 + j;
                    int32_t wk[9];
                    if (strips && ch[j].fast) {
                        dw_channel_strips(lane, &pl, pl.tall ? pl.lines : nb, s, &ch[j], &lrq,
                                          line_step, o);
                        continue;
                    }
                    for (k = 0; k < 9; k++)
                        wk[k] = filter[k * C + c0 + j];
                    dw3x3_channel_c(lane, pl.t, wk, &ch[j].rq, win, q, nb, out->w, C, o);
                }
            }
        }
    }
    return 1;
}

flex_status flex_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    FLEX_TRY(flex__s8_depthwise_check(in_dims, input, input_len, filter, filter_len, bias,
                                      bias_len, multiplier, shift, quant_len, win,
                                      depth_multiplier, q, out_dims, output, output_len));
    if (depthwise_3x3(in_dims, input, filter, bias, multiplier, shift, win, depth_multiplier,
                      q, out_dims, output) ||
        flex__m0_dw_channels(in_dims, input, filter, bias, multiplier, shift, win,
                             depth_multiplier, q, out_dims, output))
        return FLEX_OK;
    return flex__ref_s8_depthwise_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                         bias_len, multiplier, shift, quant_len, win,
                                         depth_multiplier, q, out_dims, output, output_len);
}

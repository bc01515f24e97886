/* Cortex-M0+ int8 convolution: per output pixel the receptive field is gathered once into a
 * contiguous patch (padding filled with the input zero point, which adds nothing, exactly as
 * TFLM skipping it; a window that is one contiguous run of the input is used in place), then
 * flex__m0_dot_rows runs every output channel of a block over it and m0_requant.h turns the
 * sums into int8. The input offset enters once per channel as input_offset * sum(weights),
 * folded with the bias. Grouped convolution and patches too large for the stack buffer use
 * the reference kernel (ref/ref.h). An output over its input (the .bst arena's in-place
 * plan) runs in spans of pixels, since the channel blocks each read every input pixel
 * (flex_s8_conv2d). Stack: about 3 KB (a 2.2 KB scratch, requantization records). */
#include "../../ref/ref.h"
#include "m0_dot.h"
#include "m0_pairs.h"
#include "../portable/patch.h"
#include "m0_requant.h"

#define PATCH_MAX 1152   /* 3 x 3 x 128: longest patch of the fast paths */
#define OC_BLOCK 16      /* output channels per block (requantization records) */
#define PAIR_K_MAX 128   /* longest patch the paired dot products take */
#define PAIR_MIN_ROWS 8  /* fewest rows a paired block may have (unless it holds all) */
#define SCRATCH_WORDS 560 /* 2.2 KB: band or patch, packed rows and patches, or a span */
#define BAND_MAX 768     /* bytes of the padded band of input rows */
#define SPAN_ROWS 8      /* in place, paired: filter rows packed at a time */
#define SPAN_MIN 4       /* in place, paired: fewest pixels a span may hold */

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
#ifndef FLEX_SIZE_FIRST
    int direct;              /* 1x1, stride 1, unpadded, C % 4 == 0: pixel p packed in place */
#endif
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

#ifndef FLEX_SIZE_FIRST
/* Packs the patch of output pixel a into xp straight from the input where its window lies
 * inside the input with dilation_w 1 (returns 1), else returns 0: rows whose length is a
 * multiple of 4 by flex__m0_pack4, others element pairs that run on across the ends of the
 * rows. Saves the gather's copy and its per-row calls (a one-channel 3x3 window: 800 cycles
 * a pixel to 150); a build for size (FLEX_SIZE_FIRST) leaves it out. */
static int pack_inside(const conv_geom *g, pixel_at a, int32_t *xp) {
    const flex_window *win = g->win;
    const int32_t C = g->in->c, W = g->in->w, row = win->kernel_w * C;
    const int32_t y0 = a.oy * win->stride_h - win->pad_top;
    const int32_t x0 = a.ox * win->stride_w - win->pad_left;
    const int32_t step = win->dilation_h * W * C, rows = win->kernel_h;
    const int8_t *src, *s, *end;
    int32_t r, j = 0, held = 0, have = 0;
    if (win->dilation_w != 1 || y0 < 0 || x0 < 0 || x0 + win->kernel_w > W ||
        y0 + (rows - 1) * win->dilation_h >= g->in->h)
        return 0;
    src = g->input + ((a.b * g->in->h + y0) * W + x0) * C;
    if (row % 4 == 0) {
        for (r = 0; r < rows; r++, src += step, j += row / 2)
            flex__m0_pack4(src, xp + j, row);
    } else {
        for (r = 0; r < rows; r++, src += step) {
            s = src;
            end = src + row;
            if (have)
                xp[j++] = (int32_t)((uint32_t)*s++ + ((uint32_t)held << 16));
            for (; s + 1 < end; s += 2)
                xp[j++] = (int32_t)((uint32_t)s[1] + ((uint32_t)s[0] << 16));
            have = s < end;
            if (have)
                held = *s;
        }
        if (have)
            xp[j++] = (int32_t)((uint32_t)held << 16);
    }
    while (j < g->words)
        xp[j++] = 0;
    return 1;
}
#endif

/* Packs the patch of output pixel a into xp (g->words words). A banded geometry rebuilds its
 * band at the start of each output row and wherever `fresh` says the band is stale. */
static void pack_patch(const conv_geom *g, pixel_at a, int fresh, int32_t *xp) {
    const flex_window *win = g->win;
    const int32_t C = g->in->c;
    const int8_t fill = (int8_t)(-g->q->input_offset);
#ifndef FLEX_SIZE_FIRST
    if (!g->banded && pack_inside(g, a, xp))
        return;
#endif
    if (!g->banded) {
        flex__m0_pack_x(flex__patch_gather(g->in, g->input, win, a.b, a.oy, a.ox, fill, g->band),
                        g->k, xp);
        return;
    }
    if (fresh || a.ox == 0) /* the window rows under this output row, padded */
        flex__patch_padded_rows(g->in, g->input + a.b * g->in->h * g->in->w * C, win,
                             a.oy * win->stride_h - win->pad_top, -win->pad_left, g->width,
                             fill, g->band);
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
#ifndef FLEX_SIZE_FIRST
        if (g->direct)
            flex__m0_pack4(g->input + p * g->k, xp, g->k);
        else
#endif
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
        const int8_t *x = flex__patch_gather(g->in, g->input, g->win, a.b, a.oy, a.ox, fill,
                                          g->band);
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
FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    int32_t scratch[SCRATCH_WORDS];
    const conv_channels ch = {filter, bias, multiplier, shift};
    conv_geom g;
    flex__m0_rq rq[OC_BLOCK];
    int32_t acc[OC_BLOCK]; /* sums, then each pixel's dot products */
    int32_t k, oc0, nb, block, units, span, p0, p1, OC, patch_words, rows;
    int all_fast, overlap;
    int8_t *dst = output;
    FLEX__S8_CONV_PATCH(k, PATCH_MAX);
    OC = out_dims->c;
    units = out_dims->n * out_dims->h * out_dims->w;
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
#ifndef FLEX_SIZE_FIRST
        g.direct = k == in_dims->c && k % 4 == 0 && win->stride_h == 1 && win->stride_w == 1 &&
                   win->pad_top == 0 && win->pad_left == 0 && in_dims->h == out_dims->h &&
                   in_dims->w == out_dims->w;
#endif
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
            return flex__ref_s8_conv2d(FLEX__ARGS_s8_conv2d);
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
            flex__patch_copy_run(output + p0 * OC, dst, (p1 - p0) * OC);
    }
    return FLEX_OK;
}

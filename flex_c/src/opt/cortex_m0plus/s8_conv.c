/* Cortex-M0+ int8 convolution: per output pixel the receptive field is gathered once into a
 * contiguous patch (padding filled with the input zero point, which adds nothing, exactly as
 * TFLM skipping it; a window that is one contiguous run of the input is used in place), then
 * flex__m0_dot_rows runs every output channel of a block over it and m0_requant.h turns the
 * sums into int8. The input offset enters once per channel as input_offset * sum(weights),
 * folded with the bias. 3x3 depthwise convolution runs channel by channel over a tile
 * (depthwise_3x3), other depthwise shapes walk channels innermost (s8_depthwise_fast.h).
 * Grouped convolution and patches too large for the stack buffer use the reference kernels,
 * renamed here. An output over its input (the .bst arena's in-place plan) is computed in
 * spans of pixels held on the stack until complete, since the channel blocks each read every
 * input pixel. Stack: about 6 KB for conv2d (patch, packed filter block, span, requantization
 * records), 2.3 KB for the 3x3 depthwise (tile and line sums). */
#include "m0_depthwise.h"
#include "m0_dot.h"
#include "m0_pairs.h"
#include "m0_requant.h"

#define flex_s8_conv2d flex__ref_s8_conv2d
#define flex_s8_depthwise_conv2d flex__ref_s8_depthwise_conv2d
#include "../../ref/s8_conv.c"
#undef flex_s8_conv2d
#undef flex_s8_depthwise_conv2d
#define FLEX_DW_MAX_CHANNELS 256
#define flex_s8_depthwise_conv2d flex__dw_s8_depthwise_conv2d
#include "../s8_depthwise_fast.h"
#undef flex_s8_depthwise_conv2d

#define PATCH_MAX 1152 /* 3 x 3 x 128 */
#define OC_BLOCK 32
#define PAIR_K_MAX 192   /* longest patch the paired dot products take */
#define PAIR_MIN_ROWS 8  /* fewest rows a paired block may have (unless it holds all) */
#define PACKED_WORDS 512 /* packed filter rows of one block (2 KB) */
#define SPAN_BYTES 1024  /* in place: output pixels held until complete */

typedef int32_t word_t __attribute__((may_alias));

/* dst[0:n] = src[0:n], a word at a time when both are word-aligned. */
FLEX_HOT
static void copy_run(int8_t *dst, const int8_t *src, int32_t n) {
    if ((((uintptr_t)dst | (uintptr_t)src) & 3) == 0) {
        for (; n >= 4; n -= 4, dst += 4, src += 4)
            *(word_t *)dst = *(const word_t *)src;
    }
    while (n-- > 0)
        *dst++ = *src++;
}

FLEX_HOT
static void fill_run(int8_t *dst, int8_t value, int32_t n) {
    while (n-- > 0)
        *dst++ = value;
}

/* kernel_h rows of `width` pixels into dst: input columns x0 .. x0 + width - 1 of input rows
 * y0 + ky * dilation_h of `image`, with `fill` outside it. */
FLEX_HOT
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
FLEX_HOT
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

/* Output pixels [p0, p1) of the raster (n, oh, ow) and channels [oc0, oc0 + nb) through the
 * paired dot products, the filter block packed in wp; pixel p's channels go to
 * dst + (p - p0) * out->c. Where a window's rows are runs of an even number of inputs, the
 * patches are packed from a padded band of input rows built once per output row (band:
 * `band_bytes` bytes); otherwise each window is gathered, then packed. */
FLEX_HOT
static void conv_pairs(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                       const flex__m0_rq *rq, int all_fast, const int32_t *wp, int32_t nb,
                       const flex_s8_quant *q, const flex_dims4 *out, int32_t p0, int32_t p1,
                       int8_t *dst, int8_t *band, int32_t band_bytes) {
    const int32_t C = in->c, row = win->kernel_w * C, k = win->kernel_h * row;
    const int32_t width = (out->w - 1) * win->stride_w + win->kernel_w;
    const int32_t words = FLEX_M0_PAIR_WORDS(k), groups = (nb + 3) >> 2;
    const int8_t fill = (int8_t)(-q->input_offset);
    const int banded = win->dilation_w == 1 && row % 2 == 0 && k != C &&
                       win->kernel_h * width * C <= band_bytes;
    int32_t xp[FLEX_M0_PAIR_WORDS(PAIR_K_MAX)], acc[OC_BLOCK];
    int32_t p, b = p0 / (out->h * out->w), oy = p0 / out->w % out->h, ox = p0 % out->w;
    for (p = p0; p < p1; p++, dst += out->c) {
        if (banded && (ox == 0 || p == p0)) /* the window rows under this output row, padded */
            padded_rows(in, input + b * in->h * in->w * C, win,
                        oy * win->stride_h - win->pad_top, -win->pad_left, width, fill, band);
        if (banded)
            pack_band_patch(band + ox * win->stride_w * C, win->kernel_h, row, width * C,
                            words, xp);
        else
            flex__m0_pack_x(gather(in, input, win, b, oy, ox, fill, band), k, xp);
        flex__m0_pair_dot(xp, wp, words, acc, groups);
        flex__m0_requant_block(acc, rq, nb, all_fast, dst, q);
        if (++ox == out->w) {
            ox = 0;
            if (++oy == out->h) {
                oy = 0;
                b++;
            }
        }
    }
}

/* The same through flex__m0_dot_rows over the unpacked filter block w_block (k per row). */
FLEX_HOT
static void conv_dots(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                      const flex__m0_rq *rq, int all_fast, const int8_t *w_block, int32_t nb,
                      const flex_s8_quant *q, const flex_dims4 *out, int32_t p0, int32_t p1,
                      int8_t *dst, int8_t *patch) {
    const int32_t k = win->kernel_h * win->kernel_w * in->c;
    const int8_t fill = (int8_t)(-q->input_offset);
    int32_t acc[OC_BLOCK];
    int32_t p, b = p0 / (out->h * out->w), oy = p0 / out->w % out->h, ox = p0 % out->w;
    for (p = p0; p < p1; p++, dst += out->c) {
        const int8_t *x = gather(in, input, win, b, oy, ox, fill, patch);
        flex__m0_dot_rows(x + k, w_block + k, k, nb, acc);
        flex__m0_requant_block(acc, rq, nb, all_fast, dst, q);
        if (++ox == out->w) {
            ox = 0;
            if (++oy == out->h) {
                oy = 0;
                b++;
            }
        }
    }
}

/* Output channels run in blocks, each over every output pixel. When the output overlaps the
 * input (an in-place arena), a block would overwrite inputs that the next block still reads:
 * then the pixels go in spans whose every channel is computed in span_buf first, and each
 * span is copied out once complete, in increasing order (docs/bst-format.md). */
FLEX_HOT
flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int32_t patch_words[PATCH_MAX / 4]; /* word-aligned for copy_run */
    int8_t *patch = (int8_t *)patch_words;
    int32_t span_words[SPAN_BYTES / 4];
    int32_t wp[PACKED_WORDS];
    int all_fast, paired;
    flex__m0_rq rq[OC_BLOCK];
    int32_t k, oc0, nb, block, units, span, p0, p1, OC;
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
    /* paired blocks: as many rows (a multiple of four) as wp holds, if that is at least
     * PAIR_MIN_ROWS or every channel: each block repacks every patch */
    block = k <= PAIR_K_MAX ? (PACKED_WORDS / FLEX_M0_PAIR_WORDS(k)) & ~3 : 0;
    paired = block >= PAIR_MIN_ROWS || (block >= 4 && block >= OC);
    if (!paired || block > OC_BLOCK)
        block = OC_BLOCK;
    span = units;
    if (block < OC && flex__s8_overlap(input, (size_t)in_dims->n * in_dims->h * in_dims->w *
                                                  in_dims->c, output, (size_t)units * OC)) {
        span = SPAN_BYTES / OC;
        if (span == 0) /* the reference writes each pixel's channels in turn */
            return flex__ref_s8_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                       bias_len, multiplier, shift, quant_len, win, groups, q,
                                       out_dims, output, output_len);
        dst = (int8_t *)span_words;
    }
    for (p0 = 0; p0 < units; p0 = p1) {
        p1 = units - p0 < span ? units : p0 + span;
        for (oc0 = 0; oc0 < OC; oc0 += nb) {
            const int8_t *w_block = filter + oc0 * k;
            nb = OC - oc0 < block ? OC - oc0 : block;
            all_fast = flex__m0_rq_block(rq, nb, w_block, k, bias ? bias + oc0 : 0,
                                         multiplier + oc0, shift + oc0, 1, q);
            if (paired && flex__m0_pack_rows(w_block, k, nb, wp))
                conv_pairs(in_dims, input, win, rq, all_fast, wp, nb, q, out_dims, p0, p1,
                           dst + oc0, patch, PATCH_MAX);
            else
                conv_dots(in_dims, input, win, rq, all_fast, w_block, nb, q, out_dims, p0, p1,
                          dst + oc0, patch);
        }
        if (dst != output) /* else this was the only span */
            copy_run(output + p0 * OC, dst, (p1 - p0) * OC);
    }
    return FLEX_OK;
}

#define DW_TILE_MAX 1024 /* bytes: padded window rows x columns x 4 channels */

/* Where the tile of depthwise_3x3 keeps pixel (ty, tx): byte 4 (ty * ys + tx * xs) + lane. */
typedef struct {
    int32_t ys, xs;
} tile_layout;

/* One channel in C, one output at a time: strides other than 1, lines shorter than a strip
 * and channels whose requantization needs the general path. */
FLEX_HOT
static void dw3x3_channel_c(const uint8_t *tile, tile_layout t, const int32_t *wk,
                            const flex__m0_rq *rq, const flex_window *win,
                            const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    const int32_t ys = t.ys * 4, xs = t.xs * 4;
    int32_t oy, ox, k;
    for (oy = 0; oy < out->h; oy++)
        for (ox = 0; ox < out->w; ox++) {
            const uint8_t *r = tile + oy * win->stride_h * ys + ox * win->stride_w * xs;
            int32_t acc = 0;
            for (k = 0; k < 9; k++)
                acc += wk[k] * r[(k / 3) * ys + (k % 3) * xs];
            output[(oy * out->w + ox) * out->c] = flex__m0_requant(acc, rq, q);
        }
}

/* Tile row at `iy` of the image: pw words xs apart from `dst`, each four channels (c0..c0+3)
 * of one pixel offset by +128, or `pad` outside the image. */
FLEX_HOT
static void fill_tile_row(uint32_t *dst, int32_t xs, int32_t pw, const int8_t *image,
                          const flex_dims4 *in, int32_t c0, int32_t iy, int32_t pad_left,
                          uint32_t pad) {
    const int inside = iy >= 0 && iy < in->h;
    const int32_t left = !inside ? pw : (pad_left < pw ? pad_left : pw);
    const int32_t end = !inside ? pw : (pad_left + in->w < pw ? pad_left + in->w : pw);
    int32_t tx;
    for (tx = 0; tx < left; tx++, dst += xs)
        *dst = pad;
    if (tx < end) {
        const word_t *src = (const word_t *)(image + (iy * in->w + tx - pad_left) * in->c + c0);
        for (; tx < end; tx++, dst += xs, src += in->c / 4)
            *dst = (uint32_t)*src ^ 0x80808080u;
    }
    for (; tx < pw; tx++, dst += xs)
        *dst = pad;
}

/* 3x3 depthwise convolution (depth multiplier 1, no dilation) four channels at a time: the
 * padded window region of the four channels is copied once into a word-per-pixel tile,
 * offset by +128 (so that taps are unsigned byte loads; -128 * sum(weights) joins the
 * bias) with padding holding the input zero point. With stride 1 each channel then runs
 * line by line along the longer output side (the tile is stored along it): strips of four
 * outputs in assembly (flex__m0_dw3_strips, the last strip of a line overlapping its
 * neighbour), then flex__m0_requant_line. Returns 0 for shapes it does not cover. */
FLEX_HOT
static int depthwise_3x3(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                         const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                         const flex_window *win, int32_t depth_multiplier,
                         const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    uint32_t tile[DW_TILE_MAX / 4];
    int32_t acc[DW_TILE_MAX / 4];
    int32_t wk[9];
    const int32_t C = in->c;
    const int32_t ph = (out->h - 1) * win->stride_h + 3, pw = (out->w - 1) * win->stride_w + 3;
    const int tall = out->h > out->w; /* lines run down the columns */
    const tile_layout t = {tall ? 1 : pw, tall ? ph : 1};
    const int32_t lines = tall ? out->w : out->h, n = tall ? out->h : out->w;
    const int32_t out_step = (tall ? out->w : 1) * C, line_step = (tall ? 1 : out->w) * C;
    const uint32_t pad = (uint32_t)(128 - q->input_offset) * 0x01010101u;
    const int strips = win->stride_h == 1 && win->stride_w == 1 && n >= 4;
    flex__m0_line_rq lrq;
    flex__m0_rq rq;
    int32_t b, c0, j, k, ky, kx, ty, line;
    if (depth_multiplier != 1 || win->kernel_h != 3 || win->kernel_w != 3 ||
        win->dilation_h != 1 || win->dilation_w != 1 || C % 4 != 0 ||
        ((uintptr_t)input & 3) != 0 || ph * pw * 4 > DW_TILE_MAX)
        return 0;
    /* An output over its input overwrites, channel group by channel group, input bytes of
     * the same channels only (already in the tile) when the distance is whole pixels. */
    if (flex__s8_overlap(input, (size_t)in->n * in->h * in->w * C, output,
                         (size_t)out->n * out->h * out->w * C) &&
        ((intptr_t)input - (intptr_t)output) % C != 0)
        return 0;
    lrq.act_min = q->act_min;
    lrq.act_max = q->act_max;
    lrq.out_stride = out_step;
    for (b = 0; b < out->n; b++) {
        const int8_t *image = input + b * in->h * in->w * C;
        int8_t *out_image = output + b * out->h * out->w * C;
        for (c0 = 0; c0 < C; c0 += 4) {
            for (ty = 0; ty < ph; ty++)
                fill_tile_row(tile + ty * t.ys, t.xs, pw, image, in, c0, ty - win->pad_top,
                              win->pad_left, pad);
            for (j = 0; j < 4; j++) {
                const int32_t c = c0 + j;
                const uint8_t *lane = (const uint8_t *)tile + j;
                uint32_t sum = 0, bound = 0;
                int32_t base;
                for (ky = 0; ky < 3; ky++) /* wk in pass order: taps along the line inner */
                    for (kx = 0; kx < 3; kx++) {
                        const int32_t w = filter[(ky * 3 + kx) * C + c];
                        wk[tall ? kx * 3 + ky : ky * 3 + kx] = w;
                        sum += (uint32_t)w;
                        bound += (uint32_t)(w < 0 ? -w : w) * 255u;
                    }
                base = (int32_t)((uint32_t)(bias ? bias[c] : 0) +
                                 sum * (uint32_t)(q->input_offset - 128));
                flex__m0_rq_init(&rq, base, multiplier[c], shift[c], q);
                /* every true accumulator (bias + sum of w * (x - zp)) below the limit */
                bound += bias ? (uint32_t)(bias[c] < 0 ? -bias[c] : bias[c]) : 0u;
                if (!strips || rq.shift == 0 || bound >= (uint32_t)FLEX_M0_RQ_LIMIT) {
                    if (tall) /* dw3x3_channel_c wants wk in kernel order */
                        for (k = 0; k < 9; k++)
                            wk[k] = filter[k * C + c];
                    dw3x3_channel_c(lane, t, wk, &rq, win, q, out, out_image + c);
                    continue;
                }
                lrq.m0 = rq.m0;
                lrq.m1 = rq.m1;
                lrq.m2 = rq.m2;
                lrq.shift = rq.shift;
                lrq.nudge = rq.nudge;
                for (line = 0; line < lines; line++) {
                    const uint8_t *p = lane + line * (tall ? t.xs : t.ys) * 4;
                    const int32_t pass = (tall ? t.xs : t.ys) * 4;
                    flex__m0_dw3_strips(p, pass, n / 4, acc, wk, base);
                    if (n % 4)
                        flex__m0_dw3_strips(p + (n - 4) * 4, pass, 1, acc + n - 4, wk, base);
                    flex__m0_requant_line(acc, n, out_image + c + line * line_step, &lrq);
                }
            }
        }
    }
    return 1;
}

FLEX_HOT
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
                      q, out_dims, output))
        return FLEX_OK;
    return flex__dw_s8_depthwise_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                        bias_len, multiplier, shift, quant_len, win,
                                        depth_multiplier, q, out_dims, output, output_len);
}

/* Depthwise convolution (depth multiplier 1) with channels innermost: for each output pixel
 * and each tap inside the image, every channel of a block takes one multiply-add, so
 * input, filter and accumulators are all read contiguously; m0_requant.h turns the block's
 * sums into int8 with records prepared once per block.
 *
 * The blocks run one after the other over every pixel. An output over its input (the .bst
 * arena's in-place plan) then still reads only what the reference reads, as output channel
 * c overwrites input channel c alone, if the distance is a whole number of pixels; at
 * other distances each pixel runs every block before the next pixel, the records
 * prepared again per pixel. */
#include "m0_dw_channels.h"
#include "m0_requant.h"

#define BLOCK 32 /* channels per block: accumulators and records (1 KB of stack) */

/* Channels [c0, c0 + nb) of output pixels [p0, p1) (raster order over out). */
static void block_pixels(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                         const flex_window *win, const flex_s8_quant *q, const flex_dims4 *out,
                         const flex__m0_rq *rq, int all_fast, int32_t c0, int32_t nb,
                         int32_t p0, int32_t p1, int8_t *output) {
    int32_t acc[BLOCK];
    const int32_t C = in->c, off = q->input_offset;
    int32_t p, ky, kx, c;
    for (p = p0; p < p1; p++) {
        const int32_t row = p / out->w, ox = p - row * out->w, b = row / out->h;
        const int32_t oy = row - b * out->h;
        for (c = 0; c < nb; c++)
            acc[c] = 0;
        for (ky = 0; ky < win->kernel_h; ky++) {
            const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
            if (iy < 0 || iy >= in->h)
                continue;
            for (kx = 0; kx < win->kernel_w; kx++) {
                const int32_t ix = ox * win->stride_w - win->pad_left + kx * win->dilation_w;
                const int8_t *x, *w;
                if (ix < 0 || ix >= in->w)
                    continue;
                x = input + ((b * in->h + iy) * in->w + ix) * C + c0;
                w = filter + (ky * win->kernel_w + kx) * C + c0;
                for (c = 0; c < nb; c++)
                    acc[c] = FLEX_WADD(acc[c], w[c] * (x[c] + off));
            }
        }
        flex__m0_requant_block(acc, rq, nb, all_fast, output + p * C + c0, q);
    }
}

int flex__m0_dw_channels(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                         const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                         const flex_window *win, int32_t depth_multiplier,
                         const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    flex__m0_rq rq[BLOCK];
    const int32_t C = in->c, units = out->n * out->h * out->w;
    int32_t c0, nb, p0, span = units;
    int all_fast;
    if (depth_multiplier != 1)
        return 0;
    if (flex__s8_overlap(input, (size_t)in->n * in->h * in->w * C, output, (size_t)units * C) &&
        ((intptr_t)input - (intptr_t)output) % C != 0)
        span = 1; /* every block of a pixel before the next pixel */
    for (p0 = 0; p0 < units; p0 += span)
        for (c0 = 0; c0 < C; c0 += nb) {
            nb = C - c0 < BLOCK ? C - c0 : BLOCK;
            /* no weight rows (k = 0): each record's base is the bias */
            all_fast = flex__m0_rq_block(rq, nb, filter, 0, 0, bias ? bias + c0 : 0,
                                         multiplier + c0, shift + c0, 1, q);
            block_pixels(in, input, filter, win, q, out, rq, all_fast, c0, nb, p0, p0 + span,
                         output);
        }
    return 1;
}

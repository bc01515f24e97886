/* int8 depthwise convolution on Helium (MVE; depth multiplier 1, up to MAX_C channels per
 * pass): output pixel by pixel, eight channels at a time, each tap one load of eight inputs
 * and one of eight weights widened to 16 bits, their products widened to 32 bits into two
 * vectors of sums, the even channels' and the odd ones' (VMULLB, VMULLT); the last
 * channels of a pixel through tail predication. The input offset enters once per channel as
 * offset * sum(weights), folded with the bias into records grouped as the sums are; taps
 * outside the input read a row of zero points, which the folded offset cancels, exactly as
 * TFLM skipping them (dw_taps.h). Both vectors are requantized (mve_requant.h), narrowed
 * together into eight bytes and stored. Pixels are written in order, each after its taps are
 * read, as the reference does, so an output over its input needs no other order. Other
 * shapes take the Cortex-M0+ paths (m0_dw_channels.h), then the reference kernel
 * (ref/ref.h). Stack: about 5 KB. */
#include "../../ref/ref.h"
#include "../cortex_m0plus/m0_dw_channels.h"
#include "../portable/dw_taps.h"
#include "mve_requant.h"

#define MAX_C 256   /* channels per pass (records, sums and the zero-point row) */
#define MAX_TAPS 64 /* window taps */
#define REC 24      /* record words per group of eight channels */

/* The records of channels [0, C): per group of eight, the folded biases of the even
 * channels, of the odd ones, then their multipliers and their shifts likewise; channels past
 * C repeat the last. */
static void records(const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                    const int32_t *sums, int32_t offset, int32_t C, int32_t *rec) {
    int32_t g, j;
    for (g = 0; g < C; g += 8, rec += REC)
        for (j = 0; j < 8; j++) {
            const int32_t c = g + j < C ? g + j : C - 1, at = (j & 1) * 4 + (j >> 1);
            rec[at] = FLEX_WADD(bias ? bias[c] : 0, FLEX_WMUL(offset, sums[c]));
            rec[8 + at] = multiplier[c];
            rec[16 + at] = shift[c];
        }
}

/* The sums of eight channels (even and odd) over the taps, from the taps' pixels x[t] + c
 * and the weights at w, S apart; FULL says all eight lanes are channels (no predicate). */
#define TAPS_LOOP(FULL)                                                                     \
    for (t = 0; t < taps; t++, wt += S) {                                                 \
        const int16x8_t xv = FULL ? vldrbq_s16(x[t] + c) : vldrbq_z_s16(x[t] + c, p);      \
        const int16x8_t wv = FULL ? vldrbq_s16(wt) : vldrbq_z_s16(wt, p);                  \
        even = vaddq_s32(even, vmullbq_int_s16(xv, wv));                                   \
        odd = vaddq_s32(odd, vmulltq_int_s16(xv, wv));                                     \
    }

/* One output pixel: channels [0, C) from the taps' pixels x[t] and the weights w[t S + c]. */
FLEX_HOT static void dw_pixel(const int8_t *const *x, const int8_t *w, int32_t taps,
                              int32_t C, int32_t S, const int32_t *rec,
                              const flex_s8_quant *q, int8_t *out) {
    const int32x4_t lo = vdupq_n_s32(q->act_min), hi = vdupq_n_s32(q->act_max);
    int32_t c, t;
    for (c = 0; c < C; c += 8, rec += REC) {
        const mve_pred16_t p = vctp16q((uint32_t)(C - c));
        int32x4_t even = vldrwq_s32(rec), odd = vldrwq_s32(rec + 4);
        const int8_t *wt = w + c;
        int16x8_t r;
        if (C - c >= 8)
            TAPS_LOOP(1)
        else
            TAPS_LOOP(0)
        even = flex__mve_requant(even, vldrwq_s32(rec + 8), vldrwq_s32(rec + 16),
                                 q->output_offset, lo, hi);
        odd = flex__mve_requant(odd, vldrwq_s32(rec + 12), vldrwq_s32(rec + 20),
                                q->output_offset, lo, hi);
        r = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), even), odd);
        if (C - c >= 8)
            vstrbq_s16(out + c, r);
        else
            vstrbq_p_s16(out + c, r, p);
    }
}

/* Channels [c0, c0 + C) of every pixel (the input's and output's pixels S = in->c channels
 * apart). */
static void dw_channels(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                        const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                        const flex_window *win, const flex_s8_quant *q, const flex_dims4 *out,
                        int8_t *output, int32_t c0, int32_t C) {
    int32_t rec[MAX_C / 8 * REC], sums[MAX_C], off[MAX_TAPS];
    const int8_t *x[MAX_TAPS];
    int8_t zeros[MAX_C];
    const int32_t S = in->c, taps = win->kernel_h * win->kernel_w;
    int32_t b, oy, ox, t, ky, kx;
    input += c0;
    filter += c0;
    output += c0;
    flex__dw_sums(filter, taps, C, S, q->input_offset, sums, zeros);
    records(bias ? bias + c0 : NULL, multiplier + c0, shift + c0, sums, q->input_offset, C,
            rec);
    for (ky = 0, t = 0; ky < win->kernel_h; ky++)
        for (kx = 0; kx < win->kernel_w; kx++, t++)
            off[t] = (ky * win->dilation_h * in->w + kx * win->dilation_w) * S;
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++, output += S) {
                const int32_t y0 = oy * win->stride_h - win->pad_top;
                const int32_t x0 = ox * win->stride_w - win->pad_left;
                if (y0 >= 0 && x0 >= 0 && y0 + (win->kernel_h - 1) * win->dilation_h < in->h &&
                    x0 + (win->kernel_w - 1) * win->dilation_w < in->w) {
                    const int8_t *first = input + ((b * in->h + y0) * in->w + x0) * S;
                    for (t = 0; t < taps; t++)
                        x[t] = first + off[t];
                } else {
                    flex__dw_taps(in, input, win, b, oy, ox, zeros, x);
                }
                dw_pixel(x, filter, taps, C, S, rec, q, output);
            }
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex_s8_depthwise_conv2d) {
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    const int32_t C = in_dims->c, taps = win->kernel_h * win->kernel_w;
    const int8_t *input_end = input + in_dims->n * in_dims->h * in_dims->w * C;
    const int8_t *output_end = output + out_dims->n * out_dims->h * out_dims->w * C;
    int32_t c0;
    if (depth_multiplier == 1 && taps <= MAX_TAPS &&
        (C <= MAX_C || output_end <= input || input_end <= output)) {
        for (c0 = 0; c0 < C; c0 += MAX_C)
            dw_channels(in_dims, input, filter, bias, multiplier, shift, win, q, out_dims,
                        output, c0, C - c0 < MAX_C ? C - c0 : MAX_C);
        return FLEX_OK;
    }
    if (flex__m0_depthwise(in_dims, input, filter, bias, multiplier, shift, win,
                           depth_multiplier, q, out_dims, output))
        return FLEX_OK;
    return flex__ref_s8_depthwise_conv2d(FLEX__ARGS_s8_depthwise_conv2d);
}

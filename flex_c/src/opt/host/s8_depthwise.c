/* Host (x86-64 / aarch64) int8 depthwise convolution, bit-identical to the reference kernel
 * and written for the vectorizer (cloned for AVX2 on x86-64 GCC builds, FLEX_CLONES): with
 * depth multiplier 1, channels run innermost; the input offset enters once per channel as
 * offset * sum(weights) and taps outside the input read a row of zero points, so each
 * output pixel is one pass of multiply-adds over contiguous channels (a 3x3 window has its
 * nine taps unrolled), then one requantization over its row of channels (s8_requant.h).
 * Other shapes use the reference kernel (ref/ref.h). On CPUs with AVX-512 VNNI,
 * s8_depthwise_vnni.c takes the shapes it can. */
#include "../../ref/ref.h"
#include "s8_requant.h"
#include "s8_vnni.h"

#define DW_MAX_CHANNELS 1024
#define DW_MAX_TAPS 64

/* acc[c] = base[c] + sum over taps t of w[t * C + c] * x[t][c] (|sum| < 2^20; the bias in
 * base wraps like TFLM's int32 accumulator): a 3x3 window in one pass over the channels,
 * other windows one tap at a time. */
FLEX_INLINE void dw_taps(const int8_t *const *x, const int8_t *restrict w,
                         const int32_t *restrict base, int32_t taps, int32_t C,
                         int32_t *restrict acc) {
    int32_t t, c;
    if (taps == 9) {
        const int8_t *restrict x0 = x[0], *restrict x1 = x[1], *restrict x2 = x[2];
        const int8_t *restrict x3 = x[3], *restrict x4 = x[4], *restrict x5 = x[5];
        const int8_t *restrict x6 = x[6], *restrict x7 = x[7], *restrict x8 = x[8];
        for (c = 0; c < C; c++)
            acc[c] = FLEX_WADD(base[c], w[c] * x0[c] + w[C + c] * x1[c] +
                               w[2 * C + c] * x2[c] + w[3 * C + c] * x3[c] +
                               w[4 * C + c] * x4[c] + w[5 * C + c] * x5[c] +
                               w[6 * C + c] * x6[c] + w[7 * C + c] * x7[c] +
                               w[8 * C + c] * x8[c]);
        return;
    }
    for (c = 0; c < C; c++)
        acc[c] = 0;
    for (t = 0; t < taps; t++) {
        const int8_t *restrict xt = x[t], *restrict wt = w + t * C;
        for (c = 0; c < C; c++)
            acc[c] += wt[c] * xt[c];
    }
    for (c = 0; c < C; c++)
        acc[c] = FLEX_WADD(base[c], acc[c]);
}

FLEX_CLONES
static void depthwise_fast(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                           const int32_t *bias, const int32_t *multiplier,
                           const int32_t *shift, const flex_window *win,
                           const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    int32_t acc[DW_MAX_CHANNELS], base[DW_MAX_CHANNELS];
    int32_t left[DW_MAX_CHANNELS], right[DW_MAX_CHANNELS];
    int8_t zero_row[DW_MAX_CHANNELS];
    const int8_t *x[DW_MAX_TAPS];
    const int32_t C = in->c, taps = win->kernel_h * win->kernel_w;
    int32_t b, oy, ox, ky, kx, c, t;
    flex__host_split_shifts(shift, C, left, right);
    for (c = 0; c < C; c++) {
        int32_t sum = 0;
        for (t = 0; t < taps; t++)
            sum += filter[t * C + c];
        base[c] = FLEX_WADD(bias ? bias[c] : 0, FLEX_WMUL(sum, q->input_offset));
        zero_row[c] = (int8_t)(-q->input_offset);
    }
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++) {
                for (ky = 0, t = 0; ky < win->kernel_h; ky++) {
                    const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
                    for (kx = 0; kx < win->kernel_w; kx++, t++) {
                        const int32_t ix =
                            ox * win->stride_w - win->pad_left + kx * win->dilation_w;
                        x[t] = iy >= 0 && iy < in->h && ix >= 0 && ix < in->w
                                   ? input + ((b * in->h + iy) * in->w + ix) * C
                                   : zero_row;
                    }
                }
                dw_taps(x, filter, base, taps, C, acc);
                flex__host_requant_row(acc, 0, multiplier, left, right, C, q, output);
                output += C;
            }
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex_s8_depthwise_conv2d) {
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    if (depth_multiplier != 1 || in_dims->c > DW_MAX_CHANNELS ||
        win->kernel_h * win->kernel_w > DW_MAX_TAPS)
        return flex__ref_s8_depthwise_conv2d(FLEX__ARGS_s8_depthwise_conv2d);
    if (flex__host_depthwise_vnni(in_dims, input, filter, bias, multiplier, shift, win, q,
                                  out_dims, output))
        return FLEX_OK;
    depthwise_fast(in_dims, input, filter, bias, multiplier, shift, win, q, out_dims, output);
    return FLEX_OK;
}

/* int8 depthwise convolution on the Arm DSP extension (depth multiplier 1, channels a
 * multiple of 4, up to MAX_C of them): output pixel by pixel, four channels at a time, each
 * tap one word of input and one of weights split into halves (SXTB16) and four 16-bit
 * multiply-accumulates (SMLABB, SMLATT). The input offset enters once per channel as
 * offset * sum(weights), folded with the bias into the requantization records
 * (dsp_requant.h); taps outside the input read a row of zero points, which the folded
 * offset cancels, exactly as TFLM skipping them. Pixels are written in order, each after
 * its taps are read, as the reference does, so an output over its input needs no other
 * order. Other shapes take the Cortex-M0+ paths (m0_dw_channels.h), then the reference
 * kernel (ref/ref.h). Stack: about 2.7 KB. */
#include "../../ref/ref.h"
#include "../cortex_m0plus/m0_dw_channels.h"
#include "../portable/dw_taps.h"
#include "dsp_ops.h"
#include "dsp_requant.h"

#define MAX_C 128   /* channels (records and a pixel's sums on the stack) */
#define MAX_TAPS 64 /* window taps */

/* acc[c] = sum over the taps of x[t][c] * w[t * C + c], four channels at a time (a
function of its own, so that the compiler keeps its loop's values in registers). */
FLEX_HOT
__attribute__((noinline)) static void dw_pixel(const int8_t *const *x, const int8_t *w,
                                               int32_t taps, int32_t C, int32_t *acc) {
    int32_t c, t;
    for (c = 0; c < C; c += 4, acc += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        const int8_t *wt = w + c;
        for (t = 0; t < taps; t++, wt += C) {
            const int32_t xv = flex__dsp_load(x[t] + c), wv = flex__dsp_load(wt);
            const int32_t xe = flex__dsp_sxtb16(xv), xo = flex__dsp_sxtb16_ror8(xv);
            const int32_t we = flex__dsp_sxtb16(wv), wo = flex__dsp_sxtb16_ror8(wv);
            a0 = flex__dsp_smlabb(xe, we, a0);
            a2 = flex__dsp_smlatt(xe, we, a2);
            a1 = flex__dsp_smlabb(xo, wo, a1);
            a3 = flex__dsp_smlatt(xo, wo, a3);
        }
        acc[0] = a0;
        acc[1] = a1;
        acc[2] = a2;
        acc[3] = a3;
    }
}

/* The DSP path; returns 0, writing nothing, for shapes it does not take. */
static int dw_dsp(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                  const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                  const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
                  const flex_dims4 *out, int8_t *output) {
    flex__dsp_rq rq[MAX_C];
    int32_t acc[MAX_C], sums[MAX_C];
    const int8_t *x[MAX_TAPS];
    int8_t zeros[MAX_C];
    const int32_t C = in->c, taps = win->kernel_h * win->kernel_w;
    int32_t c, b, oy, ox;
    if (depth_multiplier != 1 || C % 4 || C > MAX_C || taps > MAX_TAPS ||
        !flex__dsp_rq_block(rq, bias, multiplier, shift, C))
        return 0;
    flex__dw_sums(filter, taps, C, q->input_offset, sums, zeros);
    for (c = 0; c < C; c++)
        rq[c].base = FLEX_WADD(rq[c].base, FLEX_WMUL(q->input_offset, sums[c]));
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++, output += C) {
                flex__dw_taps(in, input, win, b, oy, ox, zeros, x);
                dw_pixel(x, filter, taps, C, acc);
                flex__dsp_rq_apply(rq, acc, C, 1, q, output, 0);
            }
    return 1;
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex_s8_depthwise_conv2d) {
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    if (dw_dsp(in_dims, input, filter, bias, multiplier, shift, win, depth_multiplier, q,
               out_dims, output) ||
        flex__m0_depthwise(in_dims, input, filter, bias, multiplier, shift, win,
                           depth_multiplier, q, out_dims, output))
        return FLEX_OK;
    return flex__ref_s8_depthwise_conv2d(FLEX__ARGS_s8_depthwise_conv2d);
}

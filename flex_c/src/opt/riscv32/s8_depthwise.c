/* int8 depthwise convolution for RISC-V (rv32imc), depth multiplier 1: output pixel by
 * pixel, four channels at a time in registers over the window's taps. The input offset
 * enters once per channel as offset * sum(weights), folded into the bias; taps outside the
 * input read a row of zero points, which the folded offset cancels, exactly as TFLM
 * skipping them. Pixels are written in order, each after its taps are read, as the
 * reference does, so an output over its input needs no other order. Other depth
 * multipliers, more than MAX_C channels or MAX_TAPS taps use the reference kernel
 * (ref/ref.h). Stack: about 4.5 KB. */
#include "../../ref/ref.h"
#include "../portable/dw_taps.h"
#include "rv_requant.h"

#define MAX_C 128   /* channels (a pixel's sums and requantization records on the stack) */
#define MAX_TAPS 64 /* window taps */

/* acc[c] = sum over the taps of x[t][c] * w[t * C + c], eight channels a pass (a function
 * of its own, so that the compiler keeps its loop's values in registers). */
FLEX_HOT
__attribute__((noinline)) static void dw_pixel(const int8_t *const *x, const int8_t *w,
                                               int32_t taps, int32_t C, int32_t *acc) {
    int32_t c = 0, t;
    for (; c + 8 <= C; c += 8) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
        const int8_t *wt = w + c;
        for (t = 0; t < taps; t++, wt += C) {
            const int8_t *xt = x[t] + c;
            a0 += xt[0] * wt[0];
            a1 += xt[1] * wt[1];
            a2 += xt[2] * wt[2];
            a3 += xt[3] * wt[3];
            a4 += xt[4] * wt[4];
            a5 += xt[5] * wt[5];
            a6 += xt[6] * wt[6];
            a7 += xt[7] * wt[7];
        }
        acc[c] = a0, acc[c + 1] = a1, acc[c + 2] = a2, acc[c + 3] = a3;
        acc[c + 4] = a4, acc[c + 5] = a5, acc[c + 6] = a6, acc[c + 7] = a7;
    }
    for (; c < C; c++) {
        int32_t a = 0;
        for (t = 0; t < taps; t++)
            a += x[t][c] * w[t * C + c];
        acc[c] = a;
    }
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex_s8_depthwise_conv2d) {
    flex__rv_rq rq[MAX_C];
    int32_t acc[MAX_C], sums[MAX_C];
    const int8_t *x[MAX_TAPS];
    int8_t zeros[MAX_C];
    const flex_dims4 *in = in_dims, *out = out_dims;
    const int32_t C = in->c, taps = win->kernel_h * win->kernel_w;
    int32_t c, b, oy, ox;
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    if (depth_multiplier != 1 || C > MAX_C || taps > MAX_TAPS)
        return flex__ref_s8_depthwise_conv2d(FLEX__ARGS_s8_depthwise_conv2d);
    flex__dw_sums(filter, taps, C, C, q->input_offset, sums, zeros);
    for (c = 0; c < C; c++)
        flex__rv_rq_init(rq + c, FLEX_WADD(bias ? bias[c] : 0,
                                           FLEX_WMUL(q->input_offset, sums[c])),
                         multiplier[c], shift[c]);
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++, output += C) {
                flex__dw_taps(in, input, win, b, oy, ox, zeros, x);
                dw_pixel(x, filter, taps, C, acc);
                for (c = 0; c < C; c++)
                    output[c] = flex__rv_rq_apply(rq + c, acc[c], q);
            }
    return FLEX_OK;
}

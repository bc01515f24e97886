/* int8 depthwise convolution on the Arm DSP extension (depth multiplier 1, channels a
 * multiple of 4, up to MAX_C of them): output pixel by pixel, four channels at a time, each
 * tap one word of input and one of weights split into halves (SXTB16) and four 16-bit
 * multiply-accumulates (SMLABB, SMLATT). The input offset enters once per channel as
 * offset * sum(weights), folded with the bias into the requantization records
 * (dsp_requant.h); taps outside the input read a row of zero points, which the folded
 * offset cancels, exactly as TFLM skipping them. A 3 x 3 window (the common case) runs its
 * nine taps unrolled, from a copy of the weights grouped four channels by nine taps, so that
 * a tap's weights are one word at a fixed offset; a window inside the input finds its taps
 * from offsets made once. Pixels are written in order, each after
 * its taps are read, as the reference does, so an output over its input needs no other
 * order. Other shapes take the Cortex-M0+ paths (m0_dw_channels.h), then the reference
 * kernel (ref/ref.h). Stack: about 3.9 KB. */
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
                                               int32_t taps, int32_t C, int32_t stride,
                                               int32_t *acc) {
    int32_t c, t;
    for (c = 0; c < C; c += 4, acc += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        const int8_t *wt = w + c;
        for (t = 0; t < taps; t++, wt += stride) {
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

/* One tap of four channels: the word at [r0, #XOFF] (the tap's pixel address, or its offset
 * from the window's first pixel) plus r12 (c, or that pixel's address plus c) gives the
 * input word, [r1, #WOFF] the weight word; the three loads come together so that the last
 * two pipeline. Sums r4-r7 (channels 0-3); FIRST multiplies without adding, for tap 0. */
#define TAP(XOFF, WOFF, MLABB, MLATT, ACC4, ACC5, ACC6, ACC7) \
    "ldr r8, [r0, #" XOFF "]\n"                               \
    "ldr r8, [r8, r12]\n"                                     \
    "ldr r9, [r1, #" WOFF "]\n"                               \
    "sxtb16 r10, r8\n"                                        \
    "sxtb16 r11, r9\n"                                        \
    MLABB " r4, r10, r11" ACC4 "\n"                           \
    MLATT " r6, r10, r11" ACC6 "\n"                           \
    "sxtb16 r10, r8, ror #8\n"                                \
    "sxtb16 r11, r9, ror #8\n"                                \
    MLABB " r5, r10, r11" ACC5 "\n"                           \
    MLATT " r7, r10, r11" ACC7 "\n"
#define TAP_FIRST TAP("0", "0", "smulbb", "smultt", "", "", "", "")
#define TAP_NEXT(XOFF, WOFF) \
    TAP(XOFF, WOFF, "smlabb", "smlatt", ", r4", ", r5", ", r6", ", r7")

/* dw_pixel for a 3 x 3 window, its taps unrolled: r0 the nine taps' pixel addresses (base
 * 0) or their offsets from the window's first pixel (base that pixel's address), r1 w9
 * (nine weight words, tap by tap, per group of four channels, group after group:
 * group_taps9), r2 C (at least 4), r3 acc, [sp] base. */
FLEX_HOT
__attribute__((naked)) static void dw_pixel9(const void *taps, const int32_t *w9, int32_t C,
                                             int32_t *acc, const int8_t *base) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r11, lr}\n"
        "ldr r12, [sp, #36]\n"
        "add r2, r12\n"
        "1:\n"
        TAP_FIRST
        TAP_NEXT("4", "4")
        TAP_NEXT("8", "8")
        TAP_NEXT("12", "12")
        TAP_NEXT("16", "16")
        TAP_NEXT("20", "20")
        TAP_NEXT("24", "24")
        TAP_NEXT("28", "28")
        TAP_NEXT("32", "32")
        "stm r3!, {r4-r7}\n"
        "adds r1, #36\n"
        "adds r12, #4\n"
        "cmp r12, r2\n"
        "bne 1b\n"
        "pop {r4-r11, pc}\n");
}

/* The weights (filter[t * stride + c], nine taps, c < C) as dw_pixel9 reads them. */
static void group_taps9(const int8_t *filter, int32_t C, int32_t stride, int32_t *w9) {
    int32_t c, t;
    for (c = 0; c < C; c += 4)
        for (t = 0; t < 9; t++)
            *w9++ = flex__dsp_load(filter + t * stride + c);
}

/* off[t] = the byte offset of tap t's pixel from tap 0's, for a window inside the input. */
static void window_offsets(const flex_dims4 *in, const flex_window *win, int32_t *off) {
    int32_t ky, kx;
    for (ky = 0; ky < win->kernel_h; ky++)
        for (kx = 0; kx < win->kernel_w; kx++)
            *off++ = (ky * win->dilation_h * in->w + kx * win->dilation_w) * in->c;
}

/* Channels [c0, c0 + C) of every pixel (C a multiple of 4, at most MAX_C; the input's and
 * output's pixels are S = in->c channels apart); returns 0, writing nothing, where a
 * requantization needs the reference form. */
static int dw_channels(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                       const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                       const flex_window *win, const flex_s8_quant *q, const flex_dims4 *out,
                       int8_t *output, int32_t c0, int32_t C) {
    flex__dsp_rq rq[MAX_C];
    int32_t acc[MAX_C], sums[MAX_C], w9[MAX_C / 4 * 9];
    const int8_t *x[MAX_TAPS];
    int32_t off[MAX_TAPS];
    int8_t zeros[MAX_C];
    const int32_t S = in->c, taps = win->kernel_h * win->kernel_w;
    int32_t c, b, oy, ox, t;
    flex__dsp_rq_loop_fn requant;
    if (!flex__dsp_rq_block(rq, bias ? bias + c0 : NULL, multiplier + c0, shift + c0, C,
                            q->output_offset))
        return 0;
    input += c0;
    filter += c0;
    output += c0;
    flex__dw_sums(filter, taps, C, S, q->input_offset, sums, zeros);
    for (c = 0; c < C; c++)
        rq[c].base = FLEX_WADD(rq[c].base, FLEX_WMUL(q->input_offset, sums[c]));
    if (taps == 9)
        group_taps9(filter, C, S, w9);
    window_offsets(in, win, off);
    requant = flex__dsp_rq_loop(q);
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++, output += S) {
                const int32_t y0 = oy * win->stride_h - win->pad_top;
                const int32_t x0 = ox * win->stride_w - win->pad_left;
                const int8_t *first = NULL;
                if (y0 >= 0 && x0 >= 0 && y0 + (win->kernel_h - 1) * win->dilation_h < in->h &&
                    x0 + (win->kernel_w - 1) * win->dilation_w < in->w)
                    first = input + ((b * in->h + y0) * in->w + x0) * S;
                else
                    flex__dw_taps(in, input, win, b, oy, ox, zeros, x);
                if (taps == 9) {
                    dw_pixel9(first ? (const void *)off : (const void *)x, w9, C, acc, first);
                } else {
                    if (first)
                        for (t = 0; t < taps; t++)
                            x[t] = first + off[t];
                    dw_pixel(x, filter, taps, C, S, acc);
                }
                requant(rq, acc, acc + C, output, &q->output_offset);
            }
    return 1;
}

/* The DSP path; returns 0 for shapes it does not take. More channels than MAX_C go in
 * blocks of them, one pass over the pixels each, only when the output does not lie over the
 * input (a pass writes pixels whose input a later pass still reads); so a block refused
 * after others were written leaves the input whole for the paths after this one. */
static int dw_dsp(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                  const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                  const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
                  const flex_dims4 *out, int8_t *output) {
    const int32_t C = in->c, taps = win->kernel_h * win->kernel_w;
    const int8_t *input_end = input + in->n * in->h * in->w * C;
    const int8_t *output_end = output + out->n * out->h * out->w * C;
    int32_t c0;
    if (depth_multiplier != 1 || C % 4 || taps > MAX_TAPS)
        return 0;
    if (C > MAX_C && !(output_end <= input || input_end <= output))
        return 0;
    for (c0 = 0; c0 < C; c0 += MAX_C)
        if (!dw_channels(in, input, filter, bias, multiplier, shift, win, q, out, output, c0,
                         C - c0 < MAX_C ? C - c0 : MAX_C))
            return 0;
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

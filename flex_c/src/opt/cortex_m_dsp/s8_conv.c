/* int8 convolution on the Arm DSP extension: output pixels two at a time, each receptive
 * field gathered (patch.h; padding filled with the input zero point, so that it adds
 * nothing once the offset is added, exactly as TFLM skipping it) and widened with the input
 * offset (dsp_dot.h), then every output channel's dot products over both patches at once,
 * requantized (dsp_requant.h). Both patches are widened before either pixel is
 * written, so an output over its input (the .bst arena's in-place plan) needs no other
 * order. Grouped convolution and patches longer than PATCH_MAX use the reference kernel
 * (ref/ref.h); patches longer than half of it run one pixel at a time. A patch whose
 * length is not a multiple of 4 is padded with zeros, and so are the filter's rows, copied
 * into the widened vectors' spare words, where they fit. Stack: about 5 KB. */
#include "../../ref/ref.h"
#include "../portable/patch.h"
#include "dsp_dot.h"
#include "dsp_requant.h"

#define PATCH_MAX 1152 /* 3 x 3 x 128 */
#define XQ_WORDS FLEX_DSP_WORDS(PATCH_MAX)
#define OC_BLOCK 64    /* output channels per block of accumulators (two pixels each) */

/* Gathers output pixel p's patch (k elements, zero-padded to kp when kp > k) and widens it
 * into lane `lane` of `lanes` of xq. */
static void widen_pixel(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                        const flex_dims4 *out, int32_t p, int32_t k, int32_t kp,
                        int32_t input_offset, int32_t lanes, int32_t lane, int8_t *patch,
                        int32_t *xq) {
    const int32_t b = p / (out->h * out->w), oy = p / out->w % out->h, ox = p % out->w;
    const int8_t *x = flex__patch_gather(in, input, win, b, oy, ox, (int8_t)(-input_offset),
                                      patch);
    int32_t i;
    if (kp != k) {
        if (x != patch)
            flex__patch_copy_run(patch, x, k);
        for (i = k; i < kp; i++)
            patch[i] = 0;
        x = patch;
    }
    flex__dsp_widen(x, kp, input_offset, lanes, lane, xq);
}

/* The filter's rows of k weights with zeros appended to kp each, at dst. */
static void pad_rows(const int8_t *filter, int32_t k, int32_t kp, int32_t rows, int8_t *dst) {
    int32_t r, i;
    for (r = 0; r < rows; r++, filter += k, dst += kp)
        for (i = 0; i < kp; i++)
            dst[i] = i < k ? filter[i] : 0;
}

/* Requantizes channels [oc0, oc0 + n) of `lanes` pixels (acc[lanes * r + lane]) into
 * out + lane * out_c + oc0 + r, through the records rq when `fast` (dsp_requant.h). */
static void requant_block(const flex__dsp_rq *rq, int fast, const int32_t *acc,
                          int32_t lanes, int32_t oc0, int32_t n, const int32_t *bias,
                          const int32_t *multiplier, const int32_t *shift,
                          const flex_s8_quant *q, int32_t out_c, int8_t *out) {
    int32_t r, lane;
    if (fast) {
        flex__dsp_rq_apply(rq, acc, n, lanes, q, out + oc0, out_c);
        return;
    }
    for (r = 0; r < n; r++)
        for (lane = 0; lane < lanes; lane++)
            out[lane * out_c + oc0 + r] = flex__s8_requant(
                FLEX_WADD(acc[lanes * r + lane], bias ? bias[oc0 + r] : 0),
                multiplier[oc0 + r], shift[oc0 + r], q);
}

FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    int8_t patch[PATCH_MAX];
    int32_t xq[XQ_WORDS], acc[2 * OC_BLOCK];
    flex__dsp_rq rq[OC_BLOCK];
    int32_t k, kp, kr, OC, units, p, lanes, oc0, nb;
    const int8_t *w = filter;
    int fast = 0;
    FLEX__S8_CONV_PATCH(k, PATCH_MAX);
    OC = out_dims->c;
    units = out_dims->n * out_dims->h * out_dims->w;
    kp = k;
    kr = (k + 3) & ~3;
    if (kr != k && kr <= PATCH_MAX &&
        2 * FLEX_DSP_WORDS(kr) + (OC * kr + 3) / 4 <= XQ_WORDS) {
        /* rows padded to whole groups, in the widened vectors' spare words: no tails */
        kp = kr;
        w = (const int8_t *)(xq + 2 * FLEX_DSP_WORDS(kp));
        pad_rows(filter, k, kp, OC, (int8_t *)(xq + 2 * FLEX_DSP_WORDS(kp)));
    }
    if (OC <= OC_BLOCK) /* one block: its records serve every pixel */
        fast = flex__dsp_rq_block(rq, bias, multiplier, shift, OC, q->output_offset);
    for (p = 0; p < units; p += lanes) {
        lanes = p + 1 < units && 2 * FLEX_DSP_WORDS(kp) <= XQ_WORDS ? 2 : 1;
        widen_pixel(in_dims, input, win, out_dims, p, k, kp, q->input_offset, lanes, 0,
                    patch, xq);
        if (lanes == 2)
            widen_pixel(in_dims, input, win, out_dims, p + 1, k, kp, q->input_offset, 2, 1,
                        patch, xq);
        for (oc0 = 0; oc0 < OC; oc0 += nb) {
            nb = OC - oc0 < OC_BLOCK ? OC - oc0 : OC_BLOCK;
            if (lanes == 2)
                flex__dsp_dot_rows2(xq, kp, w + oc0 * kp, nb, acc);
            else
                flex__dsp_dot_rows(xq, kp, w + oc0 * kp, nb, acc);
            if (OC > OC_BLOCK)
                fast = flex__dsp_rq_block(rq, bias ? bias + oc0 : 0, multiplier + oc0,
                                          shift + oc0, nb, q->output_offset);
            requant_block(rq, fast, acc, lanes, oc0, nb, bias, multiplier, shift, q, OC,
                          output + p * OC);
        }
    }
    return FLEX_OK;
}

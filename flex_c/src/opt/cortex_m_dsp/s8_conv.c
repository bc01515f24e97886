/* int8 convolution on the Arm DSP extension: output pixels two at a time, each receptive
 * field gathered (patch.h; padding filled with the input zero point, so that it adds
 * nothing once the offset is added, exactly as TFLM skipping it) and widened with the input
 * offset (dsp_dot.h), then every output channel's dot products over both patches at once,
 * requantized (dsp_requant.h). Both patches are widened before either pixel is
 * written, so an output over its input (the .bst arena's in-place plan) needs no other
 * order. Grouped convolution and patches longer than PATCH_MAX use the reference kernel
 * (ref/ref.h); patches longer than half of it run one pixel at a time. A patch whose
 * length is not a multiple of 4 is padded with zeros, and so are the filter's rows, copied
 * into the widened vectors' spare words, where they fit. More output channels than a block
 * of accumulators go in a pass over the pixels per block, each block's requantization
 * records made once, when the output does not lie over the input. Stack: about 5 KB. */
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
    const int8_t *x;
    int32_t i;
    if (flex__patch_pointwise(in, win, out)) {
        x = input + p * in->c; /* the patch is the pixel */
    } else {
        const int32_t b = p / (out->h * out->w), oy = p / out->w % out->h, ox = p % out->w;
        x = flex__patch_gather(in, input, win, b, oy, ox, (int8_t)(-input_offset), patch);
    }
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

/* What one pass over the pixels needs (flex_s8_conv2d's arguments and buffers). */
typedef struct {
    const flex_dims4 *in, *out;
    const int8_t *input, *w; /* w: the filter, its rows kp long */
    const flex_window *win;
    const int32_t *bias, *multiplier, *shift;
    const flex_s8_quant *q;
    int32_t k, kp, OC, units;
    int8_t *output, *patch;
    int32_t *xq, *acc;
    flex__dsp_rq *rq;
} conv_pass;

/* Output channels [oc_lo, oc_hi) of every pixel, two pixels at a time, in blocks of
 * OC_BLOCK; `fast` says rq already holds the records of a range of one block (else each
 * block makes its records, where the shifts allow). */
static void conv_pixels(const conv_pass *c, int32_t oc_lo, int32_t oc_hi, int fast) {
    const int one_block = oc_hi - oc_lo <= OC_BLOCK;
    int32_t p, lanes, oc0, nb;
    for (p = 0; p < c->units; p += lanes) {
        lanes = p + 1 < c->units && 2 * FLEX_DSP_WORDS(c->kp) <= XQ_WORDS ? 2 : 1;
        widen_pixel(c->in, c->input, c->win, c->out, p, c->k, c->kp, c->q->input_offset,
                    lanes, 0, c->patch, c->xq);
        if (lanes == 2)
            widen_pixel(c->in, c->input, c->win, c->out, p + 1, c->k, c->kp,
                        c->q->input_offset, 2, 1, c->patch, c->xq);
        for (oc0 = oc_lo; oc0 < oc_hi; oc0 += nb) {
            nb = oc_hi - oc0 < OC_BLOCK ? oc_hi - oc0 : OC_BLOCK;
            if (lanes == 2)
                flex__dsp_dot_rows2(c->xq, c->kp, c->w + oc0 * c->kp, nb, c->acc);
            else
                flex__dsp_dot_rows(c->xq, c->kp, c->w + oc0 * c->kp, nb, c->acc);
            if (!one_block)
                fast = flex__dsp_rq_block(c->rq, c->bias ? c->bias + oc0 : 0,
                                          c->multiplier + oc0, c->shift + oc0, nb,
                                          c->q->output_offset);
            requant_block(c->rq, fast, c->acc, lanes, oc0, nb, c->bias, c->multiplier,
                          c->shift, c->q, c->OC, c->output + p * c->OC);
        }
    }
}

/* Whether the output and the input share no byte (then passes over the pixels may write
 * some channels of every pixel before reading the input again). */
static int apart(const conv_pass *c) {
    const int8_t *in_end = c->input + c->in->n * c->in->h * c->in->w * c->in->c;
    const int8_t *out_end = c->output + c->units * c->OC;
    return out_end <= c->input || in_end <= c->output;
}

FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    int8_t patch[PATCH_MAX];
    int32_t xq[XQ_WORDS], acc[2 * OC_BLOCK];
    flex__dsp_rq rq[OC_BLOCK];
    int32_t k, kr, oc0, nb;
    conv_pass c;
    FLEX__S8_CONV_PATCH(k, PATCH_MAX);
    c.in = in_dims;
    c.out = out_dims;
    c.input = input;
    c.w = filter;
    c.win = win;
    c.bias = bias;
    c.multiplier = multiplier;
    c.shift = shift;
    c.q = q;
    c.k = c.kp = k;
    c.OC = out_dims->c;
    c.units = out_dims->n * out_dims->h * out_dims->w;
    c.output = output;
    c.patch = patch;
    c.xq = xq;
    c.acc = acc;
    c.rq = rq;
    kr = (k + 3) & ~3;
    if (kr != k && kr <= PATCH_MAX &&
        2 * FLEX_DSP_WORDS(kr) + (c.OC * kr + 3) / 4 <= XQ_WORDS) {
        /* rows padded to whole groups, in the widened vectors' spare words: no tails */
        c.kp = kr;
        c.w = (const int8_t *)(xq + 2 * FLEX_DSP_WORDS(kr));
        pad_rows(filter, k, kr, c.OC, (int8_t *)(xq + 2 * FLEX_DSP_WORDS(kr)));
    }
    if (c.OC <= OC_BLOCK || !apart(&c)) {
        /* one block, its records made once; or an output over the input, every pixel's
         * channels at once (records made per block) */
        conv_pixels(&c, 0, c.OC,
                    c.OC <= OC_BLOCK && flex__dsp_rq_block(rq, bias, multiplier, shift, c.OC,
                                                           q->output_offset));
        return FLEX_OK;
    }
    for (oc0 = 0; oc0 < c.OC; oc0 += nb) { /* a pass per block, its records made once */
        nb = c.OC - oc0 < OC_BLOCK ? c.OC - oc0 : OC_BLOCK;
        conv_pixels(&c, oc0, oc0 + nb,
                    flex__dsp_rq_block(rq, bias ? bias + oc0 : 0, multiplier + oc0,
                                       shift + oc0, nb, q->output_offset));
    }
    return FLEX_OK;
}

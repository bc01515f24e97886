/* int8 convolution for RISC-V (rv32imc): output pixels two at a time, each receptive field
 * gathered (portable/patch.h; padding filled with the input zero point, so that it adds
 * nothing once the offset is added, exactly as TFLM skipping it) and widened with the
 * input offset, then four output channels at a time over both patches (rv_dot.h), each
 * output requantized as the reference does. Both patches are widened before either pixel
 * is written, so an output over its input (the .bst arena's in-place plan) needs no other
 * order. Grouped convolution and patches longer than PATCH_MAX use the reference kernel
 * (ref/ref.h). Stack: about 7.5 KB. */
#include "../../ref/ref.h"
#include "../portable/patch.h"
#include "rv_dot.h"
#include "rv_requant.h"

#define PATCH_MAX 1152 /* 3 x 3 x 128 */
#define OC_BLOCK 32    /* output channels per block of accumulators and records */

/* Gathers output pixel p's patch (k elements) and widens it into lane `lane` of `lanes`
 * of xq. */
static void widen_pixel(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                        const flex_dims4 *out, int32_t p, int32_t k, int32_t input_offset,
                        int32_t lanes, int32_t lane, int8_t *patch, int16_t *xq) {
    const int32_t b = p / (out->h * out->w), oy = p / out->w % out->h, ox = p % out->w;
    flex__rv_widen(flex__patch_gather(in, input, win, b, oy, ox, (int8_t)(-input_offset),
                                      patch),
                   k, input_offset, lanes, xq + lane);
}

FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    int8_t patch[PATCH_MAX];
    int16_t xq[2 * PATCH_MAX];
    int32_t acc[2 * OC_BLOCK];
    flex__rv_rq rq[OC_BLOCK];
    int32_t k, OC, units, p, lanes, oc0, nb, r, lane;
    FLEX__S8_CONV_PATCH(k, PATCH_MAX);
    OC = out_dims->c;
    units = out_dims->n * out_dims->h * out_dims->w;
    for (r = 0; r < OC && OC <= OC_BLOCK; r++) /* one block: its records serve every pixel */
        flex__rv_rq_init(rq + r, bias ? bias[r] : 0, multiplier[r], shift[r]);
    for (p = 0; p < units; p += lanes) {
        lanes = p + 1 < units ? 2 : 1;
        widen_pixel(in_dims, input, win, out_dims, p, k, q->input_offset, lanes, 0, patch, xq);
        if (lanes == 2)
            widen_pixel(in_dims, input, win, out_dims, p + 1, k, q->input_offset, 2, 1, patch,
                        xq);
        for (oc0 = 0; oc0 < OC; oc0 += nb) {
            nb = OC - oc0 < OC_BLOCK ? OC - oc0 : OC_BLOCK;
            flex__rv_dot_rows(xq, lanes, k, filter + oc0 * k, nb, acc);
            for (r = 0; r < nb && OC > OC_BLOCK; r++)
                flex__rv_rq_init(rq + r, bias ? bias[oc0 + r] : 0, multiplier[oc0 + r],
                                 shift[oc0 + r]);
            for (r = 0; r < nb; r++)
                for (lane = 0; lane < lanes; lane++)
                    output[(p + lane) * OC + oc0 + r] =
                        flex__rv_rq_apply(rq + r, acc[lanes * r + lane], q);
        }
    }
    return FLEX_OK;
}

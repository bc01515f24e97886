/* int8 convolution on Helium (MVE): for each output pixel its receptive field is gathered
 * (patch.h; padding filled with the input zero point, which adds nothing once the offset is
 * added, exactly as TFLM skipping it), then the output channels four at a time: per 16
 * elements one load of the patch and, for each channel, a load of its weights and one
 * VMLAVA; the last elements through tail predication. The input offset is folded into the
 * bias: sum(w (x + offset)) = sum(w x) + offset sum(w), each channel's sum(w) taken once per
 * call. The four channels' sums are requantized as one vector (mve_requant.h). The patch
 * is gathered before any of its pixel's outputs is written, so an output over its input
 * (the .bst arena's in-place plan) needs no other order. Grouped convolution, patches
 * longer than PATCH_MAX and more than OC_MAX output channels use the reference kernel
 * (ref/ref.h). Stack: about 4.5 KB. */
#include "../../ref/ref.h"
#include "../portable/patch.h"
#include "mve_dot.h"

#define PATCH_MAX 1152 /* 3 x 3 x 128 */
#define OC_MAX 256

FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    int8_t patch[PATCH_MAX];
    int32_t rec[FLEX_MVE_RECORD_WORDS(OC_MAX)];
    int32_t k, b, oy, ox;
    const int32_t OC = out_dims->c;
    const int8_t fill = (int8_t)(-q->input_offset);
    int8_t *out = output;
    FLEX__S8_CONV_PATCH(k, PATCH_MAX);
    if (OC > OC_MAX)
        return flex__ref_s8_conv2d(FLEX__ARGS_s8_conv2d);
    flex__mve_records(filter, k, OC, bias, q->input_offset, multiplier, shift, 0, rec);
    if (flex__patch_pointwise(in_dims, win, out_dims)) {
        const int32_t units = out_dims->n * out_dims->h * out_dims->w;
        const int8_t *in_end = input + units * k, *out_end = output + units * OC;
        const int apart = out_end <= input || in_end <= output;
        const int8_t *x = input;
        for (b = 0; b < units; b++, x += k, out += OC) {
            if (!apart) /* the pixel's outputs may lie over its inputs */
                flex__patch_copy_run(patch, x, k);
            flex__mve_rows(apart ? x : patch, k, filter, OC, rec, q, out);
        }
        return FLEX_OK;
    }
    for (b = 0; b < out_dims->n; b++)
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++, out += OC) {
                const int8_t *x = flex__patch_gather(in_dims, input, win, b, oy, ox, fill,
                                                     patch);
                if (x != patch)
                    flex__patch_copy_run(patch, x, k);
                flex__mve_rows(patch, k, filter, OC, rec, q, out);
            }
    return FLEX_OK;
}

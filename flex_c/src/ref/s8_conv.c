/* int8 convolution and depthwise convolution, NHWC, as TFLM's reference_integer_ops
 * (flex__ref_*: entry/s8_conv.c or an opt/<target>/s8_conv.c names them flex_*). */
#include "ref.h"

FLEX__SIGNATURE_s8_conv2d(flex__ref_s8_conv2d) {
    int32_t b, oy, ox, oc, ky, kx, iy, ix, ic, fic, per_group;
    const int32_t H = in_dims ? in_dims->h : 0, W = in_dims ? in_dims->w : 0;
    FLEX_TRY(flex__s8_conv_check(FLEX__ARGS_s8_conv2d));
    fic = in_dims->c / groups;
    per_group = out_dims->c / groups;
    for (b = 0; b < out_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (oc = 0; oc < out_dims->c; oc++) {
                    uint32_t acc = 0;
                    const int32_t in_c0 = (oc / per_group) * fic;
                    FLEX__FOR_TAPS(win, H, W, oy, ox, ky, kx, iy, ix,
                        const int8_t *ip = input + ((b * H + iy) * W + ix) * in_dims->c + in_c0;
                        const int8_t *fp =
                            filter + ((oc * win->kernel_h + ky) * win->kernel_w + kx) * fic;
                        for (ic = 0; ic < fic; ic++)
                            acc += (uint32_t)(fp[ic] * (ip[ic] + q->input_offset));)
                    if (bias)
                        acc += (uint32_t)bias[oc];
                    *output++ = flex__s8_requant((int32_t)acc, multiplier[oc], shift[oc], q);
                }
            }
        }
    }
    return FLEX_OK;
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex__ref_s8_depthwise_conv2d) {
    int32_t b, oy, ox, oc, ky, kx, iy, ix;
    const int32_t H = in_dims ? in_dims->h : 0, W = in_dims ? in_dims->w : 0;
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    for (b = 0; b < out_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (oc = 0; oc < out_dims->c; oc++) {
                    uint32_t acc = 0;
                    const int32_t ic = oc / depth_multiplier;
                    FLEX__FOR_TAPS(win, H, W, oy, ox, ky, kx, iy, ix,
                        const int32_t x = input[((b * H + iy) * W + ix) * in_dims->c + ic];
                        acc += (uint32_t)(filter[(ky * win->kernel_w + kx) * out_dims->c + oc] *
                                          (x + q->input_offset));)
                    if (bias)
                        acc += (uint32_t)bias[oc];
                    *output++ = flex__s8_requant((int32_t)acc, multiplier[oc], shift[oc], q);
                }
            }
        }
    }
    return FLEX_OK;
}

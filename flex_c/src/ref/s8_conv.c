/* int8 convolution and depthwise convolution, NHWC, as TFLM's reference_integer_ops
 * (flex__ref_*: entry/s8_conv.c or an opt/<target>/s8_conv.c names them flex_*). */
#include "ref.h"

/* The loop of both, after their checks: output channel oc sums input channels
 * [(oc / per_group) * fic, + fic) against its filter taps, tap t's at
 * filter + oc * s_oc + t * s_tap (fic of them). A convolution's filter is [oc][tap][fic];
 * a depthwise one's is [tap][oc], one input channel per group of per_group (the depth
 * multiplier) outputs. */
static flex_status conv_loop(const flex_dims4 *in_dims, const int8_t *input,
                             const int8_t *filter, const int32_t *bias,
                             const int32_t *multiplier, const int32_t *shift,
                             const flex_window *win, int32_t fic, int32_t per_group,
                             int32_t s_oc, int32_t s_tap, const flex_s8_quant *q,
                             const flex_dims4 *out_dims, int8_t *output) {
    int32_t b, oy, ox, oc, ky, kx, iy, ix, ic;
    const int32_t H = in_dims->h, W = in_dims->w;
    for (b = 0; b < out_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (oc = 0; oc < out_dims->c; oc++) {
                    uint32_t acc = 0;
                    const int32_t in_c0 = (oc / per_group) * fic;
                    FLEX__FOR_TAPS(win, H, W, oy, ox, ky, kx, iy, ix,
                        const int8_t *ip = input + ((b * H + iy) * W + ix) * in_dims->c + in_c0;
                        const int8_t *fp =
                            filter + oc * s_oc + (ky * win->kernel_w + kx) * s_tap;
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

FLEX__SIGNATURE_s8_conv2d(flex__ref_s8_conv2d) {
    int32_t fic;
    FLEX_TRY(flex__s8_conv_check(FLEX__ARGS_s8_conv2d));
    fic = in_dims->c / groups;
    return conv_loop(in_dims, input, filter, bias, multiplier, shift, win, fic,
                     out_dims->c / groups, win->kernel_h * win->kernel_w * fic, fic, q,
                     out_dims, output);
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex__ref_s8_depthwise_conv2d) {
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    return conv_loop(in_dims, input, filter, bias, multiplier, shift, win, 1,
                     depth_multiplier, 1, out_dims->c, q, out_dims, output);
}

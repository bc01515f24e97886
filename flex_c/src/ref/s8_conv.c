/* int8 convolution and depthwise convolution, NHWC, as TFLM's reference_integer_ops
 * (flex__ref_*: entry/s8_conv.c or an opt/<target>/s8_conv.c names them flex_*). */
#include "ref.h"

flex_status flex__ref_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input,
                                size_t input_len, const int8_t *filter, size_t filter_len,
                                const int32_t *bias, size_t bias_len,
                                const int32_t *multiplier, const int32_t *shift,
                                size_t quant_len, const flex_window *win, int32_t groups,
                                const flex_s8_quant *q, const flex_dims4 *out_dims,
                                int8_t *output, size_t output_len) {
    int32_t b, oy, ox, oc, ky, kx, ic, fic, per_group;
    const int32_t H = in_dims ? in_dims->h : 0, W = in_dims ? in_dims->w : 0;
    FLEX_TRY(flex__s8_conv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                                 multiplier, shift, quant_len, win, groups, q, out_dims, output,
                                 output_len));
    fic = in_dims->c / groups;
    per_group = out_dims->c / groups;
    for (b = 0; b < out_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (oc = 0; oc < out_dims->c; oc++) {
                    uint32_t acc = 0;
                    const int32_t in_c0 = (oc / per_group) * fic;
                    for (ky = 0; ky < win->kernel_h; ky++) {
                        const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
                        if (iy < 0 || iy >= H)
                            continue;
                        for (kx = 0; kx < win->kernel_w; kx++) {
                            const int32_t ix =
                                ox * win->stride_w - win->pad_left + kx * win->dilation_w;
                            const int8_t *ip, *fp;
                            if (ix < 0 || ix >= W)
                                continue;
                            ip = input + ((b * H + iy) * W + ix) * in_dims->c + in_c0;
                            fp = filter + ((oc * win->kernel_h + ky) * win->kernel_w + kx) * fic;
                            for (ic = 0; ic < fic; ic++)
                                acc += (uint32_t)(fp[ic] * (ip[ic] + q->input_offset));
                        }
                    }
                    if (bias)
                        acc += (uint32_t)bias[oc];
                    *output++ = flex__s8_requant((int32_t)acc, multiplier[oc], shift[oc], q);
                }
            }
        }
    }
    return FLEX_OK;
}

flex_status flex__ref_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int32_t b, oy, ox, oc, ky, kx;
    const int32_t H = in_dims ? in_dims->h : 0, W = in_dims ? in_dims->w : 0;
    FLEX_TRY(flex__s8_depthwise_check(in_dims, input, input_len, filter, filter_len, bias,
                                      bias_len, multiplier, shift, quant_len, win,
                                      depth_multiplier, q, out_dims, output, output_len));
    for (b = 0; b < out_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (oc = 0; oc < out_dims->c; oc++) {
                    uint32_t acc = 0;
                    const int32_t ic = oc / depth_multiplier;
                    for (ky = 0; ky < win->kernel_h; ky++) {
                        const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
                        if (iy < 0 || iy >= H)
                            continue;
                        for (kx = 0; kx < win->kernel_w; kx++) {
                            const int32_t ix =
                                ox * win->stride_w - win->pad_left + kx * win->dilation_w;
                            int32_t x;
                            if (ix < 0 || ix >= W)
                                continue;
                            x = input[((b * H + iy) * W + ix) * in_dims->c + ic];
                            acc += (uint32_t)(filter[(ky * win->kernel_w + kx) * out_dims->c + oc] *
                                              (x + q->input_offset));
                        }
                    }
                    if (bias)
                        acc += (uint32_t)bias[oc];
                    *output++ = flex__s8_requant((int32_t)acc, multiplier[oc], shift[oc], q);
                }
            }
        }
    }
    return FLEX_OK;
}

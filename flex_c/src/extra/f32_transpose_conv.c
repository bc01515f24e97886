/* float32 transposed convolution: TFLM's reference TransposeConv, summed in its order. */
#include "transpose_conv.h"

flex_status flex_f32_nhwc_transpose_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_transpose_window *win,
                                           int32_t act, const flex_dims4 *out_dims,
                                           float *output, size_t output_len) {
    int32_t b, oy, ox, oc, ky, kx, ic, iy, ix;
    float lo, hi;
    FLEX_TRY(flex__tconv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                               win, out_dims, output, output_len));
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
    for (b = 0; b < out_dims->n; b++)
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++)
                for (oc = 0; oc < out_dims->c; oc++) {
                    float acc = 0.0f;
                    for (ky = win->kernel_h - 1; ky >= 0; ky--) {
                        iy = flex__tconv_source(oy, ky, win->stride_h, win->pad_top,
                                                in_dims->h);
                        if (iy < 0)
                            continue;
                        for (kx = win->kernel_w - 1; kx >= 0; kx--) {
                            const float *ip, *fp;
                            ix = flex__tconv_source(ox, kx, win->stride_w, win->pad_left,
                                                    in_dims->w);
                            if (ix < 0)
                                continue;
                            ip = input + ((b * in_dims->h + iy) * in_dims->w + ix) * in_dims->c;
                            fp = filter + ((oc * win->kernel_h + ky) * win->kernel_w + kx) *
                                              in_dims->c;
                            for (ic = 0; ic < in_dims->c; ic++)
                                acc += ip[ic] * fp[ic];
                        }
                    }
                    if (bias)
                        acc += bias[oc];
                    *output++ = acc < lo ? lo : (acc > hi ? hi : acc);
                }
    return FLEX_OK;
}

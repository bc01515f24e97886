/* int8 transposed convolution, bit-exact with TFLM's reference TransposeConv. */
#include "../common/s8_checks.h"
#include "transpose_conv.h"

flex_status flex_s8_transpose_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_transpose_window *win, const flex_s8_quant *q, const flex_dims4 *out_dims,
    int8_t *output, size_t output_len) {
    int32_t b, oy, ox, oc, ky, kx, ic, iy, ix;
    FLEX_TRY(flex__tconv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                               win, out_dims, output, output_len));
    if (!multiplier || !shift || !q)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_len(quant_len, out_dims->c));
    FLEX_TRY(flex__check_shifts(shift, out_dims->c));
    FLEX_TRY(flex__check_s8_quant(q));
    for (b = 0; b < out_dims->n; b++)
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++)
                for (oc = 0; oc < out_dims->c; oc++) {
                    uint32_t acc = 0;
                    for (ky = win->kernel_h - 1; ky >= 0; ky--) {
                        iy = flex__tconv_source(oy, ky, win->stride_h, win->pad_top,
                                                in_dims->h);
                        if (iy < 0)
                            continue;
                        for (kx = win->kernel_w - 1; kx >= 0; kx--) {
                            const int8_t *ip, *fp;
                            ix = flex__tconv_source(ox, kx, win->stride_w, win->pad_left,
                                                    in_dims->w);
                            if (ix < 0)
                                continue;
                            ip = input + ((b * in_dims->h + iy) * in_dims->w + ix) * in_dims->c;
                            fp = filter + ((oc * win->kernel_h + ky) * win->kernel_w + kx) *
                                              in_dims->c;
                            for (ic = 0; ic < in_dims->c; ic++)
                                acc += (uint32_t)(fp[ic] * (ip[ic] + q->input_offset));
                        }
                    }
                    if (bias)
                        acc += (uint32_t)bias[oc];
                    *output++ = flex__s8_requant((int32_t)acc, multiplier[oc], shift[oc], q);
                }
    return FLEX_OK;
}

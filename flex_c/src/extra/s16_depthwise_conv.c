/* int16x8 depthwise convolution, as TFLM's reference DepthwiseConvPerChannel for int16. */
#include "s16.h"

flex_status flex_s16_depthwise_conv2d(
    const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, int32_t act_min, int32_t act_max,
    const flex_dims4 *out_dims, int16_t *output, size_t output_len) {
    int32_t b, oy, ox, c, ky, kx, y, x, oc, count;
    if (!in_dims || !out_dims || !win || !filter)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_io(in_dims, input, input_len, win, out_dims, output, output_len, 0));
    if (depth_multiplier < 1 || in_dims->n != out_dims->n)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(in_dims->c, depth_multiplier, &oc));
    if (oc != out_dims->c)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(oc, win->kernel_h, &count));
    FLEX_TRY(flex__product(count, win->kernel_w, &count));
    FLEX_TRY(flex__check_len(filter_len, count));
    FLEX_TRY(flex__s16_check_tables(bias, bias_len, multiplier, shift, quant_len, oc, 1,
                                    act_min, act_max));
    for (b = 0; b < in_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (c = 0; c < oc; c++) {
                    int64_t acc = bias ? bias[c] : 0;
                    FLEX__FOR_TAPS(win, in_dims->h, in_dims->w, oy, ox, ky, kx, y, x,
                        acc += (int32_t)filter[(ky * win->kernel_w + kx) * oc + c] *
                               input[((b * in_dims->h + y) * in_dims->w + x) * in_dims->c +
                                     c / depth_multiplier];)
                    *output++ = (int16_t)flex__clamp(
                        flex__mbqm64(acc, multiplier[c], shift[c]), act_min, act_max);
                }
            }
        }
    }
    return FLEX_OK;
}

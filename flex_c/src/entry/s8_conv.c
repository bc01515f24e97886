/* int8 convolution and depthwise convolution of a target without an opt/<target>/s8_conv.c:
 * the reference kernels. */
#include "../ref/ref.h"

flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return flex__ref_s8_conv2d(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                               multiplier, shift, quant_len, win, groups, q, out_dims, output,
                               output_len);
}

flex_status flex_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return flex__ref_s8_depthwise_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                         bias_len, multiplier, shift, quant_len, win,
                                         depth_multiplier, q, out_dims, output, output_len);
}

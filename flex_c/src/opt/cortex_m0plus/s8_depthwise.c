/* Cortex-M0+ int8 depthwise convolution: a 3x3 window runs channel by channel over a tile
 * (m0_depthwise.c), other shapes walk channels innermost (m0_dw_channels.c); what neither
 * takes uses the reference kernel (ref/ref.h). */
#include "../../ref/ref.h"
#include "m0_dw_channels.h"

flex_status flex_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    FLEX_TRY(flex__s8_depthwise_check(in_dims, input, input_len, filter, filter_len, bias,
                                      bias_len, multiplier, shift, quant_len, win,
                                      depth_multiplier, q, out_dims, output, output_len));
    if (flex__m0_depthwise(in_dims, input, filter, bias, multiplier, shift, win,
                           depth_multiplier, q, out_dims, output))
        return FLEX_OK;
    return flex__ref_s8_depthwise_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                         bias_len, multiplier, shift, quant_len, win,
                                         depth_multiplier, q, out_dims, output, output_len);
}

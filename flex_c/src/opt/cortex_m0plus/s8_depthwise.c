/* Cortex-M0+ int8 depthwise convolution: a 3x3 window runs channel by channel over a tile
 * (m0_depthwise.c), other shapes walk channels innermost (m0_dw_channels.c); what neither
 * takes uses the reference kernel (ref/ref.h). */
#include "../../ref/ref.h"
#include "m0_dw_channels.h"

FLEX__SIGNATURE_s8_depthwise_conv2d(flex_s8_depthwise_conv2d) {
    FLEX_TRY(flex__s8_depthwise_check(FLEX__ARGS_s8_depthwise_conv2d));
    if (flex__m0_depthwise(in_dims, input, filter, bias, multiplier, shift, win,
                           depth_multiplier, q, out_dims, output))
        return FLEX_OK;
    return flex__ref_s8_depthwise_conv2d(FLEX__ARGS_s8_depthwise_conv2d);
}

/* Depthwise convolution that walks channels innermost (m0_dw_channels.c), for s8_conv.c. */
#ifndef FLEX_M0_DW_CHANNELS_H
#define FLEX_M0_DW_CHANNELS_H

#include "../../common/s8_checks.h"
#include "m0_depthwise.h"

/* Depthwise convolution of checked arguments (flex__s8_depthwise_check) with depth
 * multiplier 1; returns 0, writing nothing, for other depth multipliers. */
int flex__m0_dw_channels(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                         const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                         const flex_window *win, int32_t depth_multiplier,
                         const flex_s8_quant *q, const flex_dims4 *out, int8_t *output);

/* The Cortex-M0+ depthwise paths in turn (flex__m0_depthwise_3x3, then
 * flex__m0_dw_channels); returns 0, writing nothing, when neither takes the shape. */
FLEX_INLINE int flex__m0_depthwise(const flex_dims4 *in, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias,
                                   const int32_t *multiplier, const int32_t *shift,
                                   const flex_window *win, int32_t depth_multiplier,
                                   const flex_s8_quant *q, const flex_dims4 *out,
                                   int8_t *output) {
    return flex__m0_depthwise_3x3(in, input, filter, bias, multiplier, shift, win,
                                  depth_multiplier, q, out, output) ||
           flex__m0_dw_channels(in, input, filter, bias, multiplier, shift, win,
                                depth_multiplier, q, out, output);
}

#endif

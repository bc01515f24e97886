/* Cortex-M0+ 3x3 depthwise convolution over a tile (m0_depthwise.c), used by s8_conv.c. */
#ifndef FLEX_M0_DEPTHWISE_H
#define FLEX_M0_DEPTHWISE_H

#include "../../common/s8_checks.h"

/* Depthwise convolution of checked arguments (flex__s8_depthwise_check) with a 3x3 window,
 * depth multiplier 1, no dilation and channels a multiple of 4, where the tile plan fits;
 * returns 0, writing nothing, for other shapes (and for an output over its input that the
 * channel groups could overwrite before reading). */
int flex__m0_depthwise_3x3(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                            const int32_t *bias, const int32_t *multiplier,
                            const int32_t *shift, const flex_window *win,
                            int32_t depth_multiplier, const flex_s8_quant *q,
                            const flex_dims4 *out, int8_t *output);

#endif

/* Shared checks of the int8 conv / depthwise / fully connected kernels. */
#ifndef FLEX_S8_CHECKS_H
#define FLEX_S8_CHECKS_H

#include "internal.h"

flex_status flex__s8_conv_check(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                                const int8_t *filter, size_t filter_len,
                                const int32_t *bias, size_t bias_len,
                                const int32_t *multiplier, const int32_t *shift,
                                size_t quant_len, const flex_window *win, int32_t groups,
                                const flex_s8_quant *q, const flex_dims4 *out_dims,
                                const int8_t *output, size_t output_len);
flex_status flex__s8_depthwise_check(const flex_dims4 *in_dims, const int8_t *input,
                                     size_t input_len, const int8_t *filter, size_t filter_len,
                                     const int32_t *bias, size_t bias_len,
                                     const int32_t *multiplier, const int32_t *shift,
                                     size_t quant_len, const flex_window *win,
                                     int32_t depth_multiplier, const flex_s8_quant *q,
                                     const flex_dims4 *out_dims, const int8_t *output,
                                     size_t output_len);
flex_status flex__s8_fc_check(int32_t batches, int32_t in_features, int32_t out_features,
                              const int8_t *input, size_t input_len,
                              const int8_t *filter, size_t filter_len, int32_t filter_offset,
                              const int32_t *bias, size_t bias_len,
                              const int32_t *multiplier, const int32_t *shift,
                              size_t quant_len, const flex_s8_quant *q,
                              const int8_t *output, size_t output_len);
/* Whether int8 buffers a[0:a_len] and b[0:b_len] share a byte: an output that the .bst arena
 * placed over a dying input (docs/bst-format.md, "Arena and in-place execution"). Kernels
 * that do not write output units in increasing order, each after every input that it and
 * the units before it read, must then take an order that does. */
FLEX_INLINE int flex__s8_overlap(const int8_t *a, size_t a_len, const int8_t *b, size_t b_len) {
    return (uintptr_t)a < (uintptr_t)b + b_len && (uintptr_t)b < (uintptr_t)a + a_len;
}

/* Requantize an accumulator (bias included): MBQM, add the output offset, clamp. */
int8_t flex__s8_requant(int32_t acc, int32_t multiplier, int32_t shift, const flex_s8_quant *q);

#endif

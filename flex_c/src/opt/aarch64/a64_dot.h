/* AArch64 int8 matrix rows with the dot-product extension (a64_dot.c), shared by the fully
 * connected kernel and the pointwise convolution: every row of an int8 input times every
 * row of the filter, with the input offset, requantized as the reference does. */
#ifndef FLEX_A64_DOT_H
#define FLEX_A64_DOT_H

#include "../../common/s8_checks.h"

#define FLEX_A64_ROW_MAX 4096 /* the longest input row (copied onto the stack) */

/* output[r * n + o] = requant(sum_{i<k} filter[o * k + i] * (input[r * k + i] +
 * q->input_offset) + bias[o]) for rows r < rows and outputs o < n, with multiplier[o] and
 * shift[o] when per_channel, else multiplier[0] and shift[0]; bias may be NULL; k at most
 * FLEX_A64_ROW_MAX. Each input row is copied before its outputs are written, so an output
 * over its input needs no other order. */
void flex__a64_s8_rows(int32_t rows, int32_t k, const int8_t *input, int32_t n,
                       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
                       const int32_t *shift, int32_t per_channel, const flex_s8_quant *q,
                       int8_t *output);

#endif

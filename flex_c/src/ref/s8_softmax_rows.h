/* The int8 softmax of TFLM's reference kernel (gemmlowp fixed point), with int8 outputs
 * (flex_s8_softmax, ref/s8_activation.c) or int16 ones (flex_s8_softmax_s16, extra/): one
 * static inline body, so that each build compiles only the width it uses. */
#ifndef FLEX_S8_SOFTMAX_ROWS_H
#define FLEX_S8_SOFTMAX_ROWS_H

#include "../common/internal.h"

/* Softmax keeps TFLM's 12-integer-bit sum exact up to this depth. */
#define FLEX_SOFTMAX_MAX_DEPTH 4095

FLEX_INLINE int32_t flex__softmax_scaled_diff(int32_t diff, int32_t multiplier,
                                             int32_t left_shift) {
    /* MultiplyByQuantizedMultiplierGreaterThanOne */
    return flex__srdhm((int32_t)((uint32_t)diff << left_shift), multiplier);
}

/* Softmax over the last axis of [outer, depth] int8 rows: each output the probability in
 * units of 2^-out_bits, offset by the output type's minimum (out_bits 8: int8 at scale
 * 1/256, zero point -128; 16: int16 at scale 1/65536, zero point -32768). */
FLEX_INLINE flex_status flex__s8_softmax_rows(int32_t outer, int32_t depth,
                                              const int8_t *input, size_t input_len,
                                              int32_t input_multiplier,
                                              int32_t input_left_shift, int32_t diff_min,
                                              int out_bits, void *output,
                                              size_t output_len) {
    const int32_t lo = -(1 << (out_bits - 1)), hi = (1 << (out_bits - 1)) - 1;
    int32_t i, c;
    FLEX_TRY(flex__check_rows(outer, depth, FLEX_SOFTMAX_MAX_DEPTH, input, input_len, output,
                              output_len));
    if (input_left_shift < 0 || input_left_shift > 31 || diff_min > 0)
        return FLEX_E_PARAM;
    for (i = 0; i < outer; i++) {
        const int8_t *x = input + i * depth;
        int32_t max_in_row = -128, sum = 0, bits_over_unit, headroom, scale;
        for (c = 0; c < depth; c++)
            max_in_row = x[c] > max_in_row ? x[c] : max_in_row;
        for (c = 0; c < depth; c++) {
            const int32_t diff = x[c] - max_in_row;
            if (diff >= diff_min) {
                const int32_t e = flex__exp_on_negative_values(
                    flex__softmax_scaled_diff(diff, input_multiplier, input_left_shift), 5);
                sum = FLEX_WADD(sum, flex__rdbpot(e, 12)); /* Rescale to 12 integer bits */
            }
        }
        /* GetReciprocal: 1 / sum as a 0-integer-bit fraction and a power of two. */
        headroom = flex__clz((uint32_t)sum);
        /* TFLM divides by 2^(bits_over_unit + 31 - out_bits); past 2^31 every quotient
         * rounds to 0 */
        bits_over_unit = 12 - headroom < out_bits ? 12 - headroom : out_bits;
        scale = flex__one_over_one_plus_x(
            (int32_t)(((uint32_t)sum << headroom) - ((uint32_t)1 << 31)));
        for (c = 0; c < depth; c++) {
            const int32_t diff = x[c] - max_in_row;
            int32_t out = lo;
            if (diff >= diff_min) {
                const int32_t e = flex__exp_on_negative_values(
                    flex__softmax_scaled_diff(diff, input_multiplier, input_left_shift), 5);
                out = flex__rdbpot(flex__srdhm(scale, e), bits_over_unit + 31 - out_bits) + lo;
                out = flex__clamp(out, lo, hi);
            }
            if (out_bits == 8)
                ((int8_t *)output)[i * depth + c] = (int8_t)out;
            else
                ((int16_t *)output)[i * depth + c] = (int16_t)out;
        }
    }
    return FLEX_OK;
}

#endif

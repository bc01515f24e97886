/* Shared arithmetic of the int16x8 kernels (TFLM's int16 activations, int8 weights). */
#ifndef FLEX_EXTRA_S16_H
#define FLEX_EXTRA_S16_H

#include "../common/internal.h"

/* TFLM's MultiplyByQuantizedMultiplier on an int64 sum: the multiplier rounded to 16 bits,
 * one rounding shift by 15 - shift (shift in [-31, 7]), the result truncated to int32. */
static inline int32_t flex__mbqm64(int64_t x, int32_t multiplier, int32_t shift) {
    const int32_t reduced =
        multiplier < 0x7FFF0000 ? (int32_t)((multiplier + (1 << 15)) >> 16) : 0x7FFF;
    const int32_t total = 15 - shift;
    const int64_t r = (x * reduced + ((int64_t)1 << (total - 1))) >> total;
    return (int32_t)(uint32_t)(uint64_t)r;
}

/* A conv or fully connected sum requantized as TFLM does for int16: the int64 form when
 * `wide` (an int64 bias), else the int32 one on the sum wrapped to int32. */
static inline int32_t flex__s16_requant(int64_t acc, int32_t multiplier, int32_t shift,
                                        int32_t wide) {
    if (wide)
        return flex__mbqm64(acc, multiplier, shift);
    return flex__mbqm((int32_t)(uint32_t)(uint64_t)acc, multiplier, shift);
}

/* The per-channel tables, the bias and the clamp of an int16x8 conv or fully connected. */
static inline flex_status flex__s16_check_tables(const int32_t *bias, size_t bias_len,
                                                 const int32_t *multiplier,
                                                 const int32_t *shift, size_t quant_len,
                                                 int32_t channels, int32_t wide,
                                                 int32_t act_min, int32_t act_max) {
    int32_t c;
    if (!multiplier || !shift)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_bias(bias, bias_len, channels));
    FLEX_TRY(flex__check_len(quant_len, channels));
    if ((wide != 0 && wide != 1) || act_min < -32768 || act_max > 32767 || act_min > act_max)
        return FLEX_E_PARAM;
    for (c = 0; c < channels; c++) {
        if (multiplier[c] < 0 || shift[c] < -31 || shift[c] > (wide ? 7 : 31))
            return FLEX_E_PARAM;
    }
    return FLEX_OK;
}

#endif

/* Requantization between int8, int16 and int32 tensors, as TFLM's QUANTIZE between two
 * scales, and the int16 clamp of RELU and RELU6. */
#include "../common/internal.h"

/* The lowest value of a signed integer of `bits` (8, 16 or 32); 0 for other widths. */
static int32_t lowest(int32_t bits) {
    return bits == 8 ? -128 : bits == 16 ? -32768 : bits == 32 ? INT32_MIN : 0;
}

flex_status flex_s16_requantize(size_t n, const void *input, int32_t input_bits,
                                int32_t input_zero_point, int32_t multiplier, int32_t shift,
                                int32_t output_zero_point, int32_t output_bits,
                                void *output) {
    size_t i;
    const int32_t in_lo = lowest(input_bits), out_lo = lowest(output_bits);
    if (!input || !output)
        return FLEX_E_NULL;
    if (!in_lo || !out_lo || input_zero_point < in_lo || input_zero_point > -(in_lo + 1) ||
        output_zero_point < out_lo || output_zero_point > -(out_lo + 1) || multiplier < 0)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(shift));
    for (i = 0; i < n; i++) {
        const int32_t q = input_bits == 8    ? ((const int8_t *)input)[i]
                          : input_bits == 16 ? ((const int16_t *)input)[i]
                                             : ((const int32_t *)input)[i];
        const int32_t v = flex__clamp(
            FLEX_WADD(flex__mbqm(FLEX_WSUB(q, input_zero_point), multiplier, shift),
                      output_zero_point),
            out_lo, -(out_lo + 1));
        if (output_bits == 8)
            ((int8_t *)output)[i] = (int8_t)v;
        else if (output_bits == 16)
            ((int16_t *)output)[i] = (int16_t)v;
        else
            ((int32_t *)output)[i] = v;
    }
    return FLEX_OK;
}

flex_status flex_s16_clamp(size_t n, const int16_t *input, int32_t act_min, int32_t act_max,
                           int16_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    if (act_min < -32768 || act_max > 32767 || act_min > act_max)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++)
        output[i] = (int16_t)flex__clamp(input[i], act_min, act_max);
    return FLEX_OK;
}

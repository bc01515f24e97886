/* int8 -> int8 requantization, as TFLM's QUANTIZE between two int8 scales. */
#include "../common/internal.h"

flex_status flex_s8_requantize(size_t n, const int8_t *input, int32_t input_zero_point,
                               int32_t multiplier, int32_t shift, int32_t output_zero_point,
                               int8_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_zero_point(input_zero_point));
    FLEX_TRY(flex__check_zero_point(output_zero_point));
    FLEX_TRY(flex__check_shift(shift));
    for (i = 0; i < n; i++) {
        const int32_t v = FLEX_WADD(flex__mbqm(input[i] - input_zero_point, multiplier, shift),
                                    output_zero_point);
        output[i] = (int8_t)flex__clamp(v, -128, 127);
    }
    return FLEX_OK;
}

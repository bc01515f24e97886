/* int8 MEAN over one axis, as TFLM's reference kernel. */
#include "../common/internal.h"

flex_status flex_s8_mean(int32_t outer, int32_t reduce, int32_t inner, const int8_t *input,
                         size_t input_len, int32_t input_zero_point, int32_t multiplier,
                         int32_t shift, int32_t output_zero_point, int8_t *output,
                         size_t output_len) {
    int32_t count, o, r, i;
    if (!input || !output)
        return FLEX_E_NULL;
    if (outer < 1 || inner < 1 || reduce < 1 || reduce > (1 << 23)) /* int32 sum stays exact */
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(outer, inner, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(flex__product(count, reduce, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    FLEX_TRY(flex__check_zero_point(input_zero_point));
    FLEX_TRY(flex__check_zero_point(output_zero_point));
    FLEX_TRY(flex__check_shift(shift));
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const int8_t *x = input + o * reduce * inner + i;
            int32_t sum = 0, acc;
            for (r = 0; r < reduce; r++)
                sum += x[r * inner];
            acc = flex__mbqm(sum - input_zero_point * reduce, multiplier, shift);
            *output++ = (int8_t)flex__clamp(FLEX_WADD(acc, output_zero_point), -128, 127);
        }
    return FLEX_OK;
}

/* int16 SUM and MEAN over axes 1 and 3 of [outer, reduce, mid, reduce2, inner], as TFLM's
 * reference QuantizedMeanOrSum for int16 (MEAN's 1/count is in the multiplier). */
#include "../common/internal.h"

flex_status flex_s16_reduce_sum(int32_t outer, int32_t reduce, int32_t mid, int32_t reduce2,
                                int32_t inner, const int16_t *input, size_t input_len,
                                int32_t input_zero_point, int32_t multiplier, int32_t shift,
                                int32_t output_zero_point, int16_t *output,
                                size_t output_len) {
    const int32_t dims[5] = {outer, reduce, mid, reduce2, inner};
    int32_t count, a, m, k, r, r2;
    FLEX_TRY(flex__reduce_check(dims, input, input_len, output, output_len, &count));
    if (count > (1 << 15)) /* the sum less the zero points stays within int32 */
        return FLEX_E_SHAPE;
    if (input_zero_point < -32768 || input_zero_point > 32767 ||
        output_zero_point < -32768 || output_zero_point > 32767)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(shift));
    for (a = 0; a < outer; a++)
        for (m = 0; m < mid; m++)
            for (k = 0; k < inner; k++) {
                int32_t acc = 0;
                for (r = 0; r < reduce; r++) {
                    const int16_t *x = input + ((a * reduce + r) * mid + m) * reduce2 * inner + k;
                    for (r2 = 0; r2 < reduce2; r2++)
                        acc += x[r2 * inner];
                }
                acc = flex__mbqm(acc - input_zero_point * count, multiplier, shift);
                *output++ = (int16_t)flex__clamp(FLEX_WADD(acc, output_zero_point), -32768, 32767);
            }
    return FLEX_OK;
}

/* int8 reductions over axes 1 and 3 of [outer, reduce, mid, reduce2, inner], as TFLM's
 * reference SUM (QuantizedMeanOrSum), REDUCE_MAX and REDUCE_MIN. */
#include "../common/internal.h"

flex_status flex__reduce_check(const int32_t dims[5], const void *input, size_t input_len,
                               const void *output, size_t output_len, int32_t *count) {
    int32_t n, i;
    if (!dims || !input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < 5; i++)
        if (dims[i] < 1)
            return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(dims[0], dims[2], &n));
    FLEX_TRY(flex__product(n, dims[4], &n));
    FLEX_TRY(flex__check_len(output_len, n));
    FLEX_TRY(flex__product(dims[1], dims[3], count));
    FLEX_TRY(flex__product(n, *count, &n));
    return flex__check_len(input_len, n);
}

flex_status flex_s8_reduce_axes(const int32_t dims[5], int32_t op, const int8_t *input,
                                size_t input_len, int32_t input_zero_point,
                                int32_t multiplier, int32_t shift, int32_t output_zero_point,
                                int8_t *output, size_t output_len) {
    int32_t count, a, m, k, r, r2;
    FLEX_TRY(flex__reduce_check(dims, input, input_len, output, output_len, &count));
    if (op != FLEX_REDUCE_SUM && op != FLEX_REDUCE_MAX && op != FLEX_REDUCE_MIN)
        return FLEX_E_PARAM;
    if (op == FLEX_REDUCE_SUM) {
        if (count > (1 << 23)) /* the int32 sum stays exact */
            return FLEX_E_SHAPE;
        FLEX_TRY(flex__check_zero_point(input_zero_point));
        FLEX_TRY(flex__check_zero_point(output_zero_point));
        FLEX_TRY(flex__check_shift(shift));
    }
    for (a = 0; a < dims[0]; a++)
        for (m = 0; m < dims[2]; m++)
            for (k = 0; k < dims[4]; k++) {
                int32_t acc = op == FLEX_REDUCE_SUM ? 0 : (op == FLEX_REDUCE_MIN ? 127 : -128);
                for (r = 0; r < dims[1]; r++) {
                    const int8_t *x =
                        input + ((a * dims[1] + r) * dims[2] + m) * dims[3] * dims[4] + k;
                    for (r2 = 0; r2 < dims[3]; r2++) {
                        const int32_t v = x[r2 * dims[4]];
                        if (op == FLEX_REDUCE_SUM)
                            acc += v;
                        else if (op == FLEX_REDUCE_MIN ? v < acc : v > acc)
                            acc = v;
                    }
                }
                if (op == FLEX_REDUCE_SUM) {
                    acc = flex__mbqm(acc - input_zero_point * count, multiplier, shift);
                    acc = flex__clamp(FLEX_WADD(acc, output_zero_point), -128, 127);
                }
                *output++ = (int8_t)acc;
            }
    return FLEX_OK;
}

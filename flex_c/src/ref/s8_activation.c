/* int8 softmax, logistic and tanh with gemmlowp fixed point, as TFLM's reference kernels. */
#include "s8_softmax_rows.h"

flex_status flex_s8_softmax(int32_t outer, int32_t depth, const int8_t *input,
                            size_t input_len, int32_t input_multiplier,
                            int32_t input_left_shift, int32_t diff_min,
                            int8_t *output, size_t output_len) {
    return flex__s8_softmax_rows(outer, depth, input, input_len, input_multiplier,
                                 input_left_shift, diff_min, 8, output, output_len);
}

/* Shared body of logistic and tanh: inputs beyond the radius saturate. */
static flex_status q4_activation(size_t n, const int8_t *input, int32_t input_zero_point,
                                 int32_t radius, int32_t multiplier, int32_t left_shift,
                                 int8_t *output, int is_tanh) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_zero_point(input_zero_point));
    FLEX_TRY(flex__check_shift(left_shift));
    if (radius < 0)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        const int32_t x = input[i] - input_zero_point;
        int32_t out;
        if (x <= -radius)
            out = -128;
        else if (x >= radius)
            out = 127;
        else {
            const int32_t q4 = flex__mbqm(x, multiplier, left_shift);
            out = is_tanh ? flex__rdbpot(flex__tanh_q4(q4), 24)
                          : flex__rdbpot(flex__logistic_q4(q4), 23) - 128;
            out = flex__clamp(out, -128, 127);
        }
        output[i] = (int8_t)out;
    }
    return FLEX_OK;
}

flex_status flex_s8_logistic(size_t n, const int8_t *input, int32_t input_zero_point,
                             int32_t input_range_radius, int32_t input_multiplier,
                             int32_t input_left_shift, int8_t *output) {
    return q4_activation(n, input, input_zero_point, input_range_radius, input_multiplier,
                         input_left_shift, output, 0);
}

flex_status flex_s8_tanh(size_t n, const int8_t *input, int32_t input_zero_point,
                         int32_t input_range_radius, int32_t input_multiplier,
                         int32_t input_left_shift, int8_t *output) {
    return q4_activation(n, input, input_zero_point, input_range_radius, input_multiplier,
                         input_left_shift, output, 1);
}

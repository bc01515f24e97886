/* int8 softmax, logistic and tanh with gemmlowp fixed point, as TFLM's reference kernels. */
#include "../common/internal.h"

/* Softmax keeps TFLM's 12-integer-bit sum exact up to this depth. */
#define FLEX_SOFTMAX_MAX_DEPTH 4095

static int32_t softmax_scaled_diff(int32_t diff, int32_t multiplier, int32_t left_shift) {
    /* MultiplyByQuantizedMultiplierGreaterThanOne */
    return flex__srdhm((int32_t)((uint32_t)diff << left_shift), multiplier);
}

flex_status flex_s8_softmax(int32_t outer, int32_t depth, const int8_t *input,
                            size_t input_len, int32_t input_multiplier,
                            int32_t input_left_shift, int32_t diff_min,
                            int8_t *output, size_t output_len) {
    int32_t i, c;
    FLEX_TRY(flex__check_rows(outer, depth, FLEX_SOFTMAX_MAX_DEPTH, input, input_len, output,
                              output_len));
    if (input_left_shift < 0 || input_left_shift > 31 || diff_min > 0)
        return FLEX_E_PARAM;
    for (i = 0; i < outer; i++) {
        const int8_t *x = input + i * depth;
        int8_t *y = output + i * depth;
        int32_t max_in_row = -128, sum = 0, bits_over_unit, headroom, scale;
        for (c = 0; c < depth; c++)
            max_in_row = x[c] > max_in_row ? x[c] : max_in_row;
        for (c = 0; c < depth; c++) {
            const int32_t diff = x[c] - max_in_row;
            if (diff >= diff_min) {
                const int32_t e = flex__exp_on_negative_values(
                    softmax_scaled_diff(diff, input_multiplier, input_left_shift), 5);
                sum = FLEX_WADD(sum, flex__rdbpot(e, 12)); /* Rescale to 12 integer bits */
            }
        }
        /* GetReciprocal: 1 / sum as a 0-integer-bit fraction and a power of two. */
        headroom = flex__clz((uint32_t)sum);
        /* TFLM divides by 2^(bits_over_unit + 23); past 2^31 every quotient rounds to 0 */
        bits_over_unit = 12 - headroom < 8 ? 12 - headroom : 8;
        scale = flex__one_over_one_plus_x(
            (int32_t)(((uint32_t)sum << headroom) - ((uint32_t)1 << 31)));
        for (c = 0; c < depth; c++) {
            const int32_t diff = x[c] - max_in_row;
            int32_t out = -128;
            if (diff >= diff_min) {
                const int32_t e = flex__exp_on_negative_values(
                    softmax_scaled_diff(diff, input_multiplier, input_left_shift), 5);
                out = flex__rdbpot(flex__srdhm(scale, e), bits_over_unit + 31 - 8) - 128;
                out = flex__clamp(out, -128, 127);
            }
            y[c] = (int8_t)out;
        }
    }
    return FLEX_OK;
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

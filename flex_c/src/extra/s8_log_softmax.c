/* int8 log softmax, bit-exact with TFLM's LogSoftmaxQuantized (gemmlowp fixed point). */
#include "../common/internal.h"

#define WRAP(v) ((int32_t)(uint32_t)(v))
#define LOG_SOFTMAX_MAX_DEPTH 4095 /* the sum of exps stays within Q12 */

/* gemmlowp SaturatingRoundingMultiplyByPOT with a run-time exponent. */
static int32_t sat_pot(int32_t x, int32_t exponent) {
    int32_t threshold;
    if (exponent <= 0)
        return exponent == 0 ? x : flex__rdbpot(x, -exponent);
    threshold = (int32_t)(((uint32_t)1 << (31 - exponent)) - 1u);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return (int32_t)((uint32_t)x << exponent);
}

static int32_t sat_add(int64_t v) {
    return v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : (int32_t)v);
}

/* log(x) of a Q12.19 x >= 1 as a Q5.26 raw (TFLM log_x_for_x_greater_than_or_equal_to_1). */
static int32_t log_q5(int32_t x) {
    const int32_t quarter = 1 << 23, sqrt_half = 1518500250, sqrt_sqrt_half = 1805811301;
    const int32_t head_a = flex__clz((uint32_t)x);
    const int32_t r_a = sat_pot(flex__srdhm(sat_pot(x, head_a - 1), sqrt_half), 1);
    const int32_t pow_a = sat_add((int64_t)sat_pot(12 - head_a, 25) + quarter);
    const int32_t head_b = flex__clz((uint32_t)flex__srdhm(x, sqrt_half)) - 1;
    const int32_t r_b = sat_pot(x, head_b);
    const int32_t pow_b = sat_add((int64_t)sat_pot(12 - head_b, 25) - quarter);
    const int32_t r = r_a < r_b ? r_a : r_b;
    const int64_t half_sum = (int64_t)r + sqrt_sqrt_half;
    const int32_t p = (int32_t)((half_sum + (half_sum >= 0 ? 1 : -1)) / 2);
    const int32_t q = WRAP(2u * (uint32_t)WRAP((uint32_t)r - (uint32_t)sqrt_sqrt_half));
    const int32_t sq = flex__srdhm(q, q);
    const int32_t num = WRAP((uint32_t)flex__srdhm(q, r) +
                             (uint32_t)flex__srdhm(flex__srdhm(q, sq), 117049297));
    const int32_t inner = WRAP(1057819769u + (uint32_t)q + (uint32_t)flex__srdhm(127690142, sq));
    const int32_t denom = WRAP((uint32_t)flex__srdhm(p, inner) +
                               (uint32_t)flex__srdhm(638450708, q));
    const int32_t total = WRAP((uint32_t)flex__srdhm(pow_a > pow_b ? pow_a : pow_b, 1488522236) +
                               (uint32_t)flex__srdhm(flex__rdbpot(num, 6),
                                                     flex__one_over_one_plus_x(denom)));
    return sat_pot(total, 1);
}

flex_status flex_s8_log_softmax(int32_t rows, int32_t depth, const int8_t *input,
                                size_t input_len, int32_t input_multiplier,
                                int32_t input_left_shift, int32_t reverse_multiplier,
                                int32_t reverse_shift, int32_t diff_min, int8_t *output,
                                size_t output_len) {
    int32_t i, c;
    FLEX_TRY(flex__check_rows(rows, depth, LOG_SOFTMAX_MAX_DEPTH, input, input_len, output,
                              output_len));
    if (input_multiplier < 0 || input_left_shift < 0 || input_left_shift > 31 ||
        reverse_multiplier < 0 || reverse_shift > 0 || reverse_shift < -31 || diff_min > 0)
        return FLEX_E_PARAM;
    for (i = 0; i < rows; i++) {
        const int8_t *x = input + i * depth;
        int8_t *y = output + i * depth;
        int32_t top = -128, sum = 0, log_sum, low;
        for (c = 0; c < depth; c++)
            top = x[c] > top ? x[c] : top;
        for (c = 0; c < depth; c++) {
            const int32_t d = x[c] - top;
            if (d >= diff_min)
                sum = FLEX_WADD(sum, flex__rdbpot(flex__exp_on_negative_values(
                    flex__mbqm(d, input_multiplier, input_left_shift), 5), 12));
        }
        log_sum = log_q5(sum);
        low = flex__mbqm(FLEX_WADD(log_sum, INT32_MIN), reverse_multiplier, reverse_shift);
        low = diff_min - 1 > low ? diff_min - 1 : low;
        for (c = 0; c < depth; c++) {
            const int32_t d = x[c] - top;
            int32_t out = -128;
            if (d > low) {
                const int32_t scaled = flex__mbqm(d, input_multiplier, input_left_shift);
                out = flex__clamp(flex__rdbpot(WRAP((uint32_t)scaled - (uint32_t)log_sum), 22) +
                                  127, -128, 127);
            }
            y[c] = (int8_t)out;
        }
    }
    return FLEX_OK;
}

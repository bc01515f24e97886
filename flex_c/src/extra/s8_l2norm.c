/* int8 L2_NORMALIZATION over the last axis, as TFLM's reference_integer_ops kernel: the
 * inverse square root of each row's sum of squares by GetInvSqrtQuantizedMultiplierExp's
 * fixed-point Newton iteration, output in 1/128 steps. */
#include "../common/internal.h"

/* GetInvSqrtQuantizedMultiplierExp(input, -1): *mult and the left *shift of 1/sqrt. */
static void inv_sqrt(int32_t input, int32_t *mult, int32_t *shift) {
    int32_t s = 11, pairs, x, half_input, i;
    if (input <= 1) {
        *mult = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (1 << 29)) {
        input /= 4;
        s++;
    }
    pairs = (flex__clz((uint32_t)input) - 1) / 2 - 1;
    s -= pairs;
    input <<= 2 * pairs;
    half_input = flex__rdbpot(input >> 1, 1); /* values with 3 integer bits from here */
    x = 1 << 28;                              /* 1.0 */
    for (i = 0; i < 5; i++) {
        const int32_t x3 = flex__sat_shl(flex__srdhm(flex__srdhm(x, x), x), 6);
        x = flex__sat_shl(FLEX_WSUB(flex__srdhm((1 << 28) + (1 << 27), x),
                                    flex__srdhm(half_input, x3)),
                          3);
    }
    x = flex__srdhm(x, 1518500250); /* sqrt(2) / 2 */
    if (s < 0) {
        x = (int32_t)((uint32_t)x << -s);
        s = 0;
    }
    *mult = x;
    *shift = -s;
}

flex_status flex_s8_l2norm(int32_t rows, int32_t depth, const int8_t *input, size_t input_len,
                           int32_t input_zero_point, int8_t *output, size_t output_len) {
    int32_t r, k;
    /* depth <= 32768: the int32 sum of squares stays exact */
    FLEX_TRY(flex__check_rows(rows, depth, 32768, input, input_len, output, output_len));
    FLEX_TRY(flex__check_zero_point(input_zero_point));
    for (r = 0; r < rows; r++) {
        const int8_t *x = input + r * depth;
        int32_t acc = 0, mult, shift;
        for (k = 0; k < depth; k++) {
            const int32_t v = x[k] - input_zero_point;
            acc += v * v;
        }
        inv_sqrt(acc, &mult, &shift);
        for (k = 0; k < depth; k++)
            output[r * depth + k] = (int8_t)flex__clamp(
                flex__mbqm(x[k] - input_zero_point, mult, shift + 7), -128, 127);
    }
    return FLEX_OK;
}

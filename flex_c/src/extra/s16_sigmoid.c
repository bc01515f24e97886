/* int16 LOGISTIC and TANH, as TFLM's reference integer kernels: a linear interpolation in a
 * 256-entry table of sigmoid(i / 24) in Q0.16 (made by the caller). */
#include "../common/internal.h"

#define TABLE_LEN 256

/* The table interpolated at a / 2**frac_bits (a < 255 << frac_bits), in uint32 arithmetic
 * as TFLM's. */
static uint32_t interpolate(const int16_t *table, uint32_t a, int frac_bits) {
    const uint32_t uh = a >> frac_bits;
    const uint32_t ua = (uint16_t)table[uh], ub = (uint16_t)table[uh + 1];
    return (ua << frac_bits) + (a & ((1u << frac_bits) - 1u)) * (ub - ua);
}

static flex_status sigmoid(size_t n, const int16_t *input, int32_t input_multiplier,
                           int32_t input_left_shift, const int16_t *table, size_t table_len,
                           int16_t *output, int is_tanh) {
    int32_t multiplier = input_multiplier, shift = input_left_shift, round;
    size_t i;
    if (!input || !table || !output)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_len(table_len, TABLE_LEN));
    if (multiplier < 0 || multiplier > 65535 || shift < 0 || shift > 31)
        return FLEX_E_PARAM;
    if (multiplier == 0) { /* TFLM's power-of-two case */
        if (shift > 14)
            return FLEX_E_PARAM;
        multiplier = 3 << shift;
        shift = 0;
    }
    round = shift > 0 ? (int32_t)1 << (shift - 1) : 0;
    if ((int64_t)multiplier * 32768 + round > INT32_MAX)
        return FLEX_E_PARAM; /* every product and its rounding stay an int32 */
    for (i = 0; i < n; i++) {
        const int32_t v = (input[i] * multiplier + round) >> shift;
        const uint32_t a = (uint32_t)(v < 0 ? -v : v);
        uint32_t r;
        if (is_tanh) {
            r = (a >> 8) >= 255 ? 0xFFFFu << 8 : interpolate(table, a, 8);
            r = v >= 0 ? r - (1u << 23) + 128u : (1u << 23) + 127u - r;
            output[i] = (int16_t)(uint16_t)(r >> 8);
        } else {
            r = (a >> 9) >= 255 ? 0x7FFFu << 10 : interpolate(table, a, 9);
            r = v >= 0 ? r + 512u : (1u << 25) - r + 511u;
            output[i] = (int16_t)(uint16_t)(r >> 10);
        }
    }
    return FLEX_OK;
}

flex_status flex_s16_logistic(size_t n, const int16_t *input, int32_t input_multiplier,
                              int32_t input_left_shift, const int16_t *table, size_t table_len,
                              int16_t *output) {
    return sigmoid(n, input, input_multiplier, input_left_shift, table, table_len, output, 0);
}

flex_status flex_s16_tanh(size_t n, const int16_t *input, int32_t input_multiplier,
                          int32_t input_left_shift, const int16_t *table, size_t table_len,
                          int16_t *output) {
    return sigmoid(n, input, input_multiplier, input_left_shift, table, table_len, output, 1);
}

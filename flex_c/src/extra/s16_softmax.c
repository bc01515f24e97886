/* int16 softmax, as TFLM's SoftmaxInt16 (tables made by the caller, as TFLM's Prepare), and
 * the int8 softmax with int16 outputs. */
#include "../ref/s8_softmax_rows.h"

#define LUT_LEN 513

/* TFLM's LUTLookup: segment value >> 7 of the table, interpolated by the low 7 bits. */
static int16_t lookup(int32_t value, const int16_t *lut) {
    const int32_t index = 256 + (value >> 7);
    const int32_t base = lut[index];
    return (int16_t)(uint16_t)(uint32_t)(base +
                                         (((lut[index + 1] - base) * (value & 0x7F) + 64) >> 7));
}

flex_status flex_s16_softmax(int32_t outer, int32_t depth, const int16_t *input,
                             size_t input_len, int32_t input_multiplier,
                             int32_t input_left_shift, const int16_t *exp_lut,
                             size_t exp_lut_len, const int16_t *inv_lut, size_t inv_lut_len,
                             int16_t *output, size_t output_len) {
    int32_t i, c, count;
    if (!input || !output || !exp_lut || !inv_lut)
        return FLEX_E_NULL;
    if (outer < 1 || depth < 1 || depth > 65536)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(outer, depth, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(flex__check_len(exp_lut_len, LUT_LEN));
    FLEX_TRY(flex__check_len(inv_lut_len, LUT_LEN));
    if (input_multiplier < 0)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(input_left_shift));
    for (i = 0; i < outer; i++) {
        const int16_t *x = input + i * depth;
        int16_t *y = output + i * depth;
        int32_t top = -32768, total = 0, head, shifted, recip, right;
        for (c = 0; c < depth; c++)
            top = x[c] > top ? x[c] : top;
        for (c = 0; c < depth; c++) {
            const int32_t scaled = FLEX_WADD(flex__mbqm(x[c] - top, input_multiplier,
                                                        input_left_shift), 32767);
            y[c] = lookup(flex__clamp(scaled, -32768, 32767), exp_lut);
            total += y[c];
        }
        head = flex__clz((uint32_t)total);
        if (head < 1 || head > 30)
            return FLEX_E_PARAM; /* the row's largest entry keeps the sum away from these */
        shifted = (int32_t)((((int64_t)total << (head - 1)) + (1 << 13)) >> 14);
        recip = lookup(flex__clamp(shifted - (1 << 15) - (1 << 16), -32768, 32767), inv_lut);
        right = 31 - head;
        for (c = 0; c < depth; c++)
            y[c] = (int16_t)flex__clamp(
                (int32_t)(((int64_t)y[c] * recip + ((int64_t)1 << (right - 1))) >> right), 0,
                32767);
    }
    return FLEX_OK;
}

flex_status flex_s8_softmax_s16(int32_t outer, int32_t depth, const int8_t *input,
                                size_t input_len, int32_t input_multiplier,
                                int32_t input_left_shift, int32_t diff_min, int16_t *output,
                                size_t output_len) {
    return flex__s8_softmax_rows(outer, depth, input, input_len, input_multiplier,
                                 input_left_shift, diff_min, 16, output, output_len);
}

/* int16x8 fully connected, as TFLM's reference FullyConnected(PerChannel) for int16 input. */
#include "s16.h"

flex_status flex_s16_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const int16_t *input,
                                     size_t input_len, const int8_t *filter, size_t filter_len,
                                     const int32_t *bias, size_t bias_len,
                                     const int32_t *multiplier, const int32_t *shift,
                                     size_t quant_len, int32_t wide, const flex_s16_quant *q,
                                     int16_t *output, size_t output_len) {
    int32_t b, o, i;
    FLEX_TRY(flex__check_fc(batches, in_features, out_features, input, input_len, filter,
                            filter_len, output, output_len));
    if (!q)
        return FLEX_E_NULL;
    if (q->input_offset < -32767 || q->input_offset > 32768 || q->output_offset < -32768 ||
        q->output_offset > 32767)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__s16_check_tables(bias, bias_len, multiplier, shift, quant_len, out_features,
                                    wide, q->act_min, q->act_max));
    for (b = 0; b < batches; b++) {
        const int16_t *x = input + b * in_features;
        for (o = 0; o < out_features; o++) {
            const int8_t *w = filter + o * in_features;
            int64_t acc = bias ? bias[o] : 0;
            for (i = 0; i < in_features; i++)
                acc += (int64_t)w[i] * (x[i] + q->input_offset);
            *output++ = (int16_t)flex__clamp(
                FLEX_WADD(flex__s16_requant(acc, multiplier[o], shift[o], wide),
                          q->output_offset),
                q->act_min, q->act_max);
        }
    }
    return FLEX_OK;
}

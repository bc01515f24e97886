/* int8 fully connected, as TFLM's reference_integer_ops::FullyConnected (flex__ref_*). */
#include "ref.h"

flex_status flex__ref_s8_fully_connected(int32_t batches, int32_t in_features,
                                         int32_t out_features, const int8_t *input,
                                         size_t input_len, const int8_t *filter,
                                         size_t filter_len, int32_t filter_offset,
                                         const int32_t *bias, size_t bias_len,
                                         const int32_t *multiplier, const int32_t *shift,
                                         size_t quant_len, const flex_s8_quant *q,
                                         int8_t *output, size_t output_len) {
    int32_t b, o, i;
    FLEX_TRY(flex__s8_fc_check(batches, in_features, out_features, input, input_len, filter,
                               filter_len, filter_offset, bias, bias_len, multiplier, shift,
                               quant_len, q, output, output_len));
    for (b = 0; b < batches; b++) {
        const int8_t *x = input + b * in_features;
        for (o = 0; o < out_features; o++) {
            const int8_t *w = filter + o * in_features;
            const int32_t qi = quant_len == 1 ? 0 : o;
            uint32_t acc = 0;
            for (i = 0; i < in_features; i++)
                acc += (uint32_t)((w[i] + filter_offset) * (x[i] + q->input_offset));
            if (bias)
                acc += (uint32_t)bias[o];
            *output++ = flex__s8_requant((int32_t)acc, multiplier[qi], shift[qi], q);
        }
    }
    return FLEX_OK;
}

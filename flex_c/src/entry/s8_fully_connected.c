/* int8 fully connected of a target without an opt/<target>/s8_fully_connected.c: the
 * reference kernel. */
#include "../ref/ref.h"

flex_status flex_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                    const int8_t *input, size_t input_len,
                                    const int8_t *filter, size_t filter_len,
                                    int32_t filter_offset,
                                    const int32_t *bias, size_t bias_len,
                                    const int32_t *multiplier, const int32_t *shift,
                                    size_t quant_len, const flex_s8_quant *q,
                                    int8_t *output, size_t output_len) {
    return flex__ref_s8_fully_connected(batches, in_features, out_features, input, input_len,
                                        filter, filter_len, filter_offset, bias, bias_len,
                                        multiplier, shift, quant_len, q, output, output_len);
}

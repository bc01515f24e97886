/* Cortex-M0+ int8 fully connected: four output rows at a time through flex__m0_dot4. The
 * input offset enters as input_offset * sum(row); callers that fold it into the bias at
 * prepare time (input offset 0) skip that pass. A non-zero filter offset uses the
 * reference kernel. */
#include "../../common/s8_checks.h"
#include "m0_dot.h"

#define flex_s8_fully_connected flex__ref_s8_fully_connected
#include "../../ref/s8_fully_connected.c"
#undef flex_s8_fully_connected

flex_status flex_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                    const int8_t *input, size_t input_len,
                                    const int8_t *filter, size_t filter_len,
                                    int32_t filter_offset,
                                    const int32_t *bias, size_t bias_len,
                                    const int32_t *multiplier, const int32_t *shift,
                                    size_t quant_len, const flex_s8_quant *q,
                                    int8_t *output, size_t output_len) {
    int32_t b, o, r, i;
    FLEX_TRY(flex__s8_fc_check(batches, in_features, out_features, input, input_len, filter,
                               filter_len, filter_offset, bias, bias_len, multiplier, shift,
                               quant_len, q, output, output_len));
    if (filter_offset != 0)
        return flex__ref_s8_fully_connected(batches, in_features, out_features, input,
                                            input_len, filter, filter_len, filter_offset, bias,
                                            bias_len, multiplier, shift, quant_len, q, output,
                                            output_len);
    for (b = 0; b < batches; b++) {
        const int8_t *x = input + b * in_features;
        for (o = 0; o < out_features; o += 4) {
            int32_t acc[4] = {0, 0, 0, 0};
            const int8_t *w_end[4];
            const int32_t m = out_features - o < 4 ? out_features - o : 4;
            for (r = 0; r < 4; r++) /* spare lanes repeat the last row */
                w_end[r] = filter + (o + (r < m ? r : m - 1) + 1) * in_features;
            flex__m0_dot4(x + in_features, w_end, in_features, acc);
            for (r = 0; r < m; r++) {
                const int32_t c = o + r, qi = quant_len == 1 ? 0 : c;
                uint32_t total = (uint32_t)acc[r] + (uint32_t)(bias ? bias[c] : 0);
                if (q->input_offset != 0) {
                    const int8_t *w = filter + c * in_features;
                    uint32_t sum = 0;
                    for (i = 0; i < in_features; i++)
                        sum += (uint32_t)w[i];
                    total += sum * (uint32_t)q->input_offset;
                }
                *output++ = flex__s8_requant((int32_t)total, multiplier[qi], shift[qi], q);
            }
        }
    }
    return FLEX_OK;
}

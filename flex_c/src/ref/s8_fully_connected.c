/* int8 fully connected, as TFLM's reference_integer_ops::FullyConnected (flex__ref_*). */
#include "ref.h"

FLEX__SIGNATURE_s8_fully_connected(flex__ref_s8_fully_connected) {
    int32_t b, o, i;
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
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

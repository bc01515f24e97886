/* int16x8 transposed convolution (int16 activations, int8 weights), bit-exact with TFLM's
 * reference TransposeConv for int16: an int64 sum, the bias added, TFLM's int64
 * MultiplyByQuantizedMultiplier, the clamp; zero points 0 (its kernel has none). */
#include "s16.h"
#include "transpose_conv.h"

#define MAC(acc, x, w) ((acc) += (int64_t)(x) * (w))
#define STORE(acc, oc)                                                                    \
    (int16_t) flex__clamp(flex__mbqm64((acc), multiplier[oc], shift[oc]), q->act_min,      \
                          q->act_max)

flex_status flex_s16_transpose_conv2d(
    const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_transpose_window *win, const flex_s8_quant *q, const flex_dims4 *out_dims,
    int16_t *output, size_t output_len) {
    int32_t c;
    FLEX_TRY(flex__tconv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                               win, out_dims, output, output_len));
    if (!multiplier || !shift || !q)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_len(quant_len, out_dims->c));
    if (q->input_offset || q->output_offset || q->act_min < -32768 || q->act_max > 32767 ||
        q->act_min > q->act_max)
        return FLEX_E_PARAM;
    for (c = 0; c < out_dims->c; c++)
        if (multiplier[c] < 0 || shift[c] < -31 || shift[c] > 7)
            return FLEX_E_PARAM;
    FLEX__TCONV_LOOP(in_dims, input, filter, bias, win, out_dims, output, int64_t, MAC, STORE);
    return FLEX_OK;
}

/* int8 transposed convolution, bit-exact with TFLM's reference TransposeConv. */
#include "../common/s8_checks.h"
#include "transpose_conv.h"

/* TFLM's wrapping int32 sum of (x + input offset) * w */
#define MAC(acc, x, w) ((acc) += (uint32_t)((w) * ((x) + q->input_offset)))
#define STORE(acc, oc) flex__s8_requant((int32_t)(acc), multiplier[oc], shift[oc], q)

flex_status flex_s8_transpose_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_transpose_window *win, const flex_s8_quant *q, const flex_dims4 *out_dims,
    int8_t *output, size_t output_len) {
    FLEX_TRY(flex__tconv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                               win, out_dims, output, output_len));
    if (!multiplier || !shift || !q)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_len(quant_len, out_dims->c));
    FLEX_TRY(flex__check_shifts(shift, out_dims->c));
    FLEX_TRY(flex__check_s8_quant(q));
    FLEX__TCONV_LOOP(in_dims, input, filter, bias, win, out_dims, output, uint32_t, MAC, STORE);
    return FLEX_OK;
}

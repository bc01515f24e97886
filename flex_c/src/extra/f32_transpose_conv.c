/* float32 transposed convolution: TFLM's reference TransposeConv, summed in its order. */
#include "transpose_conv.h"

/* the plain sum of x * w, clamped by the fused activation */
#define MAC(acc, x, w) ((acc) += (x) * (w))
#define STORE(acc, oc) ((acc) < lo ? lo : ((acc) > hi ? hi : (acc)))

flex_status flex_f32_nhwc_transpose_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_transpose_window *win,
                                           int32_t act, const flex_dims4 *out_dims,
                                           float *output, size_t output_len) {
    float lo, hi;
    FLEX_TRY(flex__tconv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                               win, out_dims, output, output_len));
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
    FLEX__TCONV_LOOP(in_dims, input, filter, bias, win, out_dims, output, float, MAC, STORE);
    return FLEX_OK;
}

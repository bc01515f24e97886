/* Argument checks of the int8 conv / depthwise / fully connected kernels, shared by the
 * reference and the optimized implementations so that both accept exactly the same input. */
#include "../ref/ref.h"

/* What the conv and depthwise checks share, in their order: the buffers, the geometry,
 * the bias and the per-channel requantization. */
static flex_status check_conv_common(const flex_dims4 *in_dims, const int8_t *input,
                                     size_t input_len, const int8_t *filter, size_t bias_len,
                                     const void *bias, const int32_t *multiplier,
                                     const int32_t *shift, size_t quant_len,
                                     const flex_window *win, const flex_s8_quant *q,
                                     const flex_dims4 *out_dims, const int8_t *output,
                                     size_t output_len) {
    int32_t in_count, out_count;
    if (!input || !filter || !output)
        return FLEX_E_NULL;
    if (!multiplier || !shift)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &in_count));
    FLEX_TRY(flex__count(out_dims, &out_count));
    FLEX_TRY(flex__check_spatial(in_dims, win, out_dims, 0));
    FLEX_TRY(flex__check_len(input_len, in_count));
    FLEX_TRY(flex__check_len(output_len, out_count));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_dims->c));
    FLEX_TRY(flex__check_len(quant_len, out_dims->c));
    FLEX_TRY(flex__check_shifts(shift, out_dims->c));
    return flex__check_s8_quant(q);
}

/* The filter holds out.c x kernel_h x kernel_w x per_tap values. */
static flex_status check_filter(const flex_dims4 *out_dims, const flex_window *win,
                                int32_t per_tap, size_t filter_len) {
    int32_t count;
    FLEX_TRY(flex__product(out_dims->c, win->kernel_h, &count));
    FLEX_TRY(flex__product(count, win->kernel_w, &count));
    FLEX_TRY(flex__product(count, per_tap, &count));
    return flex__check_len(filter_len, count);
}

FLEX__SIGNATURE_s8_conv2d(flex__s8_conv_check) {
    FLEX_TRY(check_conv_common(in_dims, input, input_len, filter, bias_len, bias, multiplier,
                               shift, quant_len, win, q, out_dims, output, output_len));
    if (groups < 1 || in_dims->c % groups != 0 || out_dims->c % groups != 0)
        return FLEX_E_SHAPE;
    return check_filter(out_dims, win, in_dims->c / groups, filter_len);
}

FLEX__SIGNATURE_s8_depthwise_conv2d(flex__s8_depthwise_check) {
    FLEX_TRY(check_conv_common(in_dims, input, input_len, filter, bias_len, bias, multiplier,
                               shift, quant_len, win, q, out_dims, output, output_len));
    if (depth_multiplier < 1 || (int64_t)in_dims->c * depth_multiplier != out_dims->c)
        return FLEX_E_SHAPE;
    return check_filter(out_dims, win, 1, filter_len);
}

FLEX__SIGNATURE_s8_fully_connected(flex__s8_fc_check) {
    return flex__s8_fc_checks(FLEX__ARGS_s8_fully_connected);
}

int8_t flex__s8_requant(int32_t acc, int32_t multiplier, int32_t shift,
                        const flex_s8_quant *q) {
    acc = FLEX_WADD(flex__mbqm(acc, multiplier, shift), q->output_offset);
    return (int8_t)flex__clamp(acc, q->act_min, q->act_max);
}

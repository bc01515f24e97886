/* Flat entry points over CMSIS-NN's int8 convolution, depthwise convolution and fully
 * connected (the functions TFLM's CMSIS-NN kernels call at inference), so that the
 * benchmarks run them in the emulator beside flex on the same layers
 * (benchmarks/cmsis_nn.py builds this file with CMSIS-NN's sources).
 *
 * p holds the layer: n, in_h, in_w, in_c, out_h, out_w, out_c, kernel_h, kernel_w,
 * stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w, input_offset,
 * output_offset, act_min, act_max, depth_multiplier (depthwise). Each returns CMSIS-NN's
 * status, or -100 when its scratch buffer would not fit. */
#include "arm_nnfunctions.h"

static int32_t scratch[16384]; /* the context buffer, 64 KB */

static int set_context(cmsis_nn_context *ctx, int32_t size) {
    ctx->buf = scratch;
    ctx->size = size;
    return size <= (int32_t)sizeof(scratch);
}

int32_t peer_conv_s8(const int8_t *input, const int8_t *filter, const int32_t *bias,
                     int32_t *multiplier, int32_t *shift, int8_t *output, const int32_t *p) {
    const cmsis_nn_dims in = {p[0], p[1], p[2], p[3]}, f = {p[6], p[7], p[8], p[3]},
                        b = {1, 1, 1, p[6]}, out = {p[0], p[4], p[5], p[6]};
    const cmsis_nn_conv_params cp = {.input_offset = p[15], .output_offset = p[16],
                                     .stride = {p[10], p[9]}, .padding = {p[12], p[11]},
                                     .dilation = {p[14], p[13]},
                                     .activation = {p[17], p[18]}};
    const cmsis_nn_per_channel_quant_params qp = {multiplier, shift};
    cmsis_nn_context ctx;
    if (!set_context(&ctx, arm_convolve_wrapper_s8_get_buffer_size(&cp, &in, &f, &out)))
        return -100;
    return arm_convolve_wrapper_s8(&ctx, &cp, &qp, &in, input, &f, filter, &b, bias, &out,
                                   output);
}

int32_t peer_depthwise_s8(const int8_t *input, const int8_t *filter, const int32_t *bias,
                          int32_t *multiplier, int32_t *shift, int8_t *output,
                          const int32_t *p) {
    const cmsis_nn_dims in = {p[0], p[1], p[2], p[3]}, f = {1, p[7], p[8], p[6]},
                        b = {1, 1, 1, p[6]}, out = {p[0], p[4], p[5], p[6]};
    const cmsis_nn_dw_conv_params dp = {.input_offset = p[15], .output_offset = p[16],
                                        .ch_mult = p[19], .stride = {p[10], p[9]},
                                        .padding = {p[12], p[11]},
                                        .dilation = {p[14], p[13]},
                                        .activation = {p[17], p[18]}};
    const cmsis_nn_per_channel_quant_params qp = {multiplier, shift};
    cmsis_nn_context ctx;
    if (!set_context(&ctx, arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &in, &f, &out)))
        return -100;
    return arm_depthwise_conv_wrapper_s8(&ctx, &dp, &qp, &in, input, &f, filter, &b, bias,
                                         &out, output);
}

/* The fully connected layers' p: batches, in_features, out_features, input_offset,
 * output_offset, act_min, act_max. */

/* What TFLM does once, at prepare: the kernel sums some cores' paths read from the context
 * buffer (none on the DSP path). */
int32_t peer_fully_connected_prepare_s8(const int8_t *filter, const int32_t *bias,
                                        const int32_t *p) {
    const cmsis_nn_dims f = {p[1], 1, 1, p[2]};
    const int32_t size = arm_fully_connected_s8_get_buffer_size(&f);
    if (size > (int32_t)sizeof(scratch))
        return -100;
    if (size > 0)
        return arm_vector_sum_s8(scratch, p[1], p[2], filter, p[3], 0, bias);
    return 0;
}

/* One multiplier and shift (per tensor), after peer_fully_connected_prepare_s8. */
int32_t peer_fully_connected_s8(const int8_t *input, const int8_t *filter,
                                const int32_t *bias, int32_t multiplier, int32_t shift,
                                int8_t *output, const int32_t *p) {
    const cmsis_nn_dims in = {p[0], 1, 1, p[1]}, f = {p[1], 1, 1, p[2]}, b = {1, 1, 1, p[2]},
                        out = {p[0], 1, 1, p[2]};
    const cmsis_nn_fc_params fp = {.input_offset = p[3], .filter_offset = 0,
                                   .output_offset = p[4], .activation = {p[5], p[6]}};
    const cmsis_nn_per_tensor_quant_params qp = {multiplier, shift};
    cmsis_nn_context ctx;
    set_context(&ctx, arm_fully_connected_s8_get_buffer_size(&f));
    return arm_fully_connected_s8(&ctx, &fp, &qp, &in, input, &f, filter, &b, bias, &out,
                                  output);
}

/* Flat entry points over esp-nn's int8 convolution, depthwise convolution and fully
 * connected, as TFLM's esp-nn kernels call them on a RISC-V ESP32 (the C3/C6: esp-nn's
 * generic optimisations, CONFIG_NN_OPTIMIZED without an S3 or P4), with the same arguments
 * as benchmarks/cmsis_nn_peer.c, so that the benchmarks run either peer beside flex
 * (benchmarks/esp_nn.py builds this file with esp-nn's sources).
 *
 * p holds the layer: n, in_h, in_w, in_c, out_h, out_w, out_c, kernel_h, kernel_w,
 * stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w, input_offset,
 * output_offset, act_min, act_max, depth_multiplier (depthwise). Each returns 0, or -101
 * for a layer esp-nn does not take (dilation). esp-nn takes one image a call: a batch is a
 * loop here, as in TFLM's kernels. */
#include "esp_nn.h"

static int32_t one_image(const int32_t *p) {
    return p[13] == 1 && p[14] == 1;
}

/* A convolution (depthwise 0) or a depthwise convolution (1), one esp-nn call an image. */
static int32_t conv_layer(int depthwise, const int8_t *input, const int8_t *filter,
                          const int32_t *bias, int32_t *multiplier, int32_t *shift,
                          int8_t *output, const int32_t *p) {
    const data_dims_t in = {p[2], p[1], p[3], 1}, out = {p[5], p[4], p[6], 1},
                      f = {p[8], p[7], depthwise ? p[6] : p[3], depthwise ? 1 : p[6]};
    const conv_params_t cp = {.in_offset = p[15], .out_offset = p[16],
                              .stride = {p[10], p[9]}, .padding = {p[12], p[11]},
                              .dilation = {p[14], p[13]}, .activation = {p[17], p[18]}};
    const dw_conv_params_t dp = {.in_offset = p[15], .out_offset = p[16], .ch_mult = p[19],
                                 .stride = {p[10], p[9]}, .padding = {p[12], p[11]},
                                 .dilation = {p[14], p[13]}, .activation = {p[17], p[18]}};
    const quant_data_t qp = {shift, multiplier};
    if (!one_image(p))
        return -101;
    for (int32_t b = 0; b < p[0]; b++) {
        const int8_t *x = input + b * p[1] * p[2] * p[3];
        int8_t *y = output + b * p[4] * p[5] * p[6];
        if (depthwise)
            esp_nn_depthwise_conv_s8(&in, x, &f, filter, bias, &out, y, &dp, &qp);
        else
            esp_nn_conv_s8(&in, x, &f, filter, bias, &out, y, &cp, &qp);
    }
    return 0;
}

int32_t peer_conv_s8(const int8_t *input, const int8_t *filter, const int32_t *bias,
                     int32_t *multiplier, int32_t *shift, int8_t *output, const int32_t *p) {
    return conv_layer(0, input, filter, bias, multiplier, shift, output, p);
}

int32_t peer_depthwise_s8(const int8_t *input, const int8_t *filter, const int32_t *bias,
                          int32_t *multiplier, int32_t *shift, int8_t *output,
                          const int32_t *p) {
    return conv_layer(1, input, filter, bias, multiplier, shift, output, p);
}

/* The fully connected layers' p: batches, in_features, out_features, input_offset,
 * output_offset, act_min, act_max. esp-nn prepares nothing. */
int32_t peer_fully_connected_prepare_s8(const int8_t *filter, const int32_t *bias,
                                        const int32_t *p) {
    (void)filter;
    (void)bias;
    (void)p;
    return 0;
}

int32_t peer_fully_connected_s8(const int8_t *input, const int8_t *filter,
                                const int32_t *bias, int32_t multiplier, int32_t shift,
                                int8_t *output, const int32_t *p) {
    for (int32_t b = 0; b < p[0]; b++)
        esp_nn_fully_connected_s8(input + b * p[1], p[3], (uint16_t)p[1], filter, 0, bias,
                                  output + b * p[2], (uint16_t)p[2], p[4], shift, multiplier,
                                  p[5], p[6]);
    return 0;
}

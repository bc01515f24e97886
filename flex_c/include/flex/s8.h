/* flex/s8.h - part of flex.h, which includes it (include flex.h, not this file):
 * the int8 kernels (NHWC memory order, OHWI filters). */
#ifndef FLEX_API_S8_H
#define FLEX_API_S8_H

#include "types.h"

/* ---- int8 kernels (NHWC) --------------------------------------------------------- */

/* Convolution with groups. filter: OHWI [out.c, kh, kw, in.c / groups]; bias: int32
 * [out.c] or NULL with bias_len 0; multiplier/shift: per output channel [out.c]. */
flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* Depthwise convolution: out.c = in.c * depth_multiplier; filter [1, kh, kw, out.c]. */
flex_status flex_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* Transposed convolution (an optional op, src/extra): filter OHWI [out.c, kh, kw, in.c];
 * bias: int32 [out.c] or NULL with bias_len 0; multiplier/shift per output channel. Any
 * input and output sizes; no scratch memory. */
flex_status flex_s8_transpose_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_transpose_window *win, const flex_s8_quant *q, const flex_dims4 *out_dims,
    int8_t *output, size_t output_len);

/* Fully connected: input [batches, in_features], filter [out_features, in_features],
 * output [batches, out_features]. quant_len is 1 (per-tensor) or out_features. */
flex_status flex_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                    const int8_t *input, size_t input_len,
                                    const int8_t *filter, size_t filter_len,
                                    int32_t filter_offset,
                                    const int32_t *bias, size_t bias_len,
                                    const int32_t *multiplier, const int32_t *shift,
                                    size_t quant_len, const flex_s8_quant *q,
                                    int8_t *output, size_t output_len);

/* Broadcasting add / mul: every dim of in1/in2 equals out's or is 1. */
flex_status flex_s8_add(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_add_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_s8_mul(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_mul_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* Pools (same scale in and out, out.c == in.c); windows count only real elements. */
flex_status flex_s8_avg_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                               size_t input_len, const flex_window *win,
                               int32_t act_min, int32_t act_max,
                               const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_s8_max_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                               size_t input_len, const flex_window *win,
                               int32_t act_min, int32_t act_max,
                               const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* MEAN over the middle axis of [outer, reduce, inner] -> [outer, inner], as TFLM's
 * QuantizedMeanOrSum: MBQM(sum - input_zero_point * reduce, multiplier, shift) + output
 * zero point, where multiplier/shift quantize input_scale / output_scale / reduce. */
flex_status flex_s8_mean(int32_t outer, int32_t reduce, int32_t inner, const int8_t *input,
                         size_t input_len, int32_t input_zero_point, int32_t multiplier,
                         int32_t shift, int32_t output_zero_point, int8_t *output,
                         size_t output_len);

/* Softmax over the last axis of [outer, depth]; output scale 1/256, zero point -128.
 * input_multiplier / input_left_shift / diff_min as TFLM's PreprocessSoftmaxScaling. */
flex_status flex_s8_softmax(int32_t outer, int32_t depth, const int8_t *input,
                            size_t input_len, int32_t input_multiplier,
                            int32_t input_left_shift, int32_t diff_min,
                            int8_t *output, size_t output_len);

/* Logistic (output scale 1/256, zero point -128) and tanh (scale 1/128, zero point 0)
 * with TFLM's 4-integer-bit input rescaling. */
flex_status flex_s8_logistic(size_t n, const int8_t *input, int32_t input_zero_point,
                             int32_t input_range_radius, int32_t input_multiplier,
                             int32_t input_left_shift, int8_t *output);
flex_status flex_s8_tanh(size_t n, const int8_t *input, int32_t input_zero_point,
                         int32_t input_range_radius, int32_t input_multiplier,
                         int32_t input_left_shift, int8_t *output);

/* float32 -> int8: round(x / scale) + zero_point (half away from zero), clamped. */
flex_status flex_s8_quantize(size_t n, const float *input, float scale, int32_t zero_point,
                             int8_t *output);
/* int8 -> float32: scale * (q - zero_point). */
flex_status flex_s8_dequantize(size_t n, const int8_t *input, float scale, int32_t zero_point,
                               float *output);
/* int8 -> int8 with a new scale: MBQM(q - in_zp, multiplier, shift) + out_zp, clamped. */
flex_status flex_s8_requantize(size_t n, const int8_t *input, int32_t input_zero_point,
                               int32_t multiplier, int32_t shift, int32_t output_zero_point,
                               int8_t *output);

#endif /* FLEX_API_S8_H */

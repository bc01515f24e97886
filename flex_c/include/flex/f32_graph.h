/* flex/f32_graph.h - part of flex.h, which includes it (include flex.h, not this file):
 * the float32 kernels of the exported graph (NHWC memory order, OHWI filters). */
#ifndef FLEX_API_F32_GRAPH_H
#define FLEX_API_F32_GRAPH_H

#include "types.h"

/* ---- float32 graph kernels (NHWC, OHWI filters: the exported-graph layout) --------- */
/* The output may overlap an input as the .bst arena plans it (docs/bst-format.md: output
 * pixels are written in increasing order, each after the inputs it and those before it
 * read). Convolutions, pools and fully connected layers then compute in a stack scratch
 * (64 KiB on 64-bit hosts, 1 KiB elsewhere) and give FLEX_E_SIZE when one output pixel
 * does not fit it, except where they write each tile of pixels only after reading all of
 * its inputs (a 3x3 depthwise convolution's row tiles; on AVX-512 hosts a convolution of
 * at most 64 output channels and 256 taps, outside Winograd's shapes). */

/* Fused activations (TFLite codes), applied as a clamp after the bias. */
#define FLEX_ACT_NONE 0
#define FLEX_ACT_RELU 1
#define FLEX_ACT_RELU_N1_TO_1 2
#define FLEX_ACT_RELU6 3

/* Convolution with groups; filter OHWI [out.c, kh, kw, in.c / groups]; bias [out.c] or NULL
 * with bias_len 0; act a FLEX_ACT_* code. */
flex_status flex_f32_nhwc_conv2d(const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, size_t filter_len,
                                 const float *bias, size_t bias_len, const flex_window *win,
                                 int32_t groups, int32_t act, const flex_dims4 *out_dims,
                                 float *output, size_t output_len);
/* Depthwise convolution: out.c = in.c * depth_multiplier; filter [1, kh, kw, out.c]. */
flex_status flex_f32_nhwc_depthwise_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_window *win,
                                           int32_t depth_multiplier, int32_t act,
                                           const flex_dims4 *out_dims, float *output,
                                           size_t output_len);
/* Transposed convolution (src/extra): filter OHWI [out.c, kh, kw, in.c]; bias [out.c] or
 * NULL with bias_len 0; act a FLEX_ACT_* code. Sums in TFLM's order. */
flex_status flex_f32_nhwc_transpose_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_transpose_window *win,
                                           int32_t act, const flex_dims4 *out_dims,
                                           float *output, size_t output_len);
/* Fully connected: input [batches, in_features], filter [out_features, in_features]. */
flex_status flex_f32_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const float *input,
                                     size_t input_len, const float *filter, size_t filter_len,
                                     const float *bias, size_t bias_len, int32_t act,
                                     float *output, size_t output_len);
/* Pools over the in-bounds cells of each window (average divides by their count); no
 * dilation, out.c == in.c, floor-mode output size. */
flex_status flex_f32_nhwc_avg_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len);
flex_status flex_f32_nhwc_max_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len);
/* output[i] = act(a[i] + b[i % b_len]) (b broadcast along the innermost dims); b_len
 * divides n. */
flex_status flex_f32_add_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output);
flex_status flex_f32_mul_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output);
/* output[i] = act(input[i]): a lone RELU / RELU6 / RELU_N1_TO_1; output may alias input. */
flex_status flex_f32_act(size_t n, const float *input, int32_t act, float *output);
/* MEAN over the middle axis of [outer, reduce, inner] -> [outer, inner]. */
flex_status flex_f32_mean(int32_t outer, int32_t reduce, int32_t inner, const float *input,
                          size_t input_len, float *output, size_t output_len);
/* Softmax over the last axis of [rows, depth]: exp(beta * (x - max)) / row sum. */
flex_status flex_f32_softmax_beta(int32_t rows, int32_t depth, const float *input,
                                  size_t input_len, float beta, float *output,
                                  size_t output_len);

#endif /* FLEX_API_F32_GRAPH_H */

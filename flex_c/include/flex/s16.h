/* flex/s16.h - part of flex.h, which includes it (include flex.h, not this file):
 * the int16x8 kernels (int16 activations, int8 weights). */
#ifndef FLEX_API_S16_H
#define FLEX_API_S16_H

#include "types.h"

/* ---- int16x8 kernels (flex_c/src/extra: int16 activations, int8 weights) ----------- */
/* TFLM's int16 kernels: a conv or fully connected sums int16 x int8 products in int32 and
 * requantizes with the int32 MultiplyByQuantizedMultiplier when the TFLite bias was int32
 * (`wide` 0), or sums in int64 and uses TFLM's int64 form (the multiplier rounded to 16
 * bits, shifts up to 7) when it was int64 (`wide` 1; the bias values passed as int32). */

/* Offsets and clamps of an int16 fully connected layer. */
typedef struct {
    int32_t input_offset;  /* minus the input zero point */
    int32_t output_offset; /* the output zero point */
    int32_t act_min;       /* fused activation clamp, within [-32768, 32767] */
    int32_t act_max;
} flex_s16_quant;

/* float32 -> int16: round(x / scale) + zero_point (half away from zero), clamped. */
flex_status flex_s16_quantize(size_t n, const float *input, float scale, int32_t zero_point,
                              int16_t *output);
/* int16 -> float32: scale * (q - zero_point). */
flex_status flex_s16_dequantize(size_t n, const int16_t *input, float scale,
                                int32_t zero_point, float *output);
/* Between int8, int16 and int32 (input_bits, output_bits: 8, 16 or 32) with a new scale:
 * MBQM(q - in_zp, multiplier, shift) + out_zp, clamped to the output type; int32
 * arithmetic wraps (TFLM's Requantize). */
flex_status flex_s16_requantize(size_t n, const void *input, int32_t input_bits,
                                int32_t input_zero_point, int32_t multiplier, int32_t shift,
                                int32_t output_zero_point, int32_t output_bits,
                                void *output);
/* int16 -> int16 clamped to [act_min, act_max] (TFLM's RELU and RELU6 where the input and
 * the output share one quantization); output may be input. */
flex_status flex_s16_clamp(size_t n, const int16_t *input, int32_t act_min, int32_t act_max,
                           int16_t *output);
/* Fully connected: input [batches, in_features], filter [out_features, in_features],
 * per-output-channel multiplier / shift [out_features]; bias [out_features] or NULL. */
flex_status flex_s16_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const int16_t *input,
                                     size_t input_len, const int8_t *filter, size_t filter_len,
                                     const int32_t *bias, size_t bias_len,
                                     const int32_t *multiplier, const int32_t *shift,
                                     size_t quant_len, int32_t wide, const flex_s16_quant *q,
                                     int16_t *output, size_t output_len);
/* Convolution with groups; filter OHWI [out.c, kh, kw, in.c / groups]; zero padding and
 * no zero points, as TFLM's int16 kernel. */
flex_status flex_s16_conv2d(const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
                            const int8_t *filter, size_t filter_len,
                            const int32_t *bias, size_t bias_len,
                            const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                            const flex_window *win, int32_t groups, int32_t wide,
                            int32_t act_min, int32_t act_max, const flex_dims4 *out_dims,
                            int16_t *output, size_t output_len);
/* Depthwise convolution: out.c = in.c * depth_multiplier; filter [1, kh, kw, out.c]; always
 * TFLM's int64 arithmetic (its int16 kernel reads the bias as int64). */
flex_status flex_s16_depthwise_conv2d(
    const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, int32_t act_min, int32_t act_max,
    const flex_dims4 *out_dims, int16_t *output, size_t output_len);
/* output[i] = a[i] (+ or *) b[i % b_len] (b broadcast along the innermost dims; b_len
 * divides n), with TFLM's ADD (left_shift 15) and MUL parameters; int32 overflow wraps. */
flex_status flex_s16_add(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_add_params *p, int16_t *output);
flex_status flex_s16_mul(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_mul_params *p, int16_t *output);
/* output[i] = a[i] - b[i % b_len] (b[i % b_len] - a[i] when swap is 1) with TFLM's SUB
 * parameters, which are ADD's (left_shift 15); int32 overflow wraps. */
flex_status flex_s16_sub(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_add_params *p, int32_t swap, int16_t *output);
/* output[i] = (a[i] - b[i % b_len])^2 with TFLM's SQUARED_DIFFERENCE parameters for int16
 * (ADD's fields, left_shift 0, an output multiplier below one); int32 overflow wraps. */
flex_status flex_s16_squared_difference(size_t n, const int16_t *a, const int16_t *b,
                                        size_t b_len, const flex_s8_add_params *p,
                                        int16_t *output);
/* output[i] = MAXIMUM or MINIMUM (op FLEX_ARITH_MAXIMUM or FLEX_ARITH_MINIMUM) of a[i] and
 * b[i % b_len], the stored int16 values compared as flex_s8_arith compares int8 ones. */
flex_status flex_s16_arith(int32_t op, size_t n, const int16_t *a, const int16_t *b,
                           size_t b_len, int16_t *output);
/* SUM, and MEAN with 1/count in the multiplier, of [outer, reduce, mid, reduce2, inner]
 * over axes 1 and 3 -> [outer, mid, inner] (TFLM's QuantizedMeanOrSum for int16):
 * MBQM(sum - input_zero_point * count, multiplier, shift) + output_zero_point, clamped;
 * count = reduce * reduce2 is at most 32768, so that the sum stays an int32. */
flex_status flex_s16_reduce_sum(int32_t outer, int32_t reduce, int32_t mid, int32_t reduce2,
                                int32_t inner, const int16_t *input, size_t input_len,
                                int32_t input_zero_point, int32_t multiplier, int32_t shift,
                                int32_t output_zero_point, int16_t *output,
                                size_t output_len);
/* Pools over the in-bounds cells of each window (same scale in and out, out.c == in.c). */
flex_status flex_s16_avg_pool2d(const flex_dims4 *in_dims, const int16_t *input,
                                size_t input_len, const flex_window *win,
                                int32_t act_min, int32_t act_max,
                                const flex_dims4 *out_dims, int16_t *output,
                                size_t output_len);
flex_status flex_s16_max_pool2d(const flex_dims4 *in_dims, const int16_t *input,
                                size_t input_len, const flex_window *win,
                                int32_t act_min, int32_t act_max,
                                const flex_dims4 *out_dims, int16_t *output,
                                size_t output_len);
/* flex_s8_softmax with int16 outputs at scale 1/65536, zero point -32768 (TFLM's SOFTMAX of
 * an int8 input to an int16 output). */
flex_status flex_s8_softmax_s16(int32_t outer, int32_t depth, const int8_t *input,
                                size_t input_len, int32_t input_multiplier,
                                int32_t input_left_shift, int32_t diff_min, int16_t *output,
                                size_t output_len);
/* Softmax over the last axis of [outer, depth] (depth <= 65536), output scale 1/32768: TFLM's
 * SoftmaxInt16, with its two 513-entry tables (exp on [-10, 0], 1 / (1 + x) on [0, 1]) and
 * input_multiplier / input_left_shift quantizing input_scale * beta / (10 / 65535). */
flex_status flex_s16_softmax(int32_t outer, int32_t depth, const int16_t *input,
                             size_t input_len, int32_t input_multiplier,
                             int32_t input_left_shift, const int16_t *exp_lut,
                             size_t exp_lut_len, const int16_t *inv_lut, size_t inv_lut_len,
                             int16_t *output, size_t output_len);
/* int16 LOGISTIC and TANH of n values (output scale 1/32768, zero point 0): TFLM's reference
 * integer Logistic and Tanh. Each input is rescaled to steps of 1 / (3 * 4096),
 * (x * input_multiplier + rounding) >> input_left_shift, or x * (3 << input_left_shift) when
 * input_multiplier is 0 (TFLM's power-of-two scales), then looked up with linear
 * interpolation in `table`: the 256 entries of sigmoid(i / 24) in Q0.16, uint16 values in
 * int16 storage (TANH reads it at twice the input). input_multiplier in [0, 65535],
 * input_left_shift in [0, 31], with 32768 times the multiplier plus the rounding within
 * int32. `output` may be `input`. */
flex_status flex_s16_logistic(size_t n, const int16_t *input, int32_t input_multiplier,
                              int32_t input_left_shift, const int16_t *table, size_t table_len,
                              int16_t *output);
flex_status flex_s16_tanh(size_t n, const int16_t *input, int32_t input_multiplier,
                          int32_t input_left_shift, const int16_t *table, size_t table_len,
                          int16_t *output);
/* int16 LEAKY_RELU of n values, TFLM's reference QuantizeLeakyRelu: x = q - input_zero_point
 * rescaled by MBQM with the identity multiplier (in_scale / out_scale) when x >= 0, with the
 * alpha one (in_scale * alpha / out_scale, negative for a negative alpha) when x < 0, plus
 * output_zero_point, clamped to int16. Zero points within int16, identity_multiplier >= 0,
 * shifts in [-31, 14]. `output` may be `input`. */
flex_status flex_s16_leaky_relu(size_t n, const int16_t *input, int32_t input_zero_point,
                                int32_t output_zero_point, int32_t identity_multiplier,
                                int32_t identity_shift, int32_t alpha_multiplier,
                                int32_t alpha_shift, int16_t *output);
/* int16x8 transposed convolution (TFLM's int16 TransposeConv): flex_s8_transpose_conv2d's
 * arguments with int16 input and output; the sum in int64 with the int32 bias, requantized
 * by TFLM's int64 MultiplyByQuantizedMultiplier (shifts in [-31, 7]); q's offsets 0, its
 * clamp within int16. */
flex_status flex_s16_transpose_conv2d(
    const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_transpose_window *win, const flex_s8_quant *q, const flex_dims4 *out_dims,
    int16_t *output, size_t output_len);
/* int16 nearest-neighbour resize (TFLM's ResizeNearestNeighbor): input [n, ih, iw, c] ->
 * output [n, oh, ow, c], output pixel (b, y, x) the input pixel (b, ys[3 * y], xs[3 * x])
 * copied; the tables are the resize op's (flex_s8_resize), the other entries unread but
 * checked alike. */
flex_status flex_s16_resize_nearest(int32_t n, int32_t ih, int32_t iw, int32_t c, int32_t oh,
                                    int32_t ow, const int16_t *input, size_t input_len,
                                    const int32_t *ys, size_t ys_len, const int32_t *xs,
                                    size_t xs_len, int16_t *output, size_t output_len);

#endif /* FLEX_API_S16_H */

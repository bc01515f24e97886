/* What ref/ offers the optimised kernels: the reference kernels that a target may replace,
 * under their own names (flex__ref_*, same arguments as the public kernel of flex.h), and
 * the checks they share. entry/ binds the public names to these where a target has no
 * opt/<target>/ file of the same name (flex_c/sources.py). */
#ifndef FLEX_REF_H
#define FLEX_REF_H

#include "../common/s8_checks.h"

flex_status flex__ref_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input,
                                size_t input_len, const int8_t *filter, size_t filter_len,
                                const int32_t *bias, size_t bias_len,
                                const int32_t *multiplier, const int32_t *shift,
                                size_t quant_len, const flex_window *win, int32_t groups,
                                const flex_s8_quant *q, const flex_dims4 *out_dims,
                                int8_t *output, size_t output_len);
flex_status flex__ref_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex__ref_s8_fully_connected(int32_t batches, int32_t in_features,
                                         int32_t out_features, const int8_t *input,
                                         size_t input_len, const int8_t *filter,
                                         size_t filter_len, int32_t filter_offset,
                                         const int32_t *bias, size_t bias_len,
                                         const int32_t *multiplier, const int32_t *shift,
                                         size_t quant_len, const flex_s8_quant *q,
                                         int8_t *output, size_t output_len);
/* The reference ADD, with flex_s8_add's arguments plus `op`, which says how the scaled
 * inputs combine: their sum (FLEX__S8_ADD), difference (FLEX__S8_SUB) or squared difference
 * (TFLM's int8 SUB and SQUARED_DIFFERENCE, the optional ops of extra/s8_arith.c). ADD's
 * name is a macro, so that a default build has no wrapper function. */
#define FLEX__S8_ADD 0
#define FLEX__S8_SUB 1
#define FLEX__S8_SQUARED_DIFFERENCE 2
flex_status flex__ref_s8_add_op(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                                const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                                const flex_s8_add_params *p, const flex_dims4 *out_dims,
                                int8_t *output, size_t output_len, int32_t op);
#define flex__ref_s8_add(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims, output, \
                         output_len)                                                            \
    flex__ref_s8_add_op(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims, output,   \
                        output_len, FLEX__S8_ADD)
flex_status flex__ref_s8_avg_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                                    size_t input_len, const flex_window *win,
                                    int32_t act_min, int32_t act_max,
                                    const flex_dims4 *out_dims, int8_t *output,
                                    size_t output_len);

/* All checks of flex_s8_add; fills each input's element strides as read in the output's
 * shape (0 on broadcast axes). */
flex_status flex__s8_add_check(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                               const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                               const flex_s8_add_params *p, const flex_dims4 *out_dims,
                               const int8_t *output, size_t output_len, int32_t s1[4],
                               int32_t s2[4]);
/* All checks of the int8 pools (flex_s8_avg_pool2d, flex_s8_max_pool2d). */
flex_status flex__s8_pool_check(const flex_dims4 *in_dims, const int8_t *input,
                                size_t input_len, const flex_window *win, int32_t act_min,
                                int32_t act_max, const flex_dims4 *out_dims,
                                const int8_t *output, size_t output_len);

#endif

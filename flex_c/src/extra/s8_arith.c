/* int8 SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM: optional ops (burn.graph.ops.OPTIONAL).
 * SUB and SQUARED_DIFFERENCE are ADD's arithmetic (ref/s8_elementwise.c) with the scaled
 * inputs subtracted, and squared. */
#include "../ref/ref.h"

flex_status flex_s8_sub(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_add_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return flex__ref_s8_add_op(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                               output, output_len, FLEX__S8_SUB);
}

flex_status flex_s8_squared_difference(const flex_dims4 *in1_dims, const int8_t *in1,
                                       size_t in1_len, const flex_dims4 *in2_dims,
                                       const int8_t *in2, size_t in2_len,
                                       const flex_s8_add_params *p, const flex_dims4 *out_dims,
                                       int8_t *output, size_t output_len) {
    return flex__ref_s8_add_op(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                               output, output_len, FLEX__S8_SQUARED_DIFFERENCE);
}

flex_status flex_s8_arith(int32_t op, size_t n, const int8_t *a, const int8_t *b,
                          size_t b_len, int8_t *output) {
    FLEX__EXTREME_BODY(int8_t);
}

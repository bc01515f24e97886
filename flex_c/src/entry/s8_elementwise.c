/* int8 ADD of a target without an opt/<target>/s8_elementwise.c: the reference kernel. */
#include "../ref/ref.h"

flex_status flex_s8_add(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_add_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return flex__ref_s8_add(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                            output, output_len);
}

/* int8 average pool of a target without an opt/<target>/s8_pool.c: the reference kernel. */
#include "../ref/ref.h"

flex_status flex_s8_avg_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                               size_t input_len, const flex_window *win,
                               int32_t act_min, int32_t act_max,
                               const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return flex__ref_s8_avg_pool2d(in_dims, input, input_len, win, act_min, act_max, out_dims,
                                   output, output_len);
}

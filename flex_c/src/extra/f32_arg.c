/* float32 ARG_MAX / ARG_MIN, as TFLM's ArgMinMax with its GreaterFn / LessFn, with float32
 * or int32 indices. */
#include "../common/internal.h"

flex_status flex_f32_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                         const float *input, size_t input_len, float *output,
                         size_t output_len) {
    int32_t a, k, r;
    FLEX_TRY(flex__arg_check(outer, reduce, inner, op, input, input_len, output, output_len));
    for (a = 0; a < outer; a++)
        for (k = 0; k < inner; k++) {
            const float *x = input + a * reduce * inner + k;
            float best = x[0];
            int32_t index = 0;
            for (r = 1; r < reduce; r++) {
                const float v = x[r * inner];
                if (op & 1 ? v < best : v > best) {
                    best = v;
                    index = r;
                }
            }
            flex__store_index(output++, index, op);
        }
    return FLEX_OK;
}

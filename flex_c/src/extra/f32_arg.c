/* float32 ARG_MAX / ARG_MIN, as TFLM's ArgMinMax with its GreaterFn / LessFn, with float32
 * or int32 indices. */
#include "../common/internal.h"

flex_status flex_f32_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                         const float *input, size_t input_len, float *output,
                         size_t output_len) {
    FLEX__ARG_BODY(float, float);
}

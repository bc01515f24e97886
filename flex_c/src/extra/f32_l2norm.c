/* float32 L2_NORMALIZATION over the last axis, as TFLM's reference kernel (epsilon 1e-6). */
#include "../common/internal.h"

flex_status flex_f32_l2norm(int32_t rows, int32_t depth, const float *input, size_t input_len,
                            float *output, size_t output_len) {
    int32_t r, k;
    FLEX_TRY(flex__check_rows(rows, depth, INT32_MAX, input, input_len, output, output_len));
    for (r = 0; r < rows; r++) {
        const float *x = input + r * depth;
        float sum = 0.0f, norm;
        for (k = 0; k < depth; k++)
            sum += x[k] * x[k];
        norm = flex__sqrtf(sum);
        if (norm < 1e-6f)
            norm = 1e-6f;
        for (k = 0; k < depth; k++)
            output[r * depth + k] = x[k] / norm;
    }
    return FLEX_OK;
}

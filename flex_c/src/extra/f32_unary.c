/* float32 activations of TFLite's unary ops that flex_f32_unary lacks. */
#include "../common/internal.h"

flex_status flex_f32_activation(int32_t op, size_t n, const float *input, float alpha,
                                float *output) {
    size_t i;
    if (op >= 0 && op < FLEX_UNARY_COUNT)
        return flex_f32_unary(op, n, input, output);
    if (!input || !output)
        return FLEX_E_NULL;
    if (op < FLEX_ACTIVATION_ELU || op > FLEX_ACTIVATION_HARD_SIGMOID || alpha != alpha)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        const float x = input[i];
        if (op == FLEX_ACTIVATION_ELU) {
            output[i] = x < 0.0f ? flex__expm1f(x) : x;
        } else if (op == FLEX_ACTIVATION_HARD_SWISH) {
            const float r = x + 3.0f;
            output[i] = x * (r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r)) / 6.0f;
        } else if (op == FLEX_ACTIVATION_LEAKY_RELU) {
            output[i] = x > 0.0f ? x : x * alpha;
        } else {
            const float r = alpha * x + 0.5f;
            output[i] = r < 0.0f ? 0.0f : (r > 1.0f ? 1.0f : r);
        }
    }
    return FLEX_OK;
}

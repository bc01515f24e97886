/* float32 PRELU. */
#include "../common/internal.h"

flex_status flex_f32_prelu(size_t n, const float *input, const float *alpha, size_t alpha_len,
                           float *output) {
    size_t i, j = 0;
    if (!input || !alpha || !output)
        return FLEX_E_NULL;
    if (alpha_len == 0 || n % alpha_len)
        return FLEX_E_SIZE;
    for (i = 0; i < n; i++) {
        const float x = input[i];
        output[i] = x >= 0.0f ? x : x * alpha[j];
        if (++j == alpha_len)
            j = 0;
    }
    return FLEX_OK;
}

/* TFLite CAST from or to float32 (the optional op `cast`, burn.graph.cast), as TFLM's
 * static_cast: a float32 truncates toward zero, an int32 becomes the nearest float32 (ties
 * to even). A float32 beyond the target's range, undefined in C and so in TFLM, saturates;
 * NaN gives 0. */
#include "../common/internal.h"

/* x truncated toward zero into a signed integer of `bits`, saturating; NaN gives 0. */
static int32_t truncated(float x, int32_t bits) {
    const float top = (float)(1u << (bits - 1)); /* 2^(bits-1), exact in float32 */
    if (x >= top)
        return (int32_t)((1u << (bits - 1)) - 1u);
    if (x >= -top)
        return (int32_t)x;
    if (x < -top)
        return -(int32_t)((1u << (bits - 1)) - 1u) - 1;
    return 0;
}

flex_status flex_cast_f32_s8(size_t n, const float *input, int8_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = (int8_t)truncated(input[i], 8);
    return FLEX_OK;
}

flex_status flex_cast_f32_s16(size_t n, const float *input, int16_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = (int16_t)truncated(input[i], 16);
    return FLEX_OK;
}

flex_status flex_cast_f32_s32(size_t n, const float *input, int32_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = truncated(input[i], 32);
    return FLEX_OK;
}

flex_status flex_cast_s32_f32(size_t n, const int32_t *input, float *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = (float)input[i];
    return FLEX_OK;
}

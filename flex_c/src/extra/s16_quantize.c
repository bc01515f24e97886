/* float32 <-> int16 conversion, as TFLM's QUANTIZE / DEQUANTIZE of int16 tensors (a float
 * file: builds without an FPU leave it out). */
#include "../common/internal.h"

static int in_int16(int32_t v) {
    return v >= -32768 && v <= 32767;
}

flex_status flex_s16_quantize(size_t n, const float *input, float scale, int32_t zero_point,
                              int16_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    if (!in_int16(zero_point) || !(scale > 0.0f) || scale == flex__inff())
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        const float r = flex__roundf(input[i] / scale);
        int32_t q;
        /* saturate before converting: out-of-range float -> int conversion is undefined */
        if (r != r)
            q = zero_point;
        else if (r > 100000.0f)
            q = 32767;
        else if (r < -100000.0f)
            q = -32768;
        else
            q = flex__clamp((int32_t)r + zero_point, -32768, 32767);
        output[i] = (int16_t)q;
    }
    return FLEX_OK;
}

flex_status flex_s16_dequantize(size_t n, const int16_t *input, float scale,
                                int32_t zero_point, float *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    if (!in_int16(zero_point))
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++)
        output[i] = scale * (float)(input[i] - zero_point);
    return FLEX_OK;
}

/* float32 <-> int8 conversion, as TFLM's QUANTIZE / DEQUANTIZE (the float half of the
 * conversions: builds without an FPU leave this file out). */
#include "../common/internal.h"

/* What both conversions check: the buffers and the int8 zero point. */
static flex_status check(const void *input, const void *output, int32_t zero_point) {
    if (!input || !output)
        return FLEX_E_NULL;
    return flex__check_zero_point(zero_point);
}

flex_status flex_s8_quantize(size_t n, const float *input, float scale, int32_t zero_point,
                             int8_t *output) {
    size_t i;
    FLEX_TRY(check(input, output, zero_point));
    if (!(scale > 0.0f) || scale == flex__inff())
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        float r = flex__roundf(input[i] / scale);
        int32_t q;
        /* saturate before converting: out-of-range float -> int conversion is undefined */
        if (r != r)
            q = zero_point;
        else if (r > 1000.0f)
            q = 127;
        else if (r < -1000.0f)
            q = -128;
        else
            q = flex__clamp((int32_t)r + zero_point, -128, 127);
        output[i] = (int8_t)q;
    }
    return FLEX_OK;
}

flex_status flex_s8_dequantize(size_t n, const int8_t *input, float scale, int32_t zero_point,
                               float *output) {
    size_t i;
    FLEX_TRY(check(input, output, zero_point));
    for (i = 0; i < n; i++)
        output[i] = scale * (float)(input[i] - zero_point);
    return FLEX_OK;
}

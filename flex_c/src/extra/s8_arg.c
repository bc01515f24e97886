/* int8 ARG_MAX / ARG_MIN, as TFLM's reference ArgMinMax, with float32 or int32 indices. */
#include "../common/internal.h"

flex_status flex__arg_check(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                            const void *input, size_t input_len, const float *output,
                            size_t output_len) {
    int32_t count;
    if (!input || !output)
        return FLEX_E_NULL;
    if (outer < 1 || inner < 1 || reduce < 1 || reduce > (1 << 24))
        return FLEX_E_SHAPE;
    if (op < 0 || op > 3)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__product(outer, inner, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(flex__product(count, reduce, &count));
    return flex__check_len(input_len, count);
}

void flex__store_index(float *out, int32_t index, int32_t op) {
    union {
        uint32_t u;
        float f;
    } v;
    int32_t e = 0;
    v.u = 0;
    if (op & 2)
        v.u = (uint32_t)index;
    else if (index > 0) {
        while ((2 << e) <= index)
            e++;
        v.u = ((uint32_t)(127 + e) << 23) | (((uint32_t)index << (23 - e)) & 0x7FFFFFu);
    }
    *out = v.f;
}

flex_status flex_s8_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                        const int8_t *input, size_t input_len, float *output,
                        size_t output_len) {
    FLEX__ARG_BODY(int8_t, int32_t);
}

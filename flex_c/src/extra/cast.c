/* TFLite CAST of an integer narrowed to a smaller one (the optional op `cast`,
 * burn.graph.cast), as TFLM's static_cast: the low bits, as two's complement, written here
 * without C's implementation-defined conversion. The float32 casts are in f32_cast.c. */
#include "../common/internal.h"

/* The low `bits` bits of v as a signed integer of that width (8 or 16). */
static int32_t low_bits(int32_t v, int32_t bits) {
    const uint32_t u = (uint32_t)v & ((1u << bits) - 1u), sign = 1u << (bits - 1);
    return (int32_t)(u & (sign - 1u)) - (int32_t)(u & sign);
}

flex_status flex_cast_s32_s8(size_t n, const int32_t *input, int8_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = (int8_t)low_bits(input[i], 8);
    return FLEX_OK;
}

flex_status flex_cast_s32_s16(size_t n, const int32_t *input, int16_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = (int16_t)low_bits(input[i], 16);
    return FLEX_OK;
}

flex_status flex_cast_s16_s8(size_t n, const int16_t *input, int8_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = (int8_t)low_bits(input[i], 8);
    return FLEX_OK;
}

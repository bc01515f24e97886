/* TFLite CAST of an integer narrowed to a smaller one (the optional op `cast`,
 * burn.graph.cast), as TFLM's static_cast: the low bits, as two's complement, written here
 * without C's implementation-defined conversion. The float32 casts are in f32_cast.c. */
#include "../common/internal.h"

/* The low `bits` bits of v as a signed integer of that width (8 or 16). */
static int32_t low_bits(int32_t v, int32_t bits) {
    const uint32_t u = (uint32_t)v & ((1u << bits) - 1u), sign = 1u << (bits - 1);
    return (int32_t)(u & (sign - 1u)) - (int32_t)(u & sign);
}

/* A narrowing cast kernel: `bits` low bits of each element, from type IN to type OUT. */
#define CAST_LOW_BITS(NAME, IN, OUT, BITS)                                  \
    flex_status NAME(size_t n, const IN *input, OUT *output) {              \
        size_t i;                                                           \
        if (!input || !output)                                              \
            return FLEX_E_NULL;                                             \
        for (i = 0; i < n; i++)                                             \
            output[i] = (OUT)low_bits(input[i], BITS);                      \
        return FLEX_OK;                                                     \
    }

CAST_LOW_BITS(flex_cast_s32_s8, int32_t, int8_t, 8)
CAST_LOW_BITS(flex_cast_s32_s16, int32_t, int16_t, 16)
CAST_LOW_BITS(flex_cast_s16_s8, int16_t, int8_t, 8)

/* The float32 and int8 kernels' vector widths: the CPU's, unless flex_f32_vector_width or
 * flex_s8_vector_width capped them. */
#include "internal.h"

#ifdef FLEX_WIDE
static int32_t width_cap = 16;

int flex__wide(void) {
    static int32_t has_v4 = -1;
    if (has_v4 < 0) {
        __builtin_cpu_init();
        has_v4 = __builtin_cpu_supports("x86-64-v4") ? 1 : 0;
    }
    return has_v4 && width_cap >= 16;
}
#endif

int32_t flex_f32_vector_width(int32_t limit) {
#ifdef FLEX_WIDE
    if (limit > 0)
        width_cap = limit;
    if (flex__wide())
        return 16;
#else
    (void)limit;
#endif
#ifdef FLEX_VECTOR
    return 8;
#else
    return 1;
#endif
}

#ifdef FLEX_S8_SIMD
static int32_t s8_cap = 64;

/* 64 with AVX-512 VNNI (and BW, VL), 32 with AVX2, else 0; at most the cap's level. */
int32_t flex__s8_simd(void) {
    static int32_t has = -1;
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl")
                  ? 64
                  : (__builtin_cpu_supports("avx2") ? 32 : 0);
    }
    return has >= 64 && s8_cap >= 64 ? 64 : (has >= 32 && s8_cap >= 32 ? 32 : 0);
}
#endif

int32_t flex_s8_vector_width(int32_t limit) {
#ifdef FLEX_S8_SIMD
    if (limit > 0)
        s8_cap = limit;
    return flex__s8_simd();
#else
    (void)limit;
    return 0;
#endif
}

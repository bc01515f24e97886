/* The Arm DSP-extension instructions the kernels of this folder use, as inline functions
 * (the same text for GCC and clang, whatever ACLE version they carry). */
#ifndef FLEX_DSP_OPS_H
#define FLEX_DSP_OPS_H

#include "../../common/internal.h"

#if !defined(__ARM_FEATURE_DSP)
#error "opt/cortex_m_dsp needs a core with the DSP extension (-mcpu=cortex-m4, m7, m33+dsp)"
#endif

/* A word read from any byte address (Armv7-M and later load unaligned words). */
typedef int32_t flex__dsp_word __attribute__((aligned(1), may_alias));

FLEX_INLINE int32_t flex__dsp_load(const int8_t *p) {
    return *(const flex__dsp_word *)p;
}

/* (int16)(int8)x[7:0] | (int16)(int8)x[23:16] << 16: bytes 0 and 2 sign-extended. */
FLEX_INLINE int32_t flex__dsp_sxtb16(int32_t x) {
    int32_t r;
    __asm__("sxtb16 %0, %1" : "=r"(r) : "r"(x));
    return r;
}

/* Bytes 1 and 3 sign-extended to the two halves. */
FLEX_INLINE int32_t flex__dsp_sxtb16_ror8(int32_t x) {
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}

/* a + the halves of flex__dsp_sxtb16(x), each half added separately (wrapping int16). */
FLEX_INLINE int32_t flex__dsp_sxtab16(int32_t a, int32_t x) {
    int32_t r;
    __asm__("sxtab16 %0, %1, %2" : "=r"(r) : "r"(a), "r"(x));
    return r;
}

/* a + the halves of flex__dsp_sxtb16_ror8(x). */
FLEX_INLINE int32_t flex__dsp_sxtab16_ror8(int32_t a, int32_t x) {
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
    return r;
}

/* acc + a.lo * b.lo + a.hi * b.hi (int16 halves, wrapping int32). */
FLEX_INLINE int32_t flex__dsp_smlad(int32_t a, int32_t b, int32_t acc) {
    int32_t r;
    __asm__("smlad %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

/* acc + a.lo * b.lo (int16 halves). */
FLEX_INLINE int32_t flex__dsp_smlabb(int32_t a, int32_t b, int32_t acc) {
    int32_t r;
    __asm__("smlabb %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

/* acc + a.hi * b.hi (int16 halves). */
FLEX_INLINE int32_t flex__dsp_smlatt(int32_t a, int32_t b, int32_t acc) {
    int32_t r;
    __asm__("smlatt %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

#endif

/* TFLM's int8 requantization of four accumulators at once on Helium (MVE), bit for bit:
 * MultiplyByQuantizedMultiplier is a left shift, VQRDMULH (SaturatingRoundingDoublingHighMul
 * exactly, its rounding and its one saturating case) and a rounding right shift whose ties go
 * away from zero, as RoundingDivideByPOT's do: VRSHL rounds ties up, so a negative value is
 * first lowered by one (the fix-up), which turns its ties down and moves no other value. */
#ifndef FLEX_MVE_REQUANT_H
#define FLEX_MVE_REQUANT_H

#include <arm_mve.h>

#include "../../common/internal.h"

#if !defined(__ARM_FEATURE_MVE)
#error "opt/cortex_m_mve needs a core with Helium (-mcpu=cortex-m55 with MVE)"
#endif

/* The int8 results (in int32 lanes) of acc (bias already added) through multiplier m and
 * shift s per lane, plus the output zero point zp, clamped to [lo, hi] (per lane). */
FLEX_INLINE int32x4_t flex__mve_requant(int32x4_t acc, int32x4_t m, int32x4_t s, int32_t zp,
                                        int32x4_t lo, int32x4_t hi) {
    const int32x4_t left = vmaxq_s32(s, vdupq_n_s32(0));
    const int32x4_t right = vminq_s32(s, vdupq_n_s32(0)); /* minus the right shift */
    int32x4_t r = vqrdmulhq_s32(vshlq_s32(acc, left), m);
    r = vqaddq_s32(r, vshrq_n_s32(vandq_s32(r, right), 31));
    r = vaddq_n_s32(vrshlq_s32(r, right), zp);
    return vminq_s32(vmaxq_s32(r, lo), hi);
}

/* The same with one multiplier m and shift s for every lane, each shift only when it
 * applies. */
FLEX_INLINE int32x4_t flex__mve_requant1(int32x4_t acc, int32_t m, int32_t s, int32_t zp,
                                         int32x4_t lo, int32x4_t hi) {
    if (s > 0)
        acc = vshlq_r_s32(acc, s);
    acc = vqrdmulhq_n_s32(acc, m);
    if (s < 0)
        acc = vrshlq_n_s32(vqaddq_s32(acc, vshrq_n_s32(acc, 31)), s);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(acc, zp), lo), hi);
}

#endif

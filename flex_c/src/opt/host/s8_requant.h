/* Host requantization of a row of int32 accumulators with per-element multipliers and
 * shifts, in a form the compiler vectorizes (64-bit products of 32-bit lanes, per-lane
 * shifts) and bit-identical to flex__s8_requant (TFLM's MultiplyByQuantizedMultiplier):
 *
 * - TFLM's rounding doubling high multiply divides ab + nudge by 2^31 truncating, with
 *   nudge 2^30 for ab >= 0 and 1 - 2^30 for ab < 0. For ab < 0 the sum is negative, so the
 *   truncation is a ceiling: ceil((ab + 1 - 2^30) / 2^31) = floor((ab + 2^30) / 2^31), the
 *   formula of ab >= 0. One expression serves both signs.
 * - |ab| <= 2^62, so that floor fits in 32 bits and is the low word of a logical shift.
 *   Only a = b = INT32_MIN reaches 2^31, which TFLM saturates to INT32_MAX (one less).
 * - The rounding divide by 2^right is gemmlowp's, written without branches. */
#ifndef FLEX_HOST_S8_REQUANT_H
#define FLEX_HOST_S8_REQUANT_H

#include "../../common/internal.h"

/* Splits TFLM shifts (> 0 left, <= 0 right) into left and right shift counts. */
FLEX_INLINE void flex__host_split_shifts(const int32_t *shift, int32_t n, int32_t *left,
                                         int32_t *right) {
    int32_t i;
    for (i = 0; i < n; i++) {
        left[i] = shift[i] > 0 ? shift[i] : 0;
        right[i] = shift[i] > 0 ? 0 : -shift[i];
    }
}

/* flex__mbqm(x, multiplier, shift) with shift split into left / right counts. */
FLEX_INLINE int32_t flex__host_mbqm(int32_t x, int32_t multiplier, int32_t left,
                                    int32_t right) {
    const int32_t a = (int32_t)((uint32_t)x << left);
    const int64_t ab = (int64_t)a * multiplier;
    const int32_t high = (int32_t)((uint32_t)((uint64_t)(ab + ((int64_t)1 << 30)) >> 31) -
                                   (uint32_t)((a == INT32_MIN) & (multiplier == INT32_MIN)));
    const int32_t mask = (int32_t)(((uint32_t)1 << right) - 1u);
    return (high >> right) + ((high & mask) > (mask >> 1) + (high < 0));
}

/* out[i] = clamp(mbqm(acc[i] + bias[i], multiplier[i], shift i) + output offset), the
 * int32 additions wrapping like TFLM's. bias may be NULL. */
FLEX_INLINE void flex__host_requant_row(const int32_t *restrict acc,
                                        const int32_t *restrict bias,
                                        const int32_t *restrict multiplier,
                                        const int32_t *restrict left,
                                        const int32_t *restrict right, int32_t n,
                                        const flex_s8_quant *q, int8_t *restrict out) {
    const int32_t offset = q->output_offset, lo = q->act_min, hi = q->act_max;
    int32_t i;
    for (i = 0; i < n; i++) {
        const int32_t x = bias ? FLEX_WADD(acc[i], bias[i]) : acc[i];
        const int32_t v = FLEX_WADD(flex__host_mbqm(x, multiplier[i], left[i], right[i]),
                                    offset);
        out[i] = (int8_t)(v < lo ? lo : (v > hi ? hi : v));
    }
}

#endif

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

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/* wasm32 SIMD128 (no per-lane shifts there): flex__host_requant_row four outputs a step, the
 * shifts by per-channel constants. A left shift is a multiply by 2^left (wrapping alike); the
 * rounding divide by 2^right is floor((x + nudge) / 2^right), with nudge 2^(right - 1) - (x <
 * 0) for right > 0 and 0 for right 0 (gemmlowp's remainder test: remainder > threshold exactly
 * when remainder + nudge reaches 2^right), the floor taken as ((int64)(x + nudge) *
 * 2^(32 - right)) >> 32 (|x + nudge| < 2^32, so the product stays below 2^63). */
#define FLEX__WASM_CHANNELS 1024
typedef struct {
    int32_t lpow[FLEX__WASM_CHANNELS], half[FLEX__WASM_CHANNELS], neg[FLEX__WASM_CHANNELS];
    int64_t rpow[FLEX__WASM_CHANNELS];
} flex__wasm_requant;

/* The constants of TFLM shifts shift[0:n] (n <= FLEX__WASM_CHANNELS). */
FLEX_INLINE void flex__wasm_requant_prepare(const int32_t *shift, int32_t n,
                                            flex__wasm_requant *r) {
    int32_t i;
    for (i = 0; i < n; i++) {
        const int32_t left = shift[i] > 0 ? shift[i] : 0, right = shift[i] > 0 ? 0 : -shift[i];
        r->lpow[i] = (int32_t)((uint32_t)1 << left);
        r->half[i] = right ? (int32_t)1 << (right - 1) : 0;
        r->neg[i] = right ? 1 : 0;
        r->rpow[i] = (int64_t)1 << (32 - right);
    }
}

/* flex__host_mbqm of four lanes by one multiplier and one split shift (a tensor's). */
FLEX_INLINE v128_t flex__wasm_mbqm4(v128_t x, int32_t multiplier, int32_t left, int32_t right) {
    const v128_t m = wasm_i32x4_splat(multiplier), zero = wasm_i32x4_splat(0);
    const v128_t a = wasm_i32x4_shl(x, left), round = wasm_i64x2_splat((int64_t)1 << 30);
    const v128_t p0 = wasm_u64x2_shr(wasm_i64x2_add(wasm_i64x2_extmul_low_i32x4(a, m), round),
                                     31);
    const v128_t p1 = wasm_u64x2_shr(wasm_i64x2_add(wasm_i64x2_extmul_high_i32x4(a, m), round),
                                     31);
    const v128_t sat = multiplier == INT32_MIN ? wasm_i32x4_eq(a, wasm_i32x4_splat(INT32_MIN))
                                               : zero; /* -1 where TFLM saturates */
    const v128_t high = wasm_i32x4_add(wasm_i32x4_shuffle(p0, p1, 0, 2, 4, 6), sat);
    const v128_t mask = wasm_i32x4_splat((int32_t)(((uint32_t)1 << right) - 1u));
    /* (mask >> 1) + (high < 0), and + (remainder > that): the comparisons give -1 */
    const v128_t threshold = wasm_i32x4_sub(wasm_i32x4_shr(mask, 1), wasm_i32x4_lt(high, zero));
    return wasm_i32x4_sub(wasm_i32x4_shr(high, right),
                          wasm_i32x4_gt(wasm_v128_and(high, mask), threshold));
}

/* flex__host_requant_row(acc, bias, multiplier, left, right, n, q, out) for the channels
 * c0.. of `r` (left and right: their split shifts, for the last n % 4 outputs). */
FLEX_INLINE void flex__wasm_requant_row(const int32_t *restrict acc,
                                        const int32_t *restrict bias,
                                        const int32_t *restrict multiplier,
                                        const flex__wasm_requant *r, int32_t c0,
                                        const int32_t *restrict left,
                                        const int32_t *restrict right, int32_t n,
                                        const flex_s8_quant *q, int8_t *restrict out) {
    const v128_t offset = wasm_i32x4_splat(q->output_offset);
    const v128_t lo = wasm_i32x4_splat(q->act_min), hi = wasm_i32x4_splat(q->act_max);
    const v128_t round = wasm_i64x2_splat((int64_t)1 << 30), min32 = wasm_i32x4_splat(INT32_MIN);
    int32_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        const int32_t c = c0 + i;
        const v128_t x = bias ? wasm_i32x4_add(wasm_v128_load(acc + i), wasm_v128_load(bias + i))
                              : wasm_v128_load(acc + i);
        const v128_t m = wasm_v128_load(multiplier + i);
        const v128_t a = wasm_i32x4_mul(x, wasm_v128_load(r->lpow + c));
        /* -1 where TFLM saturates (a = m = INT32_MIN) */
        const v128_t sat = wasm_v128_and(wasm_i32x4_eq(a, min32), wasm_i32x4_eq(m, min32));
        const v128_t p0 = wasm_u64x2_shr(wasm_i64x2_add(wasm_i64x2_extmul_low_i32x4(a, m), round),
                                         31);
        const v128_t p1 = wasm_u64x2_shr(wasm_i64x2_add(wasm_i64x2_extmul_high_i32x4(a, m), round),
                                         31);
        const v128_t high = wasm_i32x4_add(wasm_i32x4_shuffle(p0, p1, 0, 2, 4, 6), sat);
        const v128_t nudge = wasm_i32x4_sub(
            wasm_v128_load(r->half + c),
            wasm_v128_and(wasm_i32x4_lt(high, wasm_i32x4_splat(0)), wasm_v128_load(r->neg + c)));
        const v128_t y0 = wasm_i64x2_shr(
            wasm_i64x2_mul(wasm_i64x2_add(wasm_i64x2_extend_low_i32x4(high),
                                          wasm_i64x2_extend_low_i32x4(nudge)),
                           wasm_v128_load(r->rpow + c)), 32);
        const v128_t y1 = wasm_i64x2_shr(
            wasm_i64x2_mul(wasm_i64x2_add(wasm_i64x2_extend_high_i32x4(high),
                                          wasm_i64x2_extend_high_i32x4(nudge)),
                           wasm_v128_load(r->rpow + c + 2)), 32);
        const v128_t y = wasm_i32x4_add(wasm_i32x4_shuffle(y0, y1, 0, 2, 4, 6), offset);
        const v128_t v = wasm_i32x4_min(wasm_i32x4_max(y, lo), hi);
        const v128_t h = wasm_i16x8_narrow_i32x4(v, v);
        wasm_v128_store32_lane(out + i, wasm_i8x16_narrow_i16x8(h, h), 0);
    }
    flex__host_requant_row(acc + i, bias ? bias + i : 0, multiplier + i, left + i, right + i,
                           n - i, q, out + i);
}
#endif

#endif

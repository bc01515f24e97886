/* Cortex-M0+ requantization of an int32 accumulator to int8 in 32-bit arithmetic.
 *
 * TFLM's MultiplyByQuantizedMultiplier rounds twice: round(acc * M / 2^31), then a rounding
 * divide by 2^s. For 1 <= s <= 11 both roundings fold into one floor:
 *     MBQM(acc) + zp = floor((acc * M + 2^30 + 2^(30+s) - [acc * M < 0] * 2^31
 *                             + zp * 2^(31+s)) / 2^(31+s)),
 * and because every added term is a multiple of 2^20, only F = floor(acc * M / 2^20) is
 * needed. With M split into 10-bit pieces (M = m2 * 2^20 + m1 * 2^10 + m0) and
 * |acc| < 2^19, F takes three 32-bit multiplies without overflow:
 *     F = acc * m2 + ((acc * m1 + ((acc * m0) >> 10)) >> 10).
 * Larger accumulators (whose outputs almost always saturate) and channels with other shifts
 * take the general flex__s8_requant, so every result is bit-identical to the reference. */
#ifndef FLEX_M0_REQUANT_H
#define FLEX_M0_REQUANT_H

#include "../../common/s8_checks.h"

#define FLEX_M0_RQ_LIMIT (1u << 19)

/* One output channel's requantization; flex__m0_rq_init fills it. */
typedef struct {
    int32_t base;       /* bias plus the folded input offset, added to the accumulator */
    int32_t m0, m1, m2; /* the multiplier in 10-bit pieces (m2 keeps the sign) */
    int32_t nudge;      /* 2^10 + 2^(10+s) + output_offset * 2^(11+s) */
    int32_t shift;      /* 11 + s, or 0 when the channel takes the general path */
    int32_t multiplier, raw_shift;
} flex__m0_rq;

void flex__m0_rq_init(flex__m0_rq *r, int32_t base, int32_t multiplier, int32_t shift,
                      const flex_s8_quant *q);

/* clamp(MBQM(acc + r->base) + output_offset, act_min, act_max), as flex__s8_requant. */
FLEX_INLINE int8_t flex__m0_requant(int32_t acc, const flex__m0_rq *r,
                                    const flex_s8_quant *q) {
    acc = FLEX_WADD(acc, r->base);
    if (r->shift != 0 && (uint32_t)acc + FLEX_M0_RQ_LIMIT < 2u * FLEX_M0_RQ_LIMIT) {
        const int32_t low = (acc * r->m0) >> 10;
        const int32_t f = acc * r->m2 + ((acc * r->m1 + low) >> 10);
        const int32_t v = (f + r->nudge - (int32_t)(((uint32_t)f >> 31) << 11)) >> r->shift;
        return (int8_t)(v < q->act_min ? q->act_min : (v > q->act_max ? q->act_max : v));
    }
    return flex__s8_requant(acc, r->multiplier, r->raw_shift, q);
}

#endif

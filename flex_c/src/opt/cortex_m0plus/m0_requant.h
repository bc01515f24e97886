/* Cortex-M0+ requantization of an int32 accumulator to int8 in 32-bit arithmetic.
 *
 * TFLM's MultiplyByQuantizedMultiplier rounds twice: round(acc * M / 2^31), then a rounding
 * divide by 2^s (half away from zero). For 1 <= s <= 12 both roundings and the output zero
 * point fold into one floor:
 *     MBQM(acc) + zp = floor((acc * M + 2^30 + 2^(30+s) - [acc * M < 0] * 2^31
 *                             + zp * 2^(31+s)) / 2^(31+s)),
 * and as every added term is a multiple of 2^21, only F = floor(acc * M / 2^21) is needed.
 * With M split into pieces (M = m2 * 2^21 + m1 * 2^11 + m0, m0 < 2^11, m1 < 2^10) and
 * |acc| < 2^20, F takes three 32-bit multiplies that cannot overflow:
 *     F = acc * m2 + ((acc * m1 + ((acc * m0) >> 11)) >> 10),
 *     out = clamp((F + nudge - [F < 0] * 2^10) >> (10 + s), act_min, act_max).
 * Larger accumulators (whose outputs almost always saturate) and channels with other shifts
 * take the general flex__s8_requant, so every result is bit-identical to the reference. */
#ifndef FLEX_M0_REQUANT_H
#define FLEX_M0_REQUANT_H

#include "../../common/s8_checks.h"

#define FLEX_M0_RQ_LIMIT (1 << 20) /* |acc| below this takes the fast form */

/* One output channel's requantization; flex__m0_rq_init fills it. */
typedef struct {
    int32_t m0, m1, m2; /* the multiplier in pieces (m2 keeps the sign) */
    int32_t nudge;      /* 2^9 + 2^(9+s) + output_offset * 2^(10+s) */
    int32_t shift;      /* 10 + s, or 0 when the channel takes the general path */
    int32_t base;       /* bias plus the folded input offset, added to the accumulator */
    int32_t multiplier, raw_shift;
} flex__m0_rq;

FLEX_INLINE void flex__m0_rq_init(flex__m0_rq *r, int32_t base, int32_t multiplier,
                                  int32_t shift, const flex_s8_quant *q) {
    const int32_t s = -shift;
    r->base = base;
    r->multiplier = multiplier;
    r->raw_shift = shift;
    r->m0 = multiplier & 0x7FF;
    r->m1 = (multiplier >> 11) & 0x3FF;
    r->m2 = multiplier >> 21;
    /* s > 12 would overflow the nudge; s == 0 rounds once only (no sign term) */
    r->shift = s >= 1 && s <= 12 ? 10 + s : 0;
    r->nudge = r->shift ? (1 << 9) + (1 << (9 + s)) + q->output_offset * (1 << (10 + s)) : 0;
}

/* Records of n output channels whose weight rows (k each) start at w, or whose row sums are
 * sums[0:n] when sums is not NULL; bias, multiplier and shift point at the first channel's
 * (bias may be NULL; quant_step 0 repeats one multiplier and shift). The bias gets
 * input_offset * sum(row). Returns whether every channel has the fast form. */
int flex__m0_rq_block(flex__m0_rq *rq, int32_t n, const int8_t *w, int32_t k,
                      const int32_t *sums, const int32_t *bias, const int32_t *multiplier,
                      const int32_t *shift, int32_t quant_step, const flex_s8_quant *q);

/* The fast form of clamp(MBQM(acc) + output_offset) (acc includes the base). */
FLEX_INLINE int8_t flex__m0_requant_fast(int32_t acc, const flex__m0_rq *r,
                                         const flex_s8_quant *q) {
    const int32_t low = (acc * r->m0) >> 11;
    const int32_t f = acc * r->m2 + ((acc * r->m1 + low) >> 10);
    const int32_t v = (f + r->nudge - (int32_t)(((uint32_t)f >> 31) << 10)) >> r->shift;
    return (int8_t)(v < q->act_min ? q->act_min : (v > q->act_max ? q->act_max : v));
}

/* out[i] = clamp(MBQM(acc[i] + rq[i].base) + output_offset, act_min, act_max) for
 * 1 <= i < n, as flex__s8_requant, in assembly; every rq[i].shift must be non-zero. */
void flex__m0_requant_rows(const int32_t *acc, const flex__m0_rq *rq, int32_t n, int8_t *out,
                           const flex_s8_quant *q);

/* clamp(MBQM(acc + r->base) + output_offset, act_min, act_max), as flex__s8_requant. */
FLEX_INLINE int8_t flex__m0_requant(int32_t acc, const flex__m0_rq *r,
                                    const flex_s8_quant *q) {
    acc = FLEX_WADD(acc, r->base);
    if (r->shift != 0 && (uint32_t)acc + FLEX_M0_RQ_LIMIT < 2u * FLEX_M0_RQ_LIMIT)
        return flex__m0_requant_fast(acc, r, q);
    return flex__s8_requant(acc, r->multiplier, r->raw_shift, q);
}

/* The requantization of one block of output channels: flex__m0_requant_rows when every
 * channel has the fast form (all_fast), else one flex__m0_requant per channel. */
FLEX_INLINE void flex__m0_requant_block(const int32_t *acc, const flex__m0_rq *rq, int32_t n,
                                        int all_fast, int8_t *out, const flex_s8_quant *q) {
    int32_t j;
    if (all_fast) {
        flex__m0_requant_rows(acc, rq, n, out, q);
        return;
    }
    for (j = 0; j < n; j++)
        out[j] = flex__m0_requant(acc[j], &rq[j], q);
}

#endif

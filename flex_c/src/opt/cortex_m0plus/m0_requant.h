/* Cortex-M0+ requantization of an int32 accumulator to int8 in 32-bit arithmetic.
 *
 * TFLM's MultiplyByQuantizedMultiplier(acc, M, shift) takes x = acc * 2^L (L = shift > 0,
 * wrapping), t = round(x * M / 2^31) (ties up), and for shift = -s < 0 divides t by 2^s
 * rounding ties away from zero; flex__s8_requant then adds the output offset (wrapping)
 * and clamps. With P = acc * M the roundings fold into one floor:
 *     s >= 1:      MBQM = floor((P + 2^30 + 2^(30+s) - [P < 0] 2^31) / 2^(31+s)),
 *     shift >= 0:  MBQM = floor((P + 2^(30-L)) / 2^(31-L))    (while x does not wrap).
 * For s >= 1 and for L <= 9 every added term is a multiple of 2^21, so F = floor(P / 2^21)
 * is all that is needed; with M in pieces (M = m2 2^21 + m1 2^11 + m0, m0 < 2^11,
 * m1 < 2^10) and acc in [-2^20, 2^20), F takes three 32-bit multiplies that cannot overflow:
 *     F = acc * m2 + ((acc * m1 + ((acc * m0) >> 11)) >> 10),
 *     out = clamp(((F + nudge + [acc >= 0] half) >> shift) + output_offset, act_min, act_max)
 * (the output offset added after the shift: offset * 2^(10+s) would not fit beside F for
 * large s). half is 2^10 for s >= 1, with -2^10 in the nudge: [P < 0] may be read as
 * [acc < 0] when M >= 0, as they differ only where P = 0, which is no tie. half is 0 for
 * shift >= 0. The depthwise line loop (flex__m0_line_rq) works on (F - [F < 0] 2^10) >> 9
 * instead, where the output offset fits the nudge. Two more facts give every shift a form:
 * - s >= 22 rounds every |t| <= 2^20 to 0 (nudge 2^30 and shift 31 give 0 for F >= -2^30);
 *   s = 21 keeps its own form, since t = -2^20 rounds to -1 there.
 * - L >= 10 with |M| >= 2^30: every non-zero acc saturates, as with L = 9, while x does not
 *   wrap. Over [-2^(30-L), 2^(30-L)) neither x nor MBQM + output offset wraps (at x = -2^31
 *   the latter may), so that is the fast range (shift 30: [-1, 1)).
 * TFLM's converter gives multipliers 0 or in [2^30, 2^31): every shift in [-31, 30] then
 * has a fast range, right shifts and left shifts up to 10 the assembly's [-2^20, 2^20).
 * Accumulators beyond the range (outputs that almost always saturate), negative multipliers
 * with right shifts and small ones with left shifts over 9 take the general
 * flex__s8_requant, so every result is bit-identical to the reference. */
#ifndef FLEX_M0_REQUANT_H
#define FLEX_M0_REQUANT_H

#include "../../common/s8_checks.h"

#define FLEX_M0_RQ_RANGE 20  /* acc in [-2^20, 2^20) takes the fast form in assembly */
#define FLEX_M0_RQ_NONE 0xFF /* the fast range of a record that has none */

/* One output channel's requantization (28 bytes, the assembly reads it in this order);
 * flex__m0_rq_init fills it. */
typedef struct {
    int32_t base;       /* bias plus the folded input offset, added to the accumulator */
    int32_t m0, m1, m2; /* the multiplier in pieces (m2 keeps the sign) */
    int32_t half;       /* added to F when acc >= 0: 2^10 (half away from zero) or 0 */
    int32_t nudge;      /* the rounding terms in units of 2^21, less half */
    int32_t shift;      /* bits 0-7: the final shift; 8-15: the fast range's exponent e
                         * (acc in [-2^e, 2^e)) or FLEX_M0_RQ_NONE; 16-31: the TFLM shift */
} flex__m0_rq;

/* The exponent e of the fast range [-2^e, 2^e) of a multiplier and shift, or
 * FLEX_M0_RQ_NONE. */
int32_t flex__m0_fast_range(int32_t multiplier, int32_t shift);

/* The record of one channel whose accumulators get `base` added. */
void flex__m0_rq_init(flex__m0_rq *r, int32_t base, int32_t multiplier, int32_t shift);

/* The exponent e of r's fast range [-2^e, 2^e), or FLEX_M0_RQ_NONE. */
FLEX_INLINE int32_t flex__m0_rq_range(const flex__m0_rq *r) {
    return (r->shift >> 8) & 0xFF;
}

/* Records of n output channels whose weight rows (k each) start at w, or whose row sums are
 * sums[0:n] when sums is not NULL; bias, multiplier and shift point at the first channel's
 * (bias may be NULL; quant_step 0 repeats one multiplier and shift). The bias gets
 * input_offset * sum(row). Returns whether every channel's fast range is the assembly's. */
int flex__m0_rq_block(flex__m0_rq *rq, int32_t n, const int8_t *w, int32_t k,
                      const int32_t *sums, const int32_t *bias, const int32_t *multiplier,
                      const int32_t *shift, int32_t quant_step, const flex_s8_quant *q);

/* The fast form of clamp(MBQM(acc) + output_offset) (acc includes the base and lies in
 * r's fast range). */
FLEX_INLINE int8_t flex__m0_requant_fast(int32_t acc, const flex__m0_rq *r,
                                         const flex_s8_quant *q) {
    const int32_t low = (acc * r->m0) >> 11;
    const int32_t f = acc * r->m2 + ((acc * r->m1 + low) >> 10);
    const int32_t v = ((f + r->nudge + (acc >= 0 ? r->half : 0)) >> (r->shift & 0xFF)) +
                      q->output_offset;
    return (int8_t)(v < q->act_min ? q->act_min : (v > q->act_max ? q->act_max : v));
}

/* flex__s8_requant(acc, multiplier, shift, q) with the multiplier and shift of record r
 * (acc includes the base). */
int8_t flex__m0_requant_general(int32_t acc, const flex__m0_rq *r, const flex_s8_quant *q);

/* out[i] = clamp(MBQM(acc[i] + rq[i].base) + output_offset, act_min, act_max) for
 * 0 <= i < n, as flex__s8_requant, in assembly; every record's fast range must be
 * FLEX_M0_RQ_RANGE. */
void flex__m0_requant_rows(const int32_t *acc, const flex__m0_rq *rq, int32_t n, int8_t *out,
                           const flex_s8_quant *q);

/* clamp(MBQM(acc + r->base) + output_offset, act_min, act_max), as flex__s8_requant. */
FLEX_INLINE int8_t flex__m0_requant(int32_t acc, const flex__m0_rq *r,
                                    const flex_s8_quant *q) {
    const int32_t e = flex__m0_rq_range(r);
    acc = FLEX_WADD(acc, r->base);
    if (e != FLEX_M0_RQ_NONE && (uint32_t)acc + (1u << e) < (2u << e))
        return flex__m0_requant_fast(acc, r, q);
    return flex__m0_requant_general(acc, r, q);
}

/* out[i] = flex__m0_requant(acc[i], &rq[i], q) for 0 <= i < n: the loop in C. */
void flex__m0_requant_each(const int32_t *acc, const flex__m0_rq *rq, int32_t n, int8_t *out,
                           const flex_s8_quant *q);

/* The requantization of one block of output channels: flex__m0_requant_rows when every
 * channel's fast range is the assembly's (all_fast), else flex__m0_requant_each. */
FLEX_INLINE void flex__m0_requant_block(const int32_t *acc, const flex__m0_rq *rq, int32_t n,
                                        int all_fast, int8_t *out, const flex_s8_quant *q) {
    if (all_fast)
        flex__m0_requant_rows(acc, rq, n, out, q);
    else
        flex__m0_requant_each(acc, rq, n, out, q);
}

/* One channel's requantization for flex__m0_requant_line (36 bytes, read in this order):
 * out = clamp((G + nudge) >> shift) with G = (F - [F < 0] 2^10) >> 9 for right shifts
 * (half_away; the roundings' terms of the record form / 2^9 and the output offset fit the
 * nudge for every shift), G = F for shifts >= 0. */
typedef struct {
    int32_t nudge, shift, m2, m0, m1; /* the rounding terms with the output offset */
    int32_t act_min, act_max;
    int32_t out_stride; /* bytes between consecutive outputs */
    int32_t half_away;  /* 1 for right shifts, else 0 */
} flex__m0_line_rq;

/* The line record of a multiplier and shift (whose fast range, flex__m0_fast_range, holds
 * every accumulator it will get) with the output offset and clamp of q. */
void flex__m0_line_rq_init(flex__m0_line_rq *l, int32_t multiplier, int32_t shift,
                           const flex_s8_quant *q, int32_t out_stride);

/* out[i * out_stride] = clamp(MBQM(acc[i]) + output_offset) for the n >= 1 accumulators
 * (base included), every one in the fast range of the line record's multiplier and shift. */
void flex__m0_requant_line(const int32_t *acc, int32_t n, int8_t *out,
                           const flex__m0_line_rq *rq);

#endif

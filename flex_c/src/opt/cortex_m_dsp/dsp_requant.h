/* TFLM's int8 requantization in the form the DSP cores run fast: one SMLAL per output.
 *
 * For a multiplier m >= 0 and a right shift s = -shift in [1, 31], TFLM's
 * MultiplyByQuantizedMultiplier(acc, m, shift) equals
 *     floor((acc * m + 2^30 + 2^(30+s) - [acc < 0] 2^31) / 2^(31+s))
 * (opt/cortex_m0plus/m0_requant.h derives it): the high word of a 64-bit sum, shifted
 * right by s - 1. TFLM's converter makes every multiplier non-negative and nearly every
 * shift a right shift; the others (left shifts, shift 0, negative multipliers) take the
 * reference flex__s8_requant. */
#ifndef FLEX_DSP_REQUANT_H
#define FLEX_DSP_REQUANT_H

#include "../../common/s8_checks.h"

/* One output channel's requantization (flex__dsp_rq_block), 20 bytes read in this order by
 * the assembly. The output zero point zp is folded into the constant: adding
 * zp * 2^(31+s) to the sum adds exactly zp to the result, and for s <= 23 the 64-bit sum
 * cannot overflow (|acc * m| < 2^62, the rest < 2^62). */
typedef struct {
    int32_t c_lo, c_hi; /* 2^30 + 2^(30+s) + zp * 2^(31+s) as a 64-bit value */
    int32_t base;       /* the bias */
    int32_t m;          /* the multiplier */
    int32_t s1;         /* the final shift of the high word, s - 1 */
} flex__dsp_rq;

/* The record of one channel (bias `base`, multiplier m, shift) for output zero point zp;
 * returns 0, leaving it unfinished, when it needs the reference form. */
FLEX_INLINE int flex__dsp_rq_set(flex__dsp_rq *rq, int32_t base, int32_t m, int32_t shift,
                                 int32_t zp) {
    const int32_t s = -shift;
    if (m < 0 || s < 1 || s > 23)
        return 0;
    rq->base = base;
    rq->m = m;
    rq->c_lo = (int32_t)(s == 1 ? 0xC0000000u : 0x40000000u);
    rq->c_hi = (s == 1 ? 0 : 1 << (s - 2)) + (int32_t)((uint32_t)zp << (s - 1));
    rq->s1 = s - 1;
    return 1;
}

/* Records of channels [0, n) for output zero point zp (bias may be NULL); returns 0, leaving
 * them unfinished, when one of them needs the reference form. */
int flex__dsp_rq_block(flex__dsp_rq *rq, const int32_t *bias, const int32_t *multiplier,
                       const int32_t *shift, int32_t n, int32_t zp);

/* A requantization loop: out[r] = the int8 of acc[lanes * r] through rq[r], for the
 * accumulators from acc up to end; quant points at the quant block's output_offset. */
typedef void (*flex__dsp_rq_loop_fn)(const flex__dsp_rq *rq, const int32_t *acc,
                                     const int32_t *end, int8_t *out, const int32_t *quant);

/* The loop for one lane under q's clamp. */
flex__dsp_rq_loop_fn flex__dsp_rq_loop(const flex_s8_quant *q);

/* out[r + lane * lane_step] = the int8 of acc[lanes * r + lane] through rq[r], for r < n
 * and lane < lanes (1 or 2). */
void flex__dsp_rq_apply(const flex__dsp_rq *rq, const int32_t *acc, int32_t n, int32_t lanes,
                        const flex_s8_quant *q, int8_t *out, int32_t lane_step);

/* 1 when q's clamp is the whole int8 range (one SSAT does it). */
FLEX_INLINE int flex__dsp_whole_range(const flex_s8_quant *q) {
    return q->act_min == -128 && q->act_max == 127;
}

/* out[r] = the int8 of acc[r] + bias[r] through the one record rq (its base unused), for
 * acc[r] up to end; quant points at the quant block's output_offset: under its clamp, and
 * under the whole int8 range (_sat). */
void flex__dsp_apply_bias(const flex__dsp_rq *rq, const int32_t *acc, const int32_t *end,
                          int8_t *out, const int32_t *bias, const int32_t *quant);
void flex__dsp_apply_bias_sat(const flex__dsp_rq *rq, const int32_t *acc, const int32_t *end,
                              int8_t *out, const int32_t *bias, const int32_t *quant);

/* flex__dsp_apply_bias(_sat) for r < n under q's clamp. */
FLEX_INLINE void flex__dsp_rq_apply_bias(const flex__dsp_rq *rq, const int32_t *acc,
                                         int32_t n, const int32_t *bias,
                                         const flex_s8_quant *q, int8_t *out) {
    if (n > 0)
        (flex__dsp_whole_range(q) ? flex__dsp_apply_bias_sat : flex__dsp_apply_bias)(
            rq, acc, acc + n, out, bias, &q->output_offset);
}

/* 1 when the n multipliers are all alike and so are the n shifts (one record serves). */
FLEX_INLINE int flex__dsp_uniform(const int32_t *multiplier, const int32_t *shift, int32_t n) {
    int32_t r;
    for (r = 1; r < n; r++)
        if (multiplier[r] != multiplier[0] || shift[r] != shift[0])
            return 0;
    return 1;
}

#endif

/* TFLM's int8 requantization in the form a 32-bit core without a 64-bit multiply-add runs
 * fast (the form of opt/cortex_m_dsp/dsp_requant.h, derived in
 * opt/cortex_m0plus/m0_requant.h): for a multiplier m >= 0 and a right shift s = -shift in
 * [1, 31], TFLM's MultiplyByQuantizedMultiplier(x, m, shift) equals
 *     floor((x * m + 2^30 + 2^(30+s) - [x < 0] 2^31) / 2^(31+s)),
 * the high word of a 64-bit sum (MUL and MULH) shifted right by s - 1. A channel's
 * constants are worked out once into a record (flex__rv_rq_init); other multipliers and
 * shifts take the reference flex__s8_requant. */
#ifndef FLEX_RV_REQUANT_H
#define FLEX_RV_REQUANT_H

#include "../../common/s8_checks.h"

/* One output channel's requantization. */
typedef struct {
    int64_t add[2]; /* 2^30 + 2^(30+s), for x >= 0 and (less 2^31) for x < 0 */
    int32_t base;   /* the bias, and what a kernel folds into it */
    int32_t m;      /* the multiplier */
    int32_t s1;     /* s - 1 */
    int32_t shift;  /* TFLM's shift, for the reference form */
} flex__rv_rq;

/* The record of channel multiplier m, shift and base (the bias); returns 0 when the
 * channel needs the reference form (the record then holds m, shift and base alone). */
static inline int flex__rv_rq_init(flex__rv_rq *r, int32_t base, int32_t m, int32_t shift) {
    const int32_t s = -shift;
    r->base = base, r->m = m, r->shift = shift;
    if (m < 0 || s < 1 || s > 31) {
        r->s1 = -1;
        return 0;
    }
    r->s1 = s - 1;
    /* 2^30 + 2^(30+s) word by word (no 64-bit shift by a variable) */
    r->add[0] = s == 1 ? (int64_t)0xC0000000u
                       : (int64_t)((uint64_t)(1u << (s - 2)) << 32 | 0x40000000u);
    r->add[1] = r->add[0] - ((int64_t)1 << 31);
    return 1;
}

/* The int8 output of accumulator acc (without the record's base). */
static inline int8_t flex__rv_rq_apply(const flex__rv_rq *r, int32_t acc,
                                       const flex_s8_quant *q) {
    const int32_t x = FLEX_WADD(acc, r->base);
    int32_t y;
    if (r->s1 < 0)
        return flex__s8_requant(x, r->m, r->shift, q);
    y = ((int32_t)(((int64_t)x * r->m + r->add[x < 0]) >> 32) >> r->s1) + q->output_offset;
    return (int8_t)(y < q->act_min ? q->act_min : y > q->act_max ? q->act_max : y);
}

#endif

/* TFLM's int8 requantization in the form a 32-bit core without a 64-bit multiply-add runs
 * fast (the form of opt/cortex_m_dsp/dsp_requant.h, derived in
 * opt/cortex_m0plus/m0_requant.h): for a multiplier m >= 0 and a right shift s = -shift in
 * [1, 31], TFLM's MultiplyByQuantizedMultiplier(x, m, shift) equals
 *     floor((x * m + 2^30 + 2^(30+s) - [x < 0] 2^31) / 2^(31+s)),
 * the high word of a 64-bit sum (MUL and MULH) shifted right by s - 1. Other multipliers
 * and shifts take the reference flex__s8_requant. */
#ifndef FLEX_RV_REQUANT_H
#define FLEX_RV_REQUANT_H

#include "../../common/s8_checks.h"

/* The int8 output of accumulator x (bias included) for channel multiplier m and shift. */
static inline int8_t flex__rv_requant(int32_t x, int32_t m, int32_t shift,
                                      const flex_s8_quant *q) {
    const int32_t s = -shift;
    int64_t sum;
    int32_t y;
    if (m < 0 || s < 1 || s > 31)
        return flex__s8_requant(x, m, shift, q);
    sum = (int64_t)x * m + ((int64_t)1 << 30) + ((int64_t)1 << (30 + s)) -
          (x < 0 ? (int64_t)1 << 31 : 0);
    y = ((int32_t)(sum >> 32) >> (s - 1)) + q->output_offset;
    return (int8_t)(y < q->act_min ? q->act_min : y > q->act_max ? q->act_max : y);
}

#endif

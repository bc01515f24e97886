/* Cortex-M0+ 3x3 depthwise building blocks (m0_depthwise.c), used by s8_conv.c. */
#ifndef FLEX_M0_DEPTHWISE_H
#define FLEX_M0_DEPTHWISE_H

#include <stdint.h>

/* One channel's requantization for flex__m0_requant_line (fields as in m0_requant.h). */
typedef struct {
    int32_t m0, m1, m2, shift, nudge, act_min, act_max;
    int32_t out_stride; /* bytes between consecutive outputs */
} flex__m0_line_rq;

/* Sums of `strips` strips of four consecutive 3x3 windows of one channel of a tile of
 * unsigned bytes, one tile pixel every 4 bytes: window t of strip s starts at
 * p + 16 s + 4 t, its three passes (kernel lines) lie pass_stride bytes apart, and pass k
 * multiplies taps 0, 1, 2 along the strip by wk[3k], wk[3k + 1], wk[3k + 2].
 * acc[4 s + t] = base + sum of the window's nine products. */
void flex__m0_dw3_strips(const uint8_t *p, int32_t pass_stride, int32_t strips, int32_t *acc,
                         const int32_t *wk, int32_t base);

/* The same with stride 2: window t of strip s starts at p + 32 s + 8 t. */
void flex__m0_dw3_strips2(const uint8_t *p, int32_t pass_stride, int32_t strips,
                          int32_t *acc, const int32_t *wk, int32_t base);

/* out[i * out_stride] = clamp(((F + nudge - [F < 0] 2^10) >> shift)) for the n >= 1
 * accumulators, F from the multiplier pieces (the fast form of m0_requant.h; every |acc|
 * must be below FLEX_M0_RQ_LIMIT). */
void flex__m0_requant_line(const int32_t *acc, int32_t n, int8_t *out,
                           const flex__m0_line_rq *rq);

#endif

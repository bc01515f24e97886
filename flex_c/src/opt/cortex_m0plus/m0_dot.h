/* Cortex-M0+ int8 dot-product kernel shared by the optimized conv and fully connected. */
#ifndef FLEX_M0_DOT_H
#define FLEX_M0_DOT_H

#include <stdint.h>

/* acc[r] += sum_{i<n} x[i] * w[r][i] for r = 0..3, n >= 1. x_end / w_end point one past
 * the last element. Hand-scheduled: every x byte is loaded once for four output channels,
 * the accumulators live in r8-r11, so a MAC costs LDRSB + MULS + ADD (about 5.3 cycles with
 * the loop overhead). */
void flex__m0_dot4(const int8_t *x_end, const int8_t *const *w_end, int32_t n, int32_t *acc);

#endif

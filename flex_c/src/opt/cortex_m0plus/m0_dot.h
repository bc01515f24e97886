/* Cortex-M0+ int8 dot products shared by the optimized conv and fully connected. */
#ifndef FLEX_M0_DOT_H
#define FLEX_M0_DOT_H

#include <stdint.h>

/* acc[r] = sum_{i<n} x[i] * w[r * n + i] for r < rows (n, rows >= 1); x_end / w_end point
 * one past x and one past row 0. Hand-scheduled: each x byte is loaded once for four rows
 * and the four accumulators live in r8-r11, so a MAC costs LDRSB + MULS + ADD (about 4.9
 * cycles with the loop overhead); leftover rows run two at a time. */
void flex__m0_dot_rows(const int8_t *x_end, const int8_t *w_end, int32_t n, int32_t rows,
                       int32_t *acc);

#endif

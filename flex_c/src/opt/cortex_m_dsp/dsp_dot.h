/* int8 dot products on the Arm DSP extension (Cortex-M4, M7, M33, M55; dsp_dot.c), for the
 * convolution and the fully connected kernels.
 *
 * The vector x is widened once to int16 with the input offset added (x + offset lies in
 * [-255, 255]), four elements to two words: SXTB16 of x0..x3 gives the halves (x0, x2), and
 * SXTB16 of the word rotated by 8 gives (x1, x3). A weight word is split the same way, so
 * two SMLADs take four multiply-accumulates with no reordering of either side. The weights
 * stay int8 where they are (flash, read in place); the widened vector is built once and
 * serves every output channel. */
#ifndef FLEX_DSP_DOT_H
#define FLEX_DSP_DOT_H

#include <stdint.h>

/* Words of a widened vector of k elements: two per group of four, then one per element of
 * the last k % 4. */
#define FLEX_DSP_WORDS(k) (((k) / 4) * 2 + (k) % 4)

/* Widens x[0:k] plus `offset` into vector `lane` of `lanes` (1 or 2) interleaved in xq
 * (lanes * FLEX_DSP_WORDS(k) words): group g's two words at xq[2 (lanes g + lane)], the
 * last k % 4 elements one word each at xq[2 lanes (k / 4) + lanes t + lane]. */
void flex__dsp_widen(const int8_t *x, int32_t k, int32_t offset, int32_t lanes, int32_t lane,
                     int32_t *xq);

/* acc[r] = sum_i (x[i] + offset) * w[r * k + i] for r < rows, x widened into xq (one
 * lane). Rows run four at a time, each widened word loaded once for the four; acc holds
 * rows rounded up to a multiple of four (the last block's sums are stored whole). */
void flex__dsp_dot_rows(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                        int32_t *acc);

/* The same over x itself (an input offset of 0, k a multiple of 4), not widened: each
 * group's two SXTB16 run in the loop, once per block of four rows, which for a few blocks
 * costs less than widening. */
void flex__dsp_dot_rows_s8(const int8_t *x, int32_t k, const int8_t *w, int32_t rows,
                           int32_t *acc);

/* The same for the two lanes of xq at once: acc[2r + lane] (rows rounded up to an even
 * count). Rows run two at a time, each
 * weight word loaded and split once for both lanes: 16 multiply-accumulates take two
 * loads, four SXTB16 and eight SMLAD besides the widened words. */
void flex__dsp_dot_rows2(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                         int32_t *acc);

#endif

/* Cortex-M0+ int8 dot products at two elements per multiply (m0_pairs.c), for the
 * convolution.
 *
 * With W = w0 + 2^16 w1 and X = x1 + 2^16 x0 as 32-bit integers, W * X mod 2^32 is
 * w0 x1 + 2^16 (w0 x0 + w1 x1): its upper half holds a two-term dot product. For int8 x
 * and weights in [-127, 127] both halves lie in [-2^15, 2^15), so (W * X + 2^15) >> 16 is
 * exactly w0 x0 + w1 x1: one MULS for two MACs. */
#ifndef FLEX_M0_PAIRS_H
#define FLEX_M0_PAIRS_H

#include <stdint.h>

/* Packed words of a patch (or filter row) of k elements: pairs, padded to an even count. */
#define FLEX_M0_PAIR_WORDS(k) ((((k) + 3) / 4) * 2)

/* Whether none of the n weights at w is -128 (the halves of a packed word could overflow). */
int flex__m0_pairable(const int8_t *w, int32_t n);

/* Packs `rows` filter rows of k weights (none -128) for flex__m0_pair_dot, four rows at a
 * time: group g holds, pair by pair, w[4g + r][2j] + 2^16 w[4g + r][2j + 1] for r = 0..3
 * (missing rows and elements zero); sums[r] = the sum of row r's weights. */
void flex__m0_pack_rows(const int8_t *w, int32_t k, int32_t rows, int32_t *dst, int32_t *sums);

/* dst[j] = x[2j + 1] + 2^16 x[2j] for the first n elements of x (n a positive multiple
 * of 4), in assembly. */
void flex__m0_pack4(const int8_t *x, int32_t *dst, int32_t n);

/* Packs x[0:k]: word j = x[2j + 1] + 2^16 x[2j] (elements beyond k zero). */
void flex__m0_pack_x(const int8_t *x, int32_t k, int32_t *dst);

/* acc[4g + r] = sum_j (wp[g][j][r] * xp[j] + 2^15) >> 16 over `pairs` words (even, >= 2),
 * for g < groups: the dot products of the packed patch with 4 * groups packed rows. */
void flex__m0_pair_dot(const int32_t *xp, const int32_t *wp, int32_t pairs, int32_t *acc,
                       int32_t groups);

#endif

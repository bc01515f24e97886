/* int8 dot products of weight rows with one vector on Helium (MVE; mve_dot.c), for the
 * convolution and the fully connected kernels.
 *
 * Each output row's requantization is a record, twelve words per group of four rows: the
 * four biases with the input offset folded in (sum(w (x + offset)) = sum(w x) + offset
 * sum(w)), the four multipliers, the four shifts. */
#ifndef FLEX_MVE_DOT_H
#define FLEX_MVE_DOT_H

#include "../../common/internal.h"

#define FLEX_MVE_RECORD_WORDS(rows) ((((rows) + 3) / 4) * 12)

/* The records of `rows` rows of k weights w (bias may be NULL; multiplier and shift one
 * for every row when `per_tensor`); a last group of fewer than four rows repeats its last
 * row's values. */
void flex__mve_records(const int8_t *w, int32_t k, int32_t rows, const int32_t *bias,
                       int32_t offset, const int32_t *multiplier, const int32_t *shift,
                       int per_tensor, int32_t *rec);

/* out[r] = the int8 of sum_i x[i] w[r k + i] through row r's record (and q's zero point and
 * clamp), for r < rows. out must not overlap x. */
void flex__mve_rows(const int8_t *x, int32_t k, const int8_t *w, int32_t rows,
                    const int32_t *rec, const flex_s8_quant *q, int8_t *out);

#endif

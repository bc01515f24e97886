/* RISC-V (rv32imc) int8 dot products over vectors widened with the input offset, shared by
 * the convolution and the fully connected kernels (rv_dot.c). No SIMD: each multiply-
 * accumulate is a load, a MUL and an ADD, with every weight loaded once for two pixels
 * and every input value once for four rows, the accumulators in registers. */
#ifndef FLEX_RV_DOT_H
#define FLEX_RV_DOT_H

#include "../../common/internal.h"

/* dst[i * stride] = x[i] + offset for i < n; int16 holds every int8 value plus an int8
 * offset. */
void flex__rv_widen(const int8_t *x, int32_t n, int32_t offset, int32_t stride,
                    int16_t *dst);

/* acc[lanes * r + l] = sum_{i<k} x[lanes * i + l] * w[r * k + i] for rows r < rows and
 * lanes l < lanes (1 or 2: one or two pixels' widened patches, interleaved). */
void flex__rv_dot_rows(const int16_t *x, int32_t lanes, int32_t k, const int8_t *w,
                       int32_t rows, int32_t *acc);

#endif

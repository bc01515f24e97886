/* Shared helpers of the int8 conv / depthwise / fully connected kernels; their checks, which
 * take the kernels' own arguments, are declared in ref/ref.h. */
#ifndef FLEX_S8_CHECKS_H
#define FLEX_S8_CHECKS_H

#include "internal.h"

/* Whether int8 buffers a[0:a_len] and b[0:b_len] share a byte: an output that the .bst arena
 * placed over a dying input (docs/bst-format.md, "Arena and in-place execution"). Kernels
 * that do not write output units in increasing order, each after every input that it and
 * the units before it read, must then take an order that does. */
FLEX_INLINE int flex__s8_overlap(const int8_t *a, size_t a_len, const int8_t *b, size_t b_len) {
    return (uintptr_t)a < (uintptr_t)b + b_len && (uintptr_t)b < (uintptr_t)a + a_len;
}

/* Requantize an accumulator (bias included): MBQM, add the output offset, clamp. */
int8_t flex__s8_requant(int32_t acc, int32_t multiplier, int32_t shift, const flex_s8_quant *q);

#endif

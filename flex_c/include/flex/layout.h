/* flex/layout.h - part of flex.h, which includes it (include flex.h, not this file):
 * the layout kernels (pad, concat, strided copy; any element size). */
#ifndef FLEX_API_LAYOUT_H
#define FLEX_API_LAYOUT_H

#include "types.h"

/* ---- layout kernels (any element size: 1, 2 or 4 bytes) --------------------------- */

/* Constant pad of a 4-D tensor; pads = {before, after} for n, h, w, c (8 values >= 0);
 * pad_value points at one element. */
flex_status flex_pad(int32_t elem_size, const flex_dims4 *in_dims, const void *input,
                     size_t input_len, const int32_t *pads, const void *pad_value,
                     void *output, size_t output_len);

/* Concatenate along an axis: tensors viewed as [outer, axis_i, inner]; lengths in
 * elements; inputs is an array of n_inputs pointers. */
flex_status flex_concat(int32_t elem_size, int32_t n_inputs, const void *const *inputs,
                        const int32_t *axis_sizes, int32_t outer, int32_t inner,
                        void *output, size_t output_len);

/* Strided copy (the optional op `strided`): output element k, in row-major order over the
 * box dims[0] x ... x dims[5], is input[offset + i0 * strides[0] + ... + i5 * strides[5]];
 * strides count elements and may be negative. A read outside the input (input_len
 * elements) gives FLEX_E_STRIDE; output_len must be the box's element count. */
#define FLEX_STRIDED_DIMS 6
flex_status flex_strided(int32_t elem_size, const void *input, size_t input_len, int32_t offset,
                         const int32_t *dims, const int32_t *strides, void *output,
                         size_t output_len);

#endif /* FLEX_API_LAYOUT_H */

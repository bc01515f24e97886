/* The strided copy of the optional op `strided` (burn.graph.strided), any element size. */
#include "../common/internal.h"

flex_status flex_strided(int32_t elem_size, const void *input, size_t input_len, int32_t offset,
                         const int32_t *dims, const int32_t *strides, void *output,
                         size_t output_len) {
    /* step: the stride of an axis that moves (0 for a single index); back: the distance
     * from its last index to its first */
    int32_t idx[FLEX_STRIDED_DIMS], step[FLEX_STRIDED_DIMS], back[FLEX_STRIDED_DIMS];
    int64_t lo = offset, hi = offset, count = 1;
    int32_t pos = offset, k, b;
    const uint8_t *src = (const uint8_t *)input;
    uint8_t *dst = (uint8_t *)output;
    if (!input || !dims || !strides || !output)
        return FLEX_E_NULL;
    if (elem_size != 1 && elem_size != 2 && elem_size != 4)
        return FLEX_E_PARAM;
    if (input_len > INT32_MAX / 4)
        return FLEX_E_OVERFLOW;
    for (k = 0; k < FLEX_STRIDED_DIMS; k++) {
        const int64_t span = (int64_t)(dims[k] - 1) * strides[k];
        if (dims[k] < 1)
            return FLEX_E_SHAPE;
        count *= dims[k];
        if (count > INT32_MAX)
            return FLEX_E_OVERFLOW;
        /* lo and hi stay within the input before each step, so they cannot overflow */
        if (span < 0)
            lo += span;
        else
            hi += span;
        if (lo < 0 || hi >= (int64_t)input_len)
            return FLEX_E_STRIDE;
        idx[k] = 0;
        step[k] = dims[k] > 1 ? strides[k] : 0;
        back[k] = (int32_t)span;
    }
    FLEX_TRY(flex__check_len(output_len, (int32_t)count));
    for (;;) {
        for (b = 0; b < elem_size; b++)
            *dst++ = src[pos * elem_size + b];
        for (k = FLEX_STRIDED_DIMS - 1; k >= 0; k--) {
            if (++idx[k] < dims[k]) {
                pos += step[k];
                break;
            }
            idx[k] = 0;
            pos -= back[k];
        }
        if (k < 0)
            return FLEX_OK;
    }
}

/* float32 comparisons of the optional op `compare` (burn.graph.logic), into int8 0/1. */
#include "../common/internal.h"

flex_status flex_f32_compare(int32_t op, size_t n, const float *a, const float *b,
                             size_t b_len, int8_t *output) {
    size_t i, j;
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));
    if (op < FLEX_COMPARE_EQUAL || op > FLEX_COMPARE_GREATER_EQUAL)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++) {
            const float x = a[i + j], y = b[j];
            output[i + j] = (int8_t)flex__compare(op, x < y, x == y, x > y);
        }
    return FLEX_OK;
}

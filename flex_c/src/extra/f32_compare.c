/* float32 comparisons of the optional op `compare` (burn.graph.logic), into int8 0/1. */
#include "../common/internal.h"

flex_status flex_f32_compare(int32_t op, size_t n, const float *a, const float *b,
                             size_t b_len, int8_t *output) {
    size_t i, j;
    if (!a || !b || !output)
        return FLEX_E_NULL;
    if (n < 1 || b_len < 1 || n % b_len)
        return FLEX_E_SHAPE;
    if (op < FLEX_COMPARE_EQUAL || op > FLEX_COMPARE_GREATER_EQUAL)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++) {
            const float x = a[i + j], y = b[j];
            int r;
            switch (op) {
            case FLEX_COMPARE_EQUAL: r = x == y; break;
            case FLEX_COMPARE_NOT_EQUAL: r = x != y; break;
            case FLEX_COMPARE_LESS: r = x < y; break;
            case FLEX_COMPARE_LESS_EQUAL: r = x <= y; break;
            case FLEX_COMPARE_GREATER: r = x > y; break;
            default: r = x >= y; break;
            }
            output[i + j] = (int8_t)r;
        }
    return FLEX_OK;
}

/* float32 comparisons of the optional op `compare` (burn.graph.logic), into int8 0/1. */
#include "../common/internal.h"

flex_status flex_f32_compare(int32_t op, size_t n, const float *a, const float *b,
                             size_t b_len, int8_t *output) {
    FLEX__COMPARE_BODY(float);
}

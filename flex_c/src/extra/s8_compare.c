/* int8 comparisons of the optional op `compare` (burn.graph.logic), as TFLM's
 * ComparisonWithScaling: both operands rescaled before they are compared. */
#include "../common/internal.h"

static int32_t rescaled(int8_t q, int32_t offset, int32_t multiplier, int32_t shift) {
    return flex__mbqm((q + offset) * 256, multiplier, shift);
}

flex_status flex_s8_compare(int32_t op, size_t n, const int8_t *a, const int8_t *b,
                            size_t b_len, const flex_s8_compare_params *p, int8_t *output) {
    size_t i, j;
    if (!p)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));
    if (op < FLEX_COMPARE_EQUAL || op > FLEX_COMPARE_GREATER_EQUAL || p->input1_shift > 0 ||
        p->input2_shift > 0 || p->input1_shift < -31 || p->input2_shift < -31 ||
        p->input1_offset < -255 || p->input1_offset > 255 || p->input2_offset < -255 ||
        p->input2_offset > 255)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++) {
            const int32_t x = rescaled(a[i + j], p->input1_offset, p->input1_multiplier,
                                       p->input1_shift);
            const int32_t y = rescaled(b[j], p->input2_offset, p->input2_multiplier,
                                       p->input2_shift);
            output[i + j] = (int8_t)flex__compare(op, x < y, x == y, x > y);
        }
    return FLEX_OK;
}

/* validate.c's checks of a fully connected layer as inline functions, for a kernel whose
 * calls are so short that calling each check costs (ref/ref.h's flex__s8_fc_checks):
 * validate.c's functions of the same names without _inline return these. */
#ifndef FLEX_VALIDATE_INLINE_H
#define FLEX_VALIDATE_INLINE_H

#include "internal.h"

/* lo <= v <= hi. */
FLEX_INLINE int flex__in_range(int32_t v, int32_t lo, int32_t hi) {
    return v >= lo && v <= hi;
}

FLEX_INLINE flex_status flex__product_inline(int32_t a, int32_t b, int32_t *out) {
    int64_t p = (int64_t)a * (int64_t)b;
    if (a < 0 || b < 0)
        return FLEX_E_SHAPE;
    if (p > INT32_MAX)
        return FLEX_E_OVERFLOW;
    *out = (int32_t)p;
    return FLEX_OK;
}

FLEX_INLINE flex_status flex__check_len_inline(size_t len, int32_t count) {
    return (count >= 0 && len == (size_t)count) ? FLEX_OK : FLEX_E_SIZE;
}

FLEX_INLINE flex_status flex__check_shifts_inline(const int32_t *shift, int32_t n) {
    int32_t i;
    for (i = 0; i < n; i++)
        if (!flex__in_range(shift[i], -31, 31))
            return FLEX_E_PARAM;
    return FLEX_OK;
}

FLEX_INLINE flex_status flex__check_act_inline(int32_t act_min, int32_t act_max) {
    if (!flex__in_range(act_min, -128, 127) || !flex__in_range(act_max, -128, 127) ||
        act_min > act_max)
        return FLEX_E_PARAM;
    return FLEX_OK;
}

FLEX_INLINE flex_status flex__check_zero_point_inline(int32_t zp) {
    return flex__in_range(zp, -128, 127) ? FLEX_OK : FLEX_E_PARAM;
}

FLEX_INLINE flex_status flex__check_s8_quant_inline(const flex_s8_quant *q) {
    if (!q)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_zero_point_inline(-q->input_offset));
    FLEX_TRY(flex__check_zero_point_inline(q->output_offset));
    return flex__check_act_inline(q->act_min, q->act_max);
}

FLEX_INLINE flex_status flex__check_bias_inline(const void *bias, size_t bias_len,
                                                int32_t channels) {
    if (!bias)
        return bias_len == 0 ? FLEX_OK : FLEX_E_NULL;
    return flex__check_len_inline(bias_len, channels);
}

FLEX_INLINE flex_status flex__check_fc_inline(int32_t batches, int32_t in_features,
                                              int32_t out_features, const void *input,
                                              size_t input_len, const void *filter,
                                              size_t filter_len, const void *output,
                                              size_t output_len) {
    int32_t count;
    if (!input || !filter || !output)
        return FLEX_E_NULL;
    if (batches < 1 || in_features < 1 || out_features < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product_inline(batches, in_features, &count));
    FLEX_TRY(flex__check_len_inline(input_len, count));
    FLEX_TRY(flex__product_inline(out_features, in_features, &count));
    FLEX_TRY(flex__check_len_inline(filter_len, count));
    FLEX_TRY(flex__product_inline(batches, out_features, &count));
    return flex__check_len_inline(output_len, count);
}

#endif

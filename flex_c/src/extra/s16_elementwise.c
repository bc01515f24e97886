/* int16 ADD and MUL, as TFLM's reference kernels for int16 tensors. */
#include "../common/internal.h"

static int bad_zero_point(int32_t offset) {
    return offset < -32767 || offset > 32768; /* offsets are minus zero points */
}

static flex_status check(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const void *p, const int16_t *output, int32_t act_min,
                         int32_t act_max) {
    if (!a || !b || !p || !output)
        return FLEX_E_NULL;
    if (b_len < 1 || n % b_len)
        return FLEX_E_SHAPE;
    if (act_min < -32768 || act_max > 32767 || act_min > act_max)
        return FLEX_E_PARAM;
    return FLEX_OK;
}

flex_status flex_s16_add(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_add_params *p, int16_t *output) {
    size_t i;
    FLEX_TRY(check(n, a, b, b_len, p, output, p ? p->act_min : 0, p ? p->act_max : 0));
    if (bad_zero_point(p->input1_offset) || bad_zero_point(p->input2_offset) ||
        bad_zero_point(-p->output_offset) || p->left_shift < 0 || p->left_shift > 15 ||
        p->input1_shift > 0 || p->input2_shift > 0 || p->output_shift > 0)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(p->input1_shift));
    FLEX_TRY(flex__check_shift(p->input2_shift));
    FLEX_TRY(flex__check_shift(p->output_shift));
    for (i = 0; i < n; i++) {
        const uint32_t x = (uint32_t)(a[i] + p->input1_offset) << p->left_shift;
        const uint32_t y = (uint32_t)(b[i % b_len] + p->input2_offset) << p->left_shift;
        const int32_t sx = flex__mbqm((int32_t)x, p->input1_multiplier, p->input1_shift);
        const int32_t sy = flex__mbqm((int32_t)y, p->input2_multiplier, p->input2_shift);
        const int32_t v = flex__mbqm(FLEX_WADD(sx, sy), p->output_multiplier, p->output_shift);
        output[i] = (int16_t)flex__clamp(FLEX_WADD(v, p->output_offset), p->act_min,
                                         p->act_max);
    }
    return FLEX_OK;
}

flex_status flex_s16_mul(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_mul_params *p, int16_t *output) {
    size_t i;
    FLEX_TRY(check(n, a, b, b_len, p, output, p ? p->act_min : 0, p ? p->act_max : 0));
    if (bad_zero_point(p->input1_offset) || bad_zero_point(p->input2_offset) ||
        bad_zero_point(-p->output_offset))
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(p->output_shift));
    for (i = 0; i < n; i++) {
        const int32_t prod = FLEX_WMUL(a[i] + p->input1_offset, b[i % b_len] + p->input2_offset);
        const int32_t v = flex__mbqm(prod, p->output_multiplier, p->output_shift);
        output[i] = (int16_t)flex__clamp(FLEX_WADD(v, p->output_offset), p->act_min,
                                         p->act_max);
    }
    return FLEX_OK;
}

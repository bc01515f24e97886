/* int16 ADD, SUB, SQUARED_DIFFERENCE, MUL, MAXIMUM and MINIMUM, as TFLM's reference kernels
 * for int16 tensors. */
#include "../common/internal.h"

static int bad_zero_point(int32_t offset) {
    return offset < -32767 || offset > 32768; /* offsets are minus zero points */
}

/* What ADD and MUL check alike: buffers, shapes, and of their parameters p the clamp and the
 * zero points (the offsets are minus the inputs' and the output's). */
static flex_status check(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const void *p, const int16_t *output, int32_t act_min,
                         int32_t act_max, int32_t input1_offset, int32_t input2_offset,
                         int32_t output_offset) {
    if (!a || !b || !p || !output)
        return FLEX_E_NULL;
    if (b_len < 1 || n % b_len)
        return FLEX_E_SHAPE;
    if (act_min < -32768 || act_max > 32767 || act_min > act_max ||
        bad_zero_point(input1_offset) || bad_zero_point(input2_offset) ||
        bad_zero_point(-output_offset))
        return FLEX_E_PARAM;
    return FLEX_OK;
}

/* check() on either kernel's parameters p: flex_s8_add_params and flex_s8_mul_params name
 * the fields that it reads alike. */
#define CHECK(n, a, b, b_len, p, output)                                                 \
    check(n, a, b, b_len, p, output, (p) ? (p)->act_min : 0, (p) ? (p)->act_max : 0,     \
          (p) ? (p)->input1_offset : 0, (p) ? (p)->input2_offset : 0,                    \
          (p) ? (p)->output_offset : 0)

/* ADD (op 0), SUB (op 1: a - b), SUB with the operands swapped (op 2: b - a) and
 * SQUARED_DIFFERENCE (op 3: (a - b)^2): both inputs scaled to a common scale (left_shift,
 * then their multipliers), combined, then requantized to the output's. */
static flex_status scaled_sum(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                              const flex_s8_add_params *p, int op, int16_t *output) {
    size_t i;
    FLEX_TRY(CHECK(n, a, b, b_len, p, output));
    if (p->left_shift < 0 || p->left_shift > 15 || p->input1_shift > 0 || p->input2_shift > 0 ||
        p->output_shift > 0)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(p->input1_shift));
    FLEX_TRY(flex__check_shift(p->input2_shift));
    FLEX_TRY(flex__check_shift(p->output_shift));
    for (i = 0; i < n; i++) {
        const uint32_t x = (uint32_t)(a[i] + p->input1_offset) << p->left_shift;
        const uint32_t y = (uint32_t)(b[i % b_len] + p->input2_offset) << p->left_shift;
        const int32_t sx = flex__mbqm((int32_t)x, p->input1_multiplier, p->input1_shift);
        const int32_t sy = flex__mbqm((int32_t)y, p->input2_multiplier, p->input2_shift);
        const int32_t raw = op == 0 ? FLEX_WADD(sx, sy) : op == 2 ? FLEX_WSUB(sy, sx)
                                                                  : FLEX_WSUB(sx, sy);
        const int32_t v = flex__mbqm(op == 3 ? FLEX_WMUL(raw, raw) : raw, p->output_multiplier,
                                     p->output_shift);
        output[i] = (int16_t)flex__clamp(FLEX_WADD(v, p->output_offset), p->act_min,
                                         p->act_max);
    }
    return FLEX_OK;
}

flex_status flex_s16_add(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_add_params *p, int16_t *output) {
    return scaled_sum(n, a, b, b_len, p, 0, output);
}

flex_status flex_s16_sub(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_add_params *p, int32_t swap, int16_t *output) {
    if (swap != 0 && swap != 1)
        return FLEX_E_PARAM;
    return scaled_sum(n, a, b, b_len, p, 1 + swap, output);
}

flex_status flex_s16_squared_difference(size_t n, const int16_t *a, const int16_t *b,
                                        size_t b_len, const flex_s8_add_params *p,
                                        int16_t *output) {
    return scaled_sum(n, a, b, b_len, p, 3, output);
}

flex_status flex_s16_mul(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_mul_params *p, int16_t *output) {
    size_t i;
    FLEX_TRY(CHECK(n, a, b, b_len, p, output));
    FLEX_TRY(flex__check_shift(p->output_shift));
    for (i = 0; i < n; i++) {
        const int32_t prod = FLEX_WMUL(a[i] + p->input1_offset, b[i % b_len] + p->input2_offset);
        const int32_t v = flex__mbqm(prod, p->output_multiplier, p->output_shift);
        output[i] = (int16_t)flex__clamp(FLEX_WADD(v, p->output_offset), p->act_min,
                                         p->act_max);
    }
    return FLEX_OK;
}

flex_status flex_s16_arith(int32_t op, size_t n, const int16_t *a, const int16_t *b,
                           size_t b_len, int16_t *output) {
    FLEX__EXTREME_BODY(int16_t);
}

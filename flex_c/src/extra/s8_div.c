/* int8 DIV of the optional op `div` (burn.graph.div), as TFLM's DivElementwise: the
 * divisor's reciprocal in fixed point, the dividend at full headroom, then the output
 * multiplier and a right shift that TFLM computes with x86-64's semantics beyond 31. */
#include "../common/internal.h"

/* the redundant sign bits of x: 31 for 0 and -1 */
static int32_t headroom(int32_t x) {
    return flex__clz((uint32_t)(x < 0 ? ~x : x)) - 1;
}

static int32_t quotient(int32_t x, int32_t y, int32_t multiplier, int32_t shift) {
    int32_t lz, inv, h, e, v;
    if (y < 0)
        x = -x, y = -y;
    lz = flex__clz((uint32_t)y);
    /* TFLM shifts a zero divisor left by 32, which x86-64 makes a shift by 0: the
     * reciprocal of -1.0, whose Newton steps wrap */
    inv = flex__one_over_one_plus_x(y ? (int32_t)(((uint32_t)y << lz) - 0x80000000u)
                                      : INT32_MIN);
    h = headroom(x);
    e = 31 - lz + h - shift;
    v = flex__srdhm(flex__srdhm((int32_t)((uint32_t)x << h), inv), multiplier);
    if (e < 32)
        return flex__rdbpot(v, e);
    /* x86-64: an all-ones rounding mask and a shift by e - 32 */
    return (v >> (e - 32)) + (v >= 0 ? 1 : 0);
}

flex_status flex_s8_div(size_t n, const int8_t *a, const int8_t *b, size_t b_len,
                        const flex_s8_div_params *p, int8_t *output) {
    size_t i, j;
    if (!p)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));
    if (p->swap < 0 || p->swap > 1 || p->input1_offset < -127 || p->input1_offset > 128 ||
        p->input2_offset < -127 || p->input2_offset > 128 || p->output_offset < -128 ||
        p->output_offset > 127 || p->output_multiplier < 0 ||
        p->output_shift < FLEX_DIV_SHIFT_MIN || p->output_shift > FLEX_DIV_SHIFT_MAX ||
        p->act_min < -128 || p->act_min > p->act_max || p->act_max > 127)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++) {
            const int32_t x = a[i + j] + p->input1_offset, y = b[j] + p->input2_offset;
            const int32_t q = p->swap ? quotient(y, x, p->output_multiplier, p->output_shift)
                                      : quotient(x, y, p->output_multiplier, p->output_shift);
            output[i + j] = (int8_t)flex__clamp(q + p->output_offset, p->act_min, p->act_max);
        }
    return FLEX_OK;
}

/* Arithmetic and comparisons of int32 tensors (not quantized), as TFLM's int32 kernels:
 * two's complement arithmetic that wraps, the fused activation's clamp. */
#include "../common/internal.h"

enum { ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE };

/* a / b truncated toward zero, INT32_MIN / -1 wrapping to INT32_MIN; b is not 0. */
static int32_t quotient(int32_t a, int32_t b) {
    return b == -1 ? FLEX_WSUB(0, a) : a / b;
}

static flex_status arith(int op, size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t swap, int32_t *output) {
    size_t i, j;
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));
    if (act_min > act_max || swap < 0 || swap > 1)
        return FLEX_E_PARAM;
    if (op == DIV) { /* no zero divisor */
        const int32_t *divisor = swap ? a : b;
        const size_t count = swap ? n : b_len;
        for (i = 0; i < count; i++)
            if (!divisor[i])
                return FLEX_E_PARAM;
    }
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++) {
            const int32_t x = swap ? b[j] : a[i + j], y = swap ? a[i + j] : b[j];
            int32_t v, d;
            switch (op) {
            case ADD: v = FLEX_WADD(x, y); break;
            case SUB: v = FLEX_WSUB(x, y); break;
            case MUL: v = FLEX_WMUL(x, y); break;
            case DIV: v = quotient(x, y); break;
            case MAXIMUM: v = x > y ? x : y; break;
            case MINIMUM: v = x < y ? x : y; break;
            default: d = FLEX_WSUB(x, y); v = FLEX_WMUL(d, d); break;
            }
            output[i + j] = flex__clamp(v, act_min, act_max);
        }
    return FLEX_OK;
}

flex_status flex_s32_add(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t *output) {
    return arith(ADD, n, a, b, b_len, act_min, act_max, 0, output);
}

flex_status flex_s32_mul(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t *output) {
    return arith(MUL, n, a, b, b_len, act_min, act_max, 0, output);
}

flex_status flex_s32_sub(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t swap, int32_t *output) {
    return arith(SUB, n, a, b, b_len, act_min, act_max, swap, output);
}

flex_status flex_s32_div(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t swap, int32_t *output) {
    return arith(DIV, n, a, b, b_len, act_min, act_max, swap, output);
}

flex_status flex_s32_maximum(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                             int32_t *output) {
    return arith(MAXIMUM, n, a, b, b_len, INT32_MIN, INT32_MAX, 0, output);
}

flex_status flex_s32_minimum(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                             int32_t *output) {
    return arith(MINIMUM, n, a, b, b_len, INT32_MIN, INT32_MAX, 0, output);
}

flex_status flex_s32_squared_difference(size_t n, const int32_t *a, const int32_t *b,
                                        size_t b_len, int32_t *output) {
    return arith(SQUARED_DIFFERENCE, n, a, b, b_len, INT32_MIN, INT32_MAX, 0, output);
}

flex_status flex_s32_compare(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                             int32_t op, int8_t *output) {
    FLEX__COMPARE_BODY(int32_t);
}

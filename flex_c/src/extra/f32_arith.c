/* float32 SUB, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, DIV, FLOOR_DIV and FLOOR_MOD: optional
 * ops (burn.graph.ops.OPTIONAL), as TFLM's reference kernels compute them. */
#include "../common/internal.h"

#define FLT_MAX_ 3.40282347e38f

/* TFLM's FloorMod: the remainder, moved to the divisor's sign. It is exact while
 * |x / y| < 2^29: the double quotient then truncates to the true one and t * y has no
 * rounding. */
static float floor_mod(float x, float y) {
    double q, t;
    float r;
    if (x != x || y != y || x - x != 0.0f || y == 0.0f) /* NaN, infinite x, zero divisor */
        return flex__nanf();
    if (y - y != 0.0f) { /* an infinite divisor leaves x */
        r = x;
    } else {
        q = (double)x / (double)y;
        t = q;
        if (q < 4.0e15 && q > -4.0e15) /* beyond, the double is an integer already */
            t = (double)(int64_t)q;
        r = (float)((double)x - t * (double)y);
    }
    return r != 0.0f && ((y < 0.0f) != (r < 0.0f)) ? r + y : r;
}

static float arith_one(int32_t op, float x, float y) {
    float t;
    if (op >= FLEX_ARITH_DIV && ((op - FLEX_ARITH_DIV) & 1)) /* a swapped code: b op a */
        t = x, x = y, y = t, op--;
    switch (op) {
    case FLEX_ARITH_DIV: /* TFLM clamps to its activation range, finite even for NONE */
        t = x / y;
        return t > FLT_MAX_ ? FLT_MAX_ : (t < -FLT_MAX_ ? -FLT_MAX_ : t);
    case FLEX_ARITH_FLOOR_DIV: return flex__floorf(x / y);
    case FLEX_ARITH_FLOOR_MOD: return floor_mod(x, y);
    case FLEX_ARITH_MAXIMUM: return x > y ? x : y;
    case FLEX_ARITH_MINIMUM: return x < y ? x : y;
    case FLEX_ARITH_SUB: return x - y;
    case FLEX_ARITH_SUB_SWAPPED: return y - x;
    default: return (x - y) * (x - y);
    }
}

flex_status flex_f32_arith(int32_t op, size_t n, const float *a, const float *b, size_t b_len,
                           int32_t act, float *output) {
    size_t i, j;
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));
    if (op < FLEX_ARITH_MAXIMUM || op > FLEX_ARITH_FLOOR_MOD_SWAPPED || act < FLEX_ACT_NONE ||
        act > FLEX_ACT_RELU6)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++)
            output[i + j] = arith_one(op, a[i + j], b[j]);
    return flex_f32_act(n, output, act, output);
}

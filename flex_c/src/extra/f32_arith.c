/* float32 SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM: optional ops
 * (burn.graph.ops.OPTIONAL), as TFLM's reference kernels compute them. */
#include "../common/internal.h"

static float arith_one(int32_t op, float x, float y) {
    switch (op) {
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
    if (!a || !b || !output)
        return FLEX_E_NULL;
    if (n < 1 || b_len < 1 || n % b_len)
        return FLEX_E_SHAPE;
    if (op < FLEX_ARITH_MAXIMUM || op > FLEX_ARITH_SQUARED_DIFFERENCE || act < FLEX_ACT_NONE ||
        act > FLEX_ACT_RELU6)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++)
            output[i + j] = arith_one(op, a[i + j], b[j]);
    return flex_f32_act(n, output, act, output);
}

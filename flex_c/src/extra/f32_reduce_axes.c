/* float32 reductions over axes 1 and 3 of [outer, reduce, mid, reduce2, inner], as TFLM's
 * reference SUM, MEAN, REDUCE_MAX and REDUCE_MIN: each output accumulates its inputs in
 * the input's order. */
#include "../common/internal.h"

flex_status flex_f32_reduce_axes(const int32_t dims[5], int32_t op, const float *input,
                                 size_t input_len, float *output, size_t output_len) {
    int32_t count, a, m, k, r, r2;
    int adds;
    FLEX_TRY(flex__reduce_check(dims, input, input_len, output, output_len, &count));
    if (op < 0 || op >= FLEX_REDUCE_COUNT)
        return FLEX_E_PARAM;
    adds = op == FLEX_REDUCE_SUM || op == FLEX_REDUCE_MEAN;
    for (a = 0; a < dims[0]; a++)
        for (m = 0; m < dims[2]; m++)
            for (k = 0; k < dims[4]; k++) {
                float acc = 0.0f;
                int first = 1;
                for (r = 0; r < dims[1]; r++) {
                    const float *x =
                        input + ((a * dims[1] + r) * dims[2] + m) * dims[3] * dims[4] + k;
                    for (r2 = 0; r2 < dims[3]; r2++) {
                        const float v = x[r2 * dims[4]];
                        if (adds)
                            acc += v;
                        else if (first || (op == FLEX_REDUCE_MIN ? v < acc : v > acc))
                            acc = v;
                        first = 0;
                    }
                }
                *output++ = op == FLEX_REDUCE_MEAN ? acc / (float)count : acc;
            }
    return FLEX_OK;
}

/* float32 BATCH_MATMUL, as TFLM's reference BatchMatMul (sums in k order). */
#include "../common/internal.h"

flex_status flex_f32_batch_matmul(const flex_matmul_dims *d, const float *a, size_t a_len,
                                  const float *b, size_t b_len, float *output,
                                  size_t output_len) {
    int32_t s[4], p, i, j, t;
    FLEX_TRY(flex__matmul_check(d, a, a_len, b, b_len, output, output_len, s));
    for (p = 0; p < d->batches; p++)
        for (i = 0; i < d->m; i++)
            for (j = 0; j < d->n; j++) {
                const float *x = a + p * d->a_step + i * s[0];
                const float *y = b + p * d->b_step + j * s[3];
                float acc = 0.0f;
                for (t = 0; t < d->k; t++)
                    acc += x[t * s[1]] * y[t * s[2]];
                *output++ = acc;
            }
    return FLEX_OK;
}

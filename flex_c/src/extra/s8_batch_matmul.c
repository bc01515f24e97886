/* int8 and int16 BATCH_MATMUL, as TFLM's reference BatchMatMul with FullyConnectedParams
 * (int16: an int64 sum, zero points 0). */
#include "s16.h"

flex_status flex__matmul_check(const flex_matmul_dims *d, const void *a, size_t a_len,
                               const void *b, size_t b_len, const void *out, size_t out_len,
                               int32_t *strides) {
    int32_t size, count;
    if (!d || !a || !b || !out)
        return FLEX_E_NULL;
    if (d->batches < 1 || d->m < 1 || d->k < 1 || d->k > (1 << 15) || d->n < 1 ||
        (d->adj_x & ~1) || (d->adj_y & ~1))
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(d->m, d->k, &size));
    if (d->a_step != 0 && d->a_step != size)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(d->batches - 1, d->a_step, &count));
    if (count > INT32_MAX - size)
        return FLEX_E_OVERFLOW;
    FLEX_TRY(flex__check_len(a_len, count + size));
    FLEX_TRY(flex__product(d->k, d->n, &size));
    if (d->b_step != 0 && d->b_step != size)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(d->batches - 1, d->b_step, &count));
    if (count > INT32_MAX - size)
        return FLEX_E_OVERFLOW;
    FLEX_TRY(flex__check_len(b_len, count + size));
    FLEX_TRY(flex__product(d->batches, d->m, &count));
    FLEX_TRY(flex__product(count, d->n, &count));
    FLEX_TRY(flex__check_len(out_len, count));
    strides[0] = d->adj_x ? 1 : d->k; /* a: per row, per k; b: per k, per column */
    strides[1] = d->adj_x ? d->m : 1;
    strides[2] = d->adj_y ? 1 : d->n;
    strides[3] = d->adj_y ? d->k : 1;
    return FLEX_OK;
}

flex_status flex_s8_batch_matmul(const flex_matmul_dims *d, const int8_t *a, size_t a_len,
                                 const int8_t *b, size_t b_len, int32_t a_zero_point,
                                 int32_t b_zero_point, int32_t output_zero_point,
                                 int32_t multiplier, int32_t shift, int8_t *output,
                                 size_t output_len) {
    int32_t s[4], p, i, j, t;
    FLEX_TRY(flex__matmul_check(d, a, a_len, b, b_len, output, output_len, s));
    FLEX_TRY(flex__check_zero_point(a_zero_point));
    FLEX_TRY(flex__check_zero_point(b_zero_point));
    FLEX_TRY(flex__check_zero_point(output_zero_point));
    FLEX_TRY(flex__check_shift(shift));
    for (p = 0; p < d->batches; p++)
        for (i = 0; i < d->m; i++)
            for (j = 0; j < d->n; j++) {
                const int8_t *x = a + p * d->a_step + i * s[0];
                const int8_t *y = b + p * d->b_step + j * s[3];
                int32_t acc = 0;
                for (t = 0; t < d->k; t++)
                    acc += (x[t * s[1]] - a_zero_point) * (y[t * s[2]] - b_zero_point);
                acc = flex__mbqm(acc, multiplier, shift);
                *output++ = (int8_t)flex__clamp(FLEX_WADD(acc, output_zero_point), -128, 127);
            }
    return FLEX_OK;
}

flex_status flex_s16_batch_matmul(const flex_matmul_dims *d, const int16_t *a, size_t a_len,
                                  const int16_t *b, size_t b_len, int32_t a_zero_point,
                                  int32_t b_zero_point, int32_t output_zero_point,
                                  int32_t multiplier, int32_t shift, int16_t *output,
                                  size_t output_len) {
    int32_t s[4], p, i, j, t;
    FLEX_TRY(flex__matmul_check(d, a, a_len, b, b_len, output, output_len, s));
    if (a_zero_point || b_zero_point || output_zero_point || multiplier < 0 || shift < -31 ||
        shift > 7)
        return FLEX_E_PARAM;
    for (p = 0; p < d->batches; p++)
        for (i = 0; i < d->m; i++)
            for (j = 0; j < d->n; j++) {
                const int16_t *x = a + p * d->a_step + i * s[0];
                const int16_t *y = b + p * d->b_step + j * s[3];
                int64_t acc = 0;
                for (t = 0; t < d->k; t++)
                    acc += (int64_t)(x[t * s[1]] * y[t * s[2]]);
                *output++ = (int16_t)flex__clamp(flex__mbqm64(acc, multiplier, shift), -32768,
                                                 32767);
            }
    return FLEX_OK;
}

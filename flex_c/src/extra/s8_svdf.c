/* int8 SVDF, bit-exact with TFLM's integer SVDFs (int16 or int8 weights_time and state,
 * held here in int32 elements). */
#include "svdf.h"

flex_status flex__svdf_check(const flex_svdf_dims *d, const void *input, size_t input_len,
                             const void *weights_feature, size_t weights_feature_len,
                             const void *weights_time, size_t weights_time_len,
                             const void *bias, size_t bias_len, const void *state,
                             size_t state_len, const void *output, size_t output_len) {
    int32_t n;
    if (!d || !input || !weights_feature || !weights_time || !bias || !state || !output)
        return FLEX_E_NULL;
    if (d->batch < 1 || d->input_size < 1 || d->input_size > (1 << 15) || d->filters < 1 ||
        d->memory < 1 || d->rank < 1 || d->filters % d->rank)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(d->batch, d->input_size, &n));
    FLEX_TRY(flex__check_len(input_len, n));
    FLEX_TRY(flex__product(d->filters, d->input_size, &n));
    FLEX_TRY(flex__check_len(weights_feature_len, n));
    FLEX_TRY(flex__product(d->filters, d->memory, &n));
    FLEX_TRY(flex__check_len(weights_time_len, n));
    FLEX_TRY(flex__product(d->batch, n, &n));
    FLEX_TRY(flex__check_len(state_len, n));
    FLEX_TRY(flex__check_len(bias_len, d->filters / d->rank));
    FLEX_TRY(flex__product(d->batch, d->filters / d->rank, &n));
    return flex__check_len(output_len, n);
}

flex_status flex_s8_svdf(const flex_svdf_dims *d, const int8_t *input, size_t input_len,
                         const int8_t *weights_feature, size_t weights_feature_len,
                         const int32_t *weights_time, size_t weights_time_len,
                         const int32_t *bias, size_t bias_len, int32_t *state,
                         size_t state_len, const flex_svdf_quant *q, int8_t *output,
                         size_t output_len) {
    int32_t b, f, i, u, units, half;
    FLEX_TRY(flex__svdf_check(d, input, input_len, weights_feature, weights_feature_len,
                              weights_time, weights_time_len, bias, bias_len, state,
                              state_len, output, output_len));
    if (!q)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_zero_point(q->input_zero_point));
    FLEX_TRY(flex__check_zero_point(q->output_zero_point));
    if (q->state_bits != 8 && q->state_bits != 16)
        return FLEX_E_PARAM;
    half = 1 << (q->state_bits - 1);
    if (q->state_zero_point < -half || q->state_zero_point >= half || q->multiplier1 < 0 ||
        q->multiplier2 < 0)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(q->shift1));
    FLEX_TRY(flex__check_shift(q->shift2));
    units = d->filters / d->rank;
    /* TFLM shifts the whole state buffer left by one; each row's last value is rewritten */
    for (i = 0; i + 1 < d->batch * d->filters * d->memory; i++)
        state[i] = state[i + 1];
    for (b = 0; b < d->batch; b++) {
        const int8_t *x = input + b * d->input_size;
        int32_t *rows = state + b * d->filters * d->memory;
        for (f = 0; f < d->filters; f++) {
            const int8_t *w = weights_feature + f * d->input_size;
            int32_t acc = 0;
            for (i = 0; i < d->input_size; i++)
                acc += w[i] * (x[i] - q->input_zero_point);
            acc = flex__clamp(flex__mbqm(acc, q->multiplier1, q->shift1), -half, half - 1);
            /* stored at the state's width, wrapping as TFLM's conversion to int16 / int8 */
            rows[f * d->memory + d->memory - 1] =
                (int32_t)(((uint32_t)(acc + q->state_zero_point + half) &
                           (uint32_t)(2 * half - 1))) - half;
        }
        for (u = 0; u < units; u++) {
            uint32_t acc = (uint32_t)bias[u];
            for (f = u * d->rank; f < (u + 1) * d->rank; f++) {
                const int32_t *w = weights_time + f * d->memory, *s = rows + f * d->memory;
                for (i = 0; i < d->memory; i++)
                    acc += (uint32_t)((int16_t)w[i] * ((int16_t)s[i] - q->state_zero_point));
            }
            *output++ = (int8_t)flex__clamp(
                FLEX_WADD(flex__mbqm((int32_t)acc, q->multiplier2, q->shift2),
                          q->output_zero_point), -128, 127);
        }
    }
    return FLEX_OK;
}

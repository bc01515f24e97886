/* float32 SVDF: TFLM's reference EvalFloatSvdfReference, summed in its order. */
#include "svdf.h"

flex_status flex_f32_svdf(const flex_svdf_dims *d, const float *input, size_t input_len,
                          const float *weights_feature, size_t weights_feature_len,
                          const float *weights_time, size_t weights_time_len,
                          const float *bias, size_t bias_len, float *state, size_t state_len,
                          int32_t act, float *output, size_t output_len) {
    int32_t b, f, i, u;
    float lo, hi;
    FLEX_TRY(flex__svdf_check(d, input, input_len, weights_feature, weights_feature_len,
                              weights_time, weights_time_len, bias, bias_len, state,
                              state_len, output, output_len));
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
    /* TFLM shifts the whole state buffer left by one; each row's last value is rewritten */
    for (i = 0; i + 1 < d->batch * d->filters * d->memory; i++)
        state[i] = state[i + 1];
    for (b = 0; b < d->batch; b++) {
        const float *x = input + b * d->input_size;
        float *rows = state + b * d->filters * d->memory;
        for (f = 0; f < d->filters; f++) {
            const float *w = weights_feature + f * d->input_size;
            float acc = 0.0f;
            for (i = 0; i < d->input_size; i++)
                acc += w[i] * x[i];
            rows[f * d->memory + d->memory - 1] = acc;
        }
        for (u = 0; u < d->filters / d->rank; u++) {
            float acc = bias[u];
            for (f = u * d->rank; f < (u + 1) * d->rank; f++) {
                const float *w = weights_time + f * d->memory, *s = rows + f * d->memory;
                float dot = 0.0f;
                for (i = 0; i < d->memory; i++)
                    dot += w[i] * s[i];
                acc += dot;
            }
            *output++ = acc < lo ? lo : (acc > hi ? hi : acc);
        }
    }
    return FLEX_OK;
}

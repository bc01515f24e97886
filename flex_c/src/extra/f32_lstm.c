/* float32 LSTM: TFLM's micro kernel EvalLstm<float>, summed in its order. */
#include "lstm.h"

flex_status flex_f32_lstm(const flex_lstm_dims *d, const float *input, size_t input_len,
                          const float *w, size_t w_len, const float *r, size_t r_len,
                          const float *bias, size_t bias_len, float *state, size_t state_len,
                          float cell_clip, float *output,
                          size_t output_len) {
    int32_t b, t, k, i, u;
    const int32_t units = d ? d->units : 0;
    FLEX_TRY(flex__lstm_check(d, input, input_len, w, w_len, r, r_len, bias, bias_len, state,
                              state_len, output, output_len));
    for (b = 0; b < d->batch; b++) {
        float *h = state + b * units, *c = state + (d->batch + b) * units;
        float *gate = state + 2 * d->batch * units;
        for (t = 0; t < d->steps; t++) {
            const int32_t row = flex__lstm_row(d, b, t);
            const float *x = input + row * d->input_size;
            for (k = 0; k < 4 * units; k++) {
                const float *wk = w + k * d->input_size, *rk = r + k * units;
                float acc = 0.0f, rec = 0.0f, v;
                for (i = 0; i < d->input_size; i++)
                    acc += x[i] * wk[i];
                for (i = 0; i < units; i++)
                    rec += h[i] * rk[i];
                v = (acc + bias[k]) + rec;
                gate[k] = k / units == 2 ? flex__tanhf(v) : flex__sigmoidf(v);
            }
            for (u = 0; u < units; u++) {
                float cu = gate[units + u] * c[u];
                cu += gate[u] * gate[2 * units + u];
                if (cell_clip > 0.0f)
                    cu = cu < -cell_clip ? -cell_clip : (cu > cell_clip ? cell_clip : cu);
                c[u] = cu;
                h[u] = flex__tanhf(cu) * gate[3 * units + u];
                output[row * units + u] = h[u];
            }
        }
    }
    return FLEX_OK;
}

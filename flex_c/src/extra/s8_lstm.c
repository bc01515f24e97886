/* int8 and int16x8 LSTM, bit-exact with TFLM's integer micro kernel (int16 gates and cell
 * state): one body, the int16 one reading int16 activations and summing each gate in int64. */
#include "lstm.h"
#include "s16.h"

#define MAX_DEPTH (1 << 22) /* int16 x int8 products per int64 sum: within TFLM's 2**47 */

static int32_t sat16(int32_t v) {
    return flex__clamp(v, -32768, 32767);
}

/* One gate row's sum before its activation: the input and recurrent parts, each
 * requantized by q[0..2) and q[2..4) and clamped to int16, added with saturation. An int8
 * row (x8) sums in wrapping int32 and requantizes by the int32 multiply, an int16 one (x16)
 * sums in int64 and requantizes by TFLM's int64 multiply. */
static int16_t gate_sum(const int8_t *x8, const int16_t *x16, const int8_t *w, int32_t bias,
                        int32_t n_in, int32_t in_zp, const int16_t *h, const int8_t *r,
                        int32_t units, const int32_t *q) {
    int32_t i, in, rec;
    if (x16) {
        int64_t acc = bias, sum = 0;
        for (i = 0; i < n_in; i++)
            acc += w[i] * (x16[i] - in_zp);
        for (i = 0; i < units; i++)
            sum += r[i] * h[i];
        in = flex__mbqm64(acc, q[0], q[1]);
        rec = flex__mbqm64(sum, q[2], q[3]);
    } else {
        uint32_t acc = (uint32_t)bias, sum = 0;
        for (i = 0; i < n_in; i++)
            acc += (uint32_t)(w[i] * (x8[i] - in_zp));
        for (i = 0; i < units; i++)
            sum += (uint32_t)(r[i] * h[i]);
        in = flex__mbqm((int32_t)acc, q[0], q[1]);
        rec = flex__mbqm((int32_t)sum, q[2], q[3]);
    }
    return (int16_t)sat16(sat16(in) + sat16(rec));
}

/* The quantization of an int8 LSTM, or of an int16 one (wide): zero points 0, gate shifts
 * up to 7 (TFLM's int64 multiply) and gate sums of at most MAX_DEPTH products. */
static flex_status check_quant(const flex_lstm_dims *d, const int32_t *gate_q,
                               size_t gate_q_len, const flex_lstm_quant *q, int32_t wide) {
    int32_t i;
    if (!gate_q || !q)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_len(gate_q_len, 16));
    for (i = 0; i < 16; i += 2) {
        if (gate_q[i] < 0 || (wide && gate_q[i + 1] > 7))
            return FLEX_E_PARAM;
        FLEX_TRY(flex__check_shift(gate_q[i + 1]));
    }
    if (wide && (q->input_zero_point || q->output_zero_point))
        return FLEX_E_PARAM;
    if (wide && (d->input_size > MAX_DEPTH || d->units > MAX_DEPTH))
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__check_zero_point(q->input_zero_point));
    FLEX_TRY(flex__check_zero_point(q->output_zero_point));
    if (q->cell_clip < -1 || q->cell_clip > 32767 || q->cell_power < -43 ||
        q->cell_power > 2 || q->forget_multiplier < 0 || q->input_multiplier < 0 ||
        q->hidden_multiplier < 0)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_shift(q->forget_shift));
    FLEX_TRY(flex__check_shift(q->input_shift));
    return flex__check_shift(q->hidden_shift);
}

/* The LSTM of int8 (x8, y8) or int16 (x16, y16) activations; the other pair is NULL. */
static flex_status run(const flex_lstm_dims *d, const int8_t *x8, const int16_t *x16,
                       size_t input_len, const int8_t *w, size_t w_len, const int8_t *r,
                       size_t r_len, const int32_t *bias, size_t bias_len,
                       const int32_t *gate_q, size_t gate_q_len, const int16_t *table,
                       size_t table_len, int16_t *state, size_t state_len,
                       const flex_lstm_quant *q, int8_t *y8, int16_t *y16, size_t output_len) {
    int32_t b, t, k, u, units, t_mult, t_shift, lo, hi;
    const int32_t wide = x16 != NULL;
    FLEX_TRY(flex__lstm_check(d, wide ? (const void *)x16 : (const void *)x8, input_len, w,
                              w_len, r, r_len, bias, bias_len, state, state_len,
                              wide ? (const void *)y16 : (const void *)y8, output_len));
    FLEX_TRY(check_quant(d, gate_q, gate_q_len, q, wide));
    units = d->units;
    lo = wide ? -32768 : -128;
    hi = wide ? 32767 : 127;
    /* TFLM's tanh of the cell state reads it as Q3.12 */
    t_shift = 12 + q->cell_power;
    t_mult = t_shift >= 0 ? 0 : 3;
    if (t_shift < 0)
        t_shift = -t_shift;
    for (b = 0; b < d->batch; b++) {
        int16_t *h = state + b * units, *c = state + (d->batch + b) * units;
        int16_t *g = state + 2 * d->batch * units;
        for (t = 0; t < d->steps; t++) {
            const int32_t row = flex__lstm_row(d, b, t);
            const int32_t x0 = row * d->input_size;
            for (k = 0; k < 4 * units; k++)
                g[k] = gate_sum(wide ? NULL : x8 + x0, wide ? x16 + x0 : NULL,
                                w + k * d->input_size, bias[k], d->input_size,
                                q->input_zero_point, h, r + k * units, units,
                                gate_q + 4 * (k / units));
            FLEX_TRY(flex_s16_logistic((size_t)(2 * units), g, 0, 0, table, table_len, g));
            FLEX_TRY(flex_s16_tanh((size_t)units, g + 2 * units, 0, 0, table, table_len,
                                   g + 2 * units));
            FLEX_TRY(flex_s16_logistic((size_t)units, g + 3 * units, 0, 0, table, table_len,
                                       g + 3 * units));
            for (u = 0; u < units; u++) {
                int32_t cu = sat16(
                    sat16(flex__mbqm(g[units + u] * c[u], q->forget_multiplier,
                                     q->forget_shift)) +
                    sat16(flex__mbqm(g[u] * g[2 * units + u], q->input_multiplier,
                                     q->input_shift)));
                if (q->cell_clip >= 0)
                    cu = flex__clamp(cu, -q->cell_clip, q->cell_clip);
                c[u] = (int16_t)cu;
            }
            FLEX_TRY(flex_s16_tanh((size_t)units, c, t_mult, t_shift, table, table_len,
                                   g + units));
            for (u = 0; u < units; u++) {
                const int32_t v = flex__clamp(
                    flex__mbqm(g[units + u] * g[3 * units + u], q->hidden_multiplier,
                               q->hidden_shift) + q->output_zero_point, lo, hi);
                h[u] = (int16_t)(v - q->output_zero_point);
                if (wide)
                    y16[row * units + u] = (int16_t)v;
                else
                    y8[row * units + u] = (int8_t)v;
            }
        }
    }
    return FLEX_OK;
}

flex_status flex_s8_lstm(const flex_lstm_dims *d, const int8_t *input, size_t input_len,
                         const int8_t *w, size_t w_len, const int8_t *r, size_t r_len,
                         const int32_t *bias, size_t bias_len, const int32_t *gate_q,
                         size_t gate_q_len, const int16_t *table, size_t table_len,
                         int16_t *state, size_t state_len, const flex_lstm_quant *q,
                         int8_t *output, size_t output_len) {
    return run(d, input, NULL, input_len, w, w_len, r, r_len, bias, bias_len, gate_q,
               gate_q_len, table, table_len, state, state_len, q, output, NULL, output_len);
}

flex_status flex_s16_lstm(const flex_lstm_dims *d, const int16_t *input, size_t input_len,
                          const int8_t *w, size_t w_len, const int8_t *r, size_t r_len,
                          const int32_t *bias, size_t bias_len, const int32_t *gate_q,
                          size_t gate_q_len, const int16_t *table, size_t table_len,
                          int16_t *state, size_t state_len, const flex_lstm_quant *q,
                          int16_t *output, size_t output_len) {
    return run(d, NULL, input, input_len, w, w_len, r, r_len, bias, bias_len, gate_q,
               gate_q_len, table, table_len, state, state_len, q, NULL, output, output_len);
}

/* The argument check of the LSTM kernels. */
#include "lstm.h"

flex_status flex__lstm_check(const flex_lstm_dims *d, const void *input, size_t input_len,
                             const void *w, size_t w_len, const void *r, size_t r_len,
                             const void *bias, size_t bias_len, const void *state,
                             size_t state_len, const void *output, size_t output_len) {
    int32_t rows, gates, n;
    if (!d || !input || !w || !r || !bias || !state || !output)
        return FLEX_E_NULL;
    if (d->batch < 1 || d->steps < 1 || d->input_size < 1 || d->units < 1 ||
        (d->time_major != 0 && d->time_major != 1))
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(d->batch, d->steps, &rows));
    FLEX_TRY(flex__product(4, d->units, &gates));
    FLEX_TRY(flex__product(rows, d->input_size, &n));
    FLEX_TRY(flex__check_len(input_len, n));
    FLEX_TRY(flex__product(rows, d->units, &n));
    FLEX_TRY(flex__check_len(output_len, n));
    FLEX_TRY(flex__product(gates, d->input_size, &n));
    FLEX_TRY(flex__check_len(w_len, n));
    FLEX_TRY(flex__product(gates, d->units, &n));
    FLEX_TRY(flex__check_len(r_len, n));
    FLEX_TRY(flex__check_len(bias_len, gates));
    if (d->batch > (INT32_MAX - 4) / 2)
        return FLEX_E_OVERFLOW;
    FLEX_TRY(flex__product(2 * d->batch + 4, d->units, &n));
    return flex__check_len(state_len, n);
}

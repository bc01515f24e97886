/* What the int8 and float32 LSTM kernels share: their argument check and the row of a step. */
#ifndef FLEX_LSTM_H
#define FLEX_LSTM_H

#include "../common/internal.h"

/* Check the dims and every buffer's length (element sizes do not matter here). */
flex_status flex__lstm_check(const flex_lstm_dims *d, const void *input, size_t input_len,
                             const void *w, size_t w_len, const void *r, size_t r_len,
                             const void *bias, size_t bias_len, const void *state,
                             size_t state_len, const void *output, size_t output_len);

/* The row of sequence b's step t in the input and the output. */
static inline int32_t flex__lstm_row(const flex_lstm_dims *d, int32_t b, int32_t t) {
    return d->time_major ? t * d->batch + b : b * d->steps + t;
}

#endif

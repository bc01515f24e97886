/* The host int8 fully connected kernel's unchecked body, shared with the validated plans. */
#ifndef FLEX_HOST_S8_FC_H
#define FLEX_HOST_S8_FC_H

#include "../../common/internal.h"

/* flex_s8_fully_connected's work on arguments that flex__s8_fc_check accepted;
 * per_channel is quant_len != 1. */
void flex__host_fc_rows(int32_t batches, int32_t in_f, int32_t out_f, const int8_t *input,
                        const int8_t *filter, int32_t filter_offset, const int32_t *bias,
                        const int32_t *multiplier, const int32_t *shift, int32_t per_channel,
                        const flex_s8_quant *q, int8_t *output);

#endif

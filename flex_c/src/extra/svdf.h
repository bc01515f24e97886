/* What the int8 and float32 SVDF kernels share: their argument check. */
#ifndef FLEX_SVDF_H
#define FLEX_SVDF_H

#include "../common/internal.h"

/* Check the dims and every buffer's length (element sizes do not matter here). */
flex_status flex__svdf_check(const flex_svdf_dims *d, const void *input, size_t input_len,
                             const void *weights_feature, size_t weights_feature_len,
                             const void *weights_time, size_t weights_time_len,
                             const void *bias, size_t bias_len, const void *state,
                             size_t state_len, const void *output, size_t output_len);

#endif

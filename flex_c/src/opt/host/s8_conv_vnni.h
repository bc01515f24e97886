/* The host int8 convolution's AVX-512 VNNI path (s8_conv_vnni.c). */
#ifndef FLEX_HOST_S8_CONV_VNNI_H
#define FLEX_HOST_S8_CONV_VNNI_H

#include "../../common/internal.h"

#define FLEX_HOST_VNNI_OC 1024 /* output channels at most */

/* flex_s8_conv2d (groups 1) on checked arguments with AVX-512 VNNI: 1 when done, 0 when the
 * CPU, the cap (flex_s8_vector_width), the dilation or a size leaves it to the caller. */
int32_t flex__host_conv_vnni(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const flex_window *win,
                             const flex_s8_quant *q, const flex_dims4 *out, int8_t *output);

#endif

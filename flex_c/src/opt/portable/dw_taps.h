/* Depthwise convolution (depth multiplier 1) over a table of tap pointers: plain C that the
 * kernel sets standing on opt/portable share, inline here so that a build whose kernels do
 * not call it (the Cortex-M0+ one, whose native module must stay within 24 KB) holds none
 * of it. A pixel's taps point into the input, or at a row of zero points where they fall
 * outside it; with the input offset folded into each channel's bias as
 * offset * sum(weights), such a tap adds nothing, exactly as TFLM skipping it. */
#ifndef FLEX_DW_TAPS_H
#define FLEX_DW_TAPS_H

#include "../../common/internal.h"

/* sums[c] = the sum of channel c's `taps` weights (filter[t * stride + c]); zeros[c] = the
 * input zero point (-input_offset), for c < C. */
FLEX_INLINE void flex__dw_sums(const int8_t *filter, int32_t taps, int32_t C, int32_t stride,
                               int32_t input_offset, int32_t *sums, int8_t *zeros) {
    int32_t c, t;
    for (c = 0; c < C; c++) {
        sums[c] = 0;
        for (t = 0; t < taps; t++)
            sums[c] += filter[t * stride + c];
        zeros[c] = (int8_t)(-input_offset);
    }
}

/* x[t] = the input pixel under tap t of output pixel (b, oy, ox), or `outside` where the tap
 * falls outside the input. */
FLEX_INLINE void flex__dw_taps(const flex_dims4 *in, const int8_t *input,
                               const flex_window *win, int32_t b, int32_t oy, int32_t ox,
                               const int8_t *outside, const int8_t **x) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    const int32_t x0 = ox * win->stride_w - win->pad_left;
    int32_t ky, kx, iy, ix;
    for (ky = 0; ky < win->kernel_h; ky++) {
        iy = y0 + ky * win->dilation_h;
        for (kx = 0; kx < win->kernel_w; kx++) {
            ix = x0 + kx * win->dilation_w;
            *x++ = iy >= 0 && iy < in->h && ix >= 0 && ix < in->w
                       ? input + ((b * in->h + iy) * in->w + ix) * in->c
                       : outside;
        }
    }
}

#endif

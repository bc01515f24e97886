/* Depthwise convolution (depth multiplier 1) with channels innermost: for each output pixel
 * and each tap inside the image, every channel's accumulator takes one multiply-add, so
 * input, filter and accumulators are all read contiguously. */
#include "m0_dw_channels.h"

int flex__m0_dw_channels(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                         const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                         const flex_window *win, int32_t depth_multiplier,
                         const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    int32_t acc[FLEX_M0_DW_MAX_CHANNELS];
    const int32_t C = in->c, off = q->input_offset;
    int32_t b, oy, ox, ky, kx, c;
    if (depth_multiplier != 1 || C > FLEX_M0_DW_MAX_CHANNELS)
        return 0;
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++) {
                for (c = 0; c < C; c++)
                    acc[c] = bias ? bias[c] : 0;
                for (ky = 0; ky < win->kernel_h; ky++) {
                    const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
                    if (iy < 0 || iy >= in->h)
                        continue;
                    for (kx = 0; kx < win->kernel_w; kx++) {
                        const int32_t ix =
                            ox * win->stride_w - win->pad_left + kx * win->dilation_w;
                        const int8_t *x, *w;
                        if (ix < 0 || ix >= in->w)
                            continue;
                        x = input + ((b * in->h + iy) * in->w + ix) * C;
                        w = filter + (ky * win->kernel_w + kx) * C;
                        for (c = 0; c < C; c++)
                            acc[c] = FLEX_WADD(acc[c], w[c] * (x[c] + off));
                    }
                }
                for (c = 0; c < C; c++)
                    *output++ = flex__s8_requant(acc[c], multiplier[c], shift[c], q);
            }
    return 1;
}

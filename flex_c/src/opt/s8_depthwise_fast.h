/* Depthwise convolution (depth multiplier 1) that walks channels innermost: for each output
 * pixel and each in-image tap, every channel's accumulator takes one multiply-add, so input,
 * filter and accumulators are all read contiguously. Included by an optimized target's
 * s8_conv.c after the reference kernels (renamed flex__ref_*), it defines
 * flex_s8_depthwise_conv2d, falling back to the reference for a depth multiplier > 1 or too
 * many channels. */
#ifndef FLEX_S8_DEPTHWISE_FAST_H
#define FLEX_S8_DEPTHWISE_FAST_H

#include "../common/s8_checks.h"

#ifndef FLEX_DW_MAX_CHANNELS /* accumulators on the stack: 4 bytes per channel */
#define FLEX_DW_MAX_CHANNELS 512
#endif

static int flex__s8_depthwise_fast(const flex_dims4 *in, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias,
                                   const int32_t *multiplier, const int32_t *shift,
                                   const flex_window *win, int32_t depth_multiplier,
                                   const flex_s8_quant *q, const flex_dims4 *out,
                                   int8_t *output) {
    int32_t acc[FLEX_DW_MAX_CHANNELS];
    const int32_t C = in->c, off = q->input_offset;
    int32_t b, oy, ox, ky, kx, c;
    if (depth_multiplier != 1 || C > FLEX_DW_MAX_CHANNELS)
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


flex_status flex_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    FLEX_TRY(flex__s8_depthwise_check(in_dims, input, input_len, filter, filter_len, bias,
                                      bias_len, multiplier, shift, quant_len, win,
                                      depth_multiplier, q, out_dims, output, output_len));
    if (flex__s8_depthwise_fast(in_dims, input, filter, bias, multiplier, shift, win,
                                depth_multiplier, q, out_dims, output))
        return FLEX_OK;
    return flex__ref_s8_depthwise_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                         bias_len, multiplier, shift, quant_len, win,
                                         depth_multiplier, q, out_dims, output, output_len);
}

#endif

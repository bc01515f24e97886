/* Cortex-M0+ int8 convolution: per output pixel the receptive field is gathered once into a
 * contiguous patch (padding filled with the input zero point, which adds nothing, exactly as
 * TFLM skipping it), then four output channels at a time run flex__m0_dot4 over it. The
 * input offset enters once per channel as input_offset * sum(weights), folded with the bias.
 * Depthwise convolution walks channels innermost (s8_depthwise_fast.h); grouped convolution
 * and patches too large for the stack buffer use the reference kernels, renamed here. */
#include "../../common/s8_checks.h"
#include "m0_dot.h"

#define flex_s8_conv2d flex__ref_s8_conv2d
#define flex_s8_depthwise_conv2d flex__ref_s8_depthwise_conv2d
#include "../../ref/s8_conv.c"
#undef flex_s8_conv2d
#undef flex_s8_depthwise_conv2d
#define FLEX_DW_MAX_CHANNELS 256
#include "../s8_depthwise_fast.h"

#define PATCH_MAX 1152 /* 3 x 3 x 128 */
#define OC_BLOCK 32

/* Gather the window of output pixel (b, oy, ox); returns the patch start (the input itself
 * when the window is one contiguous run of it). */
static const int8_t *gather(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                            int32_t b, int32_t oy, int32_t ox, int8_t fill, int8_t *patch) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    const int32_t x0 = ox * win->stride_w - win->pad_left;
    int32_t ky, kx, i;
    int8_t *dst = patch;
    if (win->kernel_h == 1 && x0 >= 0 && x0 + win->kernel_w <= in->w && y0 >= 0 &&
        y0 < in->h && (win->kernel_w == 1 || win->dilation_w == 1))
        return input + ((b * in->h + y0) * in->w + x0) * in->c;
    for (ky = 0; ky < win->kernel_h; ky++) {
        const int32_t iy = y0 + ky * win->dilation_h;
        for (kx = 0; kx < win->kernel_w; kx++) {
            const int32_t ix = x0 + kx * win->dilation_w;
            if (iy < 0 || iy >= in->h || ix < 0 || ix >= in->w) {
                for (i = 0; i < in->c; i++)
                    dst[i] = fill;
            } else {
                const int8_t *src = input + ((b * in->h + iy) * in->w + ix) * in->c;
                for (i = 0; i < in->c; i++)
                    dst[i] = src[i];
            }
            dst += in->c;
        }
    }
    return patch;
}

flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int8_t patch[PATCH_MAX];
    int32_t base[OC_BLOCK];
    int32_t k, oc0, nb, j, i, b, oy, ox;
    FLEX_TRY(flex__s8_conv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                                 multiplier, shift, quant_len, win, groups, q, out_dims, output,
                                 output_len));
    k = win->kernel_h * win->kernel_w * in_dims->c;
    if (groups != 1 || k > PATCH_MAX)
        return flex__ref_s8_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                   bias_len, multiplier, shift, quant_len, win, groups, q,
                                   out_dims, output, output_len);
    for (oc0 = 0; oc0 < out_dims->c; oc0 += OC_BLOCK) {
        nb = out_dims->c - oc0 < OC_BLOCK ? out_dims->c - oc0 : OC_BLOCK;
        for (j = 0; j < nb; j++) {
            const int8_t *w = filter + (oc0 + j) * k;
            uint32_t sum = 0;
            for (i = 0; i < k; i++)
                sum += (uint32_t)w[i];
            base[j] = (int32_t)((uint32_t)(bias ? bias[oc0 + j] : 0) +
                                sum * (uint32_t)q->input_offset);
        }
        for (b = 0; b < out_dims->n; b++)
            for (oy = 0; oy < out_dims->h; oy++)
                for (ox = 0; ox < out_dims->w; ox++) {
                    const int8_t *x = gather(in_dims, input, win, b, oy, ox,
                                             (int8_t)(-q->input_offset), patch);
                    int8_t *out = output + ((b * out_dims->h + oy) * out_dims->w + ox) *
                                               out_dims->c + oc0;
                    for (j = 0; j < nb; j += 4) {
                        int32_t acc[4] = {0, 0, 0, 0};
                        const int8_t *w_end[4];
                        const int32_t m = nb - j < 4 ? nb - j : 4;
                        int32_t r;
                        for (r = 0; r < 4; r++) /* spare lanes repeat the last channel */
                            w_end[r] = filter + (oc0 + j + (r < m ? r : m - 1) + 1) * k;
                        flex__m0_dot4(x + k, w_end, k, acc);
                        for (r = 0; r < m; r++) {
                            const int32_t c = oc0 + j + r;
                            out[j + r] = flex__s8_requant(FLEX_WADD(acc[r], base[j + r]),
                                                          multiplier[c], shift[c], q);
                        }
                    }
                }
    }
    return FLEX_OK;
}

/* Host (x86-64 / aarch64) int8 convolution: the receptive field of each output pixel is
 * gathered once into a contiguous patch (padding filled with the input zero point, which adds
 * nothing, exactly as TFLM skipping it), then each output channel is one dot product the
 * compiler vectorizes; the input offset enters once per channel as offset * sum(weights).
 * Depthwise convolution walks channels innermost (s8_depthwise_fast.h). Other shapes use the
 * reference kernels, renamed here. */
#include "../../common/s8_checks.h"

#define flex_s8_conv2d flex__ref_s8_conv2d
#define flex_s8_depthwise_conv2d flex__ref_s8_depthwise_conv2d
#include "../../ref/s8_conv.c"
#undef flex_s8_conv2d
#undef flex_s8_depthwise_conv2d
#include "../s8_depthwise_fast.h"

#define PATCH_MAX 16384
#define OC_MAX 1024

static void gather(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                   int32_t b, int32_t oy, int32_t ox, int8_t fill, int8_t *patch) {
    int32_t ky, kx, i;
    for (ky = 0; ky < win->kernel_h; ky++) {
        const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
        for (kx = 0; kx < win->kernel_w; kx++) {
            const int32_t ix = ox * win->stride_w - win->pad_left + kx * win->dilation_w;
            const int inside = iy >= 0 && iy < in->h && ix >= 0 && ix < in->w;
            const int8_t *src = inside ? input + ((b * in->h + iy) * in->w + ix) * in->c : 0;
            for (i = 0; i < in->c; i++)
                patch[i] = inside ? src[i] : fill;
            patch += in->c;
        }
    }
}

static int32_t dot(const int8_t *restrict x, const int8_t *restrict w, int32_t n) {
    int32_t acc = 0, i;
    for (i = 0; i < n; i++) /* |sum| < n * 2^14 <= 2^28: no overflow */
        acc += x[i] * w[i];
    return acc;
}

flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int8_t patch[PATCH_MAX];
    int32_t base[OC_MAX];
    int32_t k, oc, i, b, oy, ox;
    FLEX_TRY(flex__s8_conv_check(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                                 multiplier, shift, quant_len, win, groups, q, out_dims, output,
                                 output_len));
    k = win->kernel_h * win->kernel_w * in_dims->c;
    if (groups != 1 || k > PATCH_MAX || out_dims->c > OC_MAX)
        return flex__ref_s8_conv2d(in_dims, input, input_len, filter, filter_len, bias,
                                   bias_len, multiplier, shift, quant_len, win, groups, q,
                                   out_dims, output, output_len);
    for (oc = 0; oc < out_dims->c; oc++) {
        const int8_t *w = filter + oc * k;
        int32_t sum = 0;
        for (i = 0; i < k; i++)
            sum += w[i];
        base[oc] = FLEX_WADD(bias ? bias[oc] : 0, FLEX_WMUL(sum, q->input_offset));
    }
    for (b = 0; b < out_dims->n; b++)
        for (oy = 0; oy < out_dims->h; oy++)
            for (ox = 0; ox < out_dims->w; ox++) {
                gather(in_dims, input, win, b, oy, ox, (int8_t)(-q->input_offset), patch);
                for (oc = 0; oc < out_dims->c; oc++)
                    *output++ = flex__s8_requant(FLEX_WADD(dot(patch, filter + oc * k, k),
                                                           base[oc]),
                                                 multiplier[oc], shift[oc], q);
            }
    return FLEX_OK;
}

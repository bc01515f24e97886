/* Cortex-M0+ int8 convolution: per output pixel the receptive field is gathered once into a
 * contiguous patch (padding filled with the input zero point, which adds nothing, exactly as
 * TFLM skipping it; a window that is one contiguous run of the input is used in place), then
 * flex__m0_dot_rows runs every output channel of a block over it and m0_requant.h turns the
 * sums into int8. The input offset enters once per channel as input_offset * sum(weights),
 * folded with the bias. Grouped convolution and patches too large for the stack buffer use
 * the reference kernels, renamed here. */
#include "m0_dot.h"
#include "m0_requant.h"

#define flex_s8_conv2d flex__ref_s8_conv2d
#define flex_s8_depthwise_conv2d flex__ref_s8_depthwise_conv2d
#include "../../ref/s8_conv.c"
#undef flex_s8_conv2d
#undef flex_s8_depthwise_conv2d
#define FLEX_DW_MAX_CHANNELS 256
#include "../s8_depthwise_fast.h"

#define PATCH_MAX 1152 /* 3 x 3 x 128 */
#define OC_BLOCK 32

typedef int32_t word_t __attribute__((may_alias));

/* dst[0:n] = src[0:n], a word at a time when both are word-aligned. */
static void copy_run(int8_t *dst, const int8_t *src, int32_t n) {
    if ((((uintptr_t)dst | (uintptr_t)src) & 3) == 0) {
        for (; n >= 4; n -= 4, dst += 4, src += 4)
            *(word_t *)dst = *(const word_t *)src;
    }
    while (n-- > 0)
        *dst++ = *src++;
}

static void fill_run(int8_t *dst, int8_t value, int32_t n) {
    while (n-- > 0)
        *dst++ = value;
}

/* Gather the window of output pixel (b, oy, ox); returns the patch start (the input itself
 * when the window is one contiguous run of it). */
static const int8_t *gather(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                            int32_t b, int32_t oy, int32_t ox, int8_t fill, int8_t *patch) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    const int32_t x0 = ox * win->stride_w - win->pad_left;
    const int32_t C = in->c, row = win->kernel_w * C;
    const int8_t *image = input + b * in->h * in->w * C;
    int32_t ky, kx;
    int8_t *dst = patch;
    if (win->kernel_h == 1 && x0 >= 0 && x0 + win->kernel_w <= in->w && y0 >= 0 &&
        y0 < in->h && (win->kernel_w == 1 || win->dilation_w == 1))
        return image + (y0 * in->w + x0) * C;
    for (ky = 0; ky < win->kernel_h; ky++, dst += row) {
        const int32_t iy = y0 + ky * win->dilation_h;
        const int8_t *src = image + iy * in->w * C;
        if (iy < 0 || iy >= in->h) {
            fill_run(dst, fill, row);
        } else if (win->dilation_w == 1) { /* one run of the input row, padded at its ends */
            const int32_t left = x0 < 0 ? -x0 : 0;
            const int32_t end = x0 + win->kernel_w > in->w ? in->w - x0 : win->kernel_w;
            fill_run(dst, fill, left * C);
            copy_run(dst + left * C, src + (x0 + left) * C, (end - left) * C);
            fill_run(dst + end * C, fill, row - end * C);
        } else {
            for (kx = 0; kx < win->kernel_w; kx++) {
                const int32_t ix = x0 + kx * win->dilation_w;
                if (ix < 0 || ix >= in->w)
                    fill_run(dst + kx * C, fill, C);
                else
                    copy_run(dst + kx * C, src + ix * C, C);
            }
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
    int32_t patch_words[PATCH_MAX / 4]; /* word-aligned for copy_run */
    int8_t *patch = (int8_t *)patch_words;
    int32_t acc[OC_BLOCK];
    flex__m0_rq rq[OC_BLOCK];
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
        const int8_t *w_block = filter + oc0 * k;
        nb = out_dims->c - oc0 < OC_BLOCK ? out_dims->c - oc0 : OC_BLOCK;
        for (j = 0; j < nb; j++) {
            const int8_t *w = w_block + j * k;
            uint32_t sum = 0;
            if (q->input_offset != 0)
                for (i = 0; i < k; i++)
                    sum += (uint32_t)w[i];
            flex__m0_rq_init(&rq[j], (int32_t)((uint32_t)(bias ? bias[oc0 + j] : 0) +
                                               sum * (uint32_t)q->input_offset),
                             multiplier[oc0 + j], shift[oc0 + j], q);
        }
        for (b = 0; b < out_dims->n; b++)
            for (oy = 0; oy < out_dims->h; oy++)
                for (ox = 0; ox < out_dims->w; ox++) {
                    const int8_t *x = gather(in_dims, input, win, b, oy, ox,
                                             (int8_t)(-q->input_offset), patch);
                    int8_t *out = output + ((b * out_dims->h + oy) * out_dims->w + ox) *
                                               out_dims->c + oc0;
                    flex__m0_dot_rows(x + k, w_block + k, k, nb, acc);
                    for (j = 0; j < nb; j++)
                        out[j] = flex__m0_requant(acc[j], &rq[j], q);
                }
    }
    return FLEX_OK;
}

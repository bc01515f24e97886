/* int16x8 convolution with groups, as TFLM's reference ConvPerChannel for int16 (no zero
 * points: TFLM's int16 kernel has none). */
#include "s16.h"

flex_status flex_s16_conv2d(const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
                            const int8_t *filter, size_t filter_len,
                            const int32_t *bias, size_t bias_len,
                            const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                            const flex_window *win, int32_t groups, int32_t wide,
                            int32_t act_min, int32_t act_max, const flex_dims4 *out_dims,
                            int16_t *output, size_t output_len) {
    int32_t b, oy, ox, c, ky, kx, y, x, k, gic, per_group, count;
    if (!in_dims || !out_dims || !win || !filter)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_io(in_dims, input, input_len, win, out_dims, output, output_len, 0));
    if (groups < 1 || in_dims->c % groups || out_dims->c % groups || in_dims->n != out_dims->n)
        return FLEX_E_SHAPE;
    gic = in_dims->c / groups;
    per_group = out_dims->c / groups;
    FLEX_TRY(flex__product(out_dims->c, win->kernel_h, &count));
    FLEX_TRY(flex__product(count, win->kernel_w, &count));
    FLEX_TRY(flex__product(count, gic, &count));
    FLEX_TRY(flex__check_len(filter_len, count));
    FLEX_TRY(flex__s16_check_tables(bias, bias_len, multiplier, shift, quant_len, out_dims->c,
                                    wide, act_min, act_max));
    for (b = 0; b < in_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                for (c = 0; c < out_dims->c; c++) {
                    const int32_t g0 = (c / per_group) * gic;
                    int64_t acc = bias ? bias[c] : 0;
                    FLEX__FOR_TAPS(win, in_dims->h, in_dims->w, oy, ox, ky, kx, y, x,
                        const int16_t *xi =
                            input + ((b * in_dims->h + y) * in_dims->w + x) * in_dims->c + g0;
                        const int8_t *wi =
                            filter + ((c * win->kernel_h + ky) * win->kernel_w + kx) * gic;
                        for (k = 0; k < gic; k++)
                            acc += (int32_t)wi[k] * xi[k];)
                    *output++ = (int16_t)flex__clamp(
                        flex__s16_requant(acc, multiplier[c], shift[c], wide), act_min,
                        act_max);
                }
            }
        }
    }
    return FLEX_OK;
}

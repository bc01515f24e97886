/* int8 average / max pooling (NHWC), as TFLM's reference kernels (average pool as
 * flex__ref_s8_avg_pool2d). */
#include "ref.h"

/* Pools need every window to hold a real element: dilation 1, padding below the kernel. */
flex_status flex__s8_pool_check(const flex_dims4 *in_dims, const int8_t *input,
                                size_t input_len, const flex_window *win, int32_t act_min,
                                int32_t act_max, const flex_dims4 *out_dims,
                                const int8_t *output, size_t output_len) {
    int32_t in_count, out_count;
    if (!input || !output)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &in_count));
    FLEX_TRY(flex__count(out_dims, &out_count));
    FLEX_TRY(flex__check_spatial(in_dims, win, out_dims, 0));
    if (win->dilation_h != 1 || win->dilation_w != 1 || win->pad_top >= win->kernel_h ||
        win->pad_bottom >= win->kernel_h || win->pad_left >= win->kernel_w ||
        win->pad_right >= win->kernel_w || win->kernel_h * win->kernel_w > (1 << 16))
        return FLEX_E_STRIDE;
    if (in_dims->c != out_dims->c)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__check_len(input_len, in_count));
    FLEX_TRY(flex__check_len(output_len, out_count));
    return flex__check_act(act_min, act_max);
}

/* One pool over all windows; is_max selects max, else rounded average. */
static void pool(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                 int32_t act_min, int32_t act_max, const flex_dims4 *out, int8_t *output,
                 int is_max) {
    int32_t b, oy, ox, c, y, x;
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++) {
                const flex__window_at a = flex__locate(win, in, oy, ox);
                for (c = 0; c < out->c; c++) {
                    int32_t acc = is_max ? -128 : 0;
                    for (y = a.ys; y < a.ye; y++)
                        for (x = a.xs; x < a.xe; x++) {
                            const int32_t v = input[((b * in->h + y) * in->w + x) * in->c + c];
                            if (!is_max)
                                acc += v;
                            else if (v > acc)
                                acc = v;
                        }
                    if (!is_max)
                        acc = flex__round_div(acc, a.real);
                    *output++ = (int8_t)flex__clamp(acc, act_min, act_max);
                }
            }
}

FLEX__SIGNATURE_s8_avg_pool2d(flex__ref_s8_avg_pool2d) {
    FLEX_TRY(flex__s8_pool_check(FLEX__ARGS_s8_avg_pool2d));
    pool(in_dims, input, win, act_min, act_max, out_dims, output, 0);
    return FLEX_OK;
}

flex_status flex_s8_max_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                               size_t input_len, const flex_window *win,
                               int32_t act_min, int32_t act_max,
                               const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    FLEX_TRY(flex__s8_pool_check(FLEX__ARGS_s8_avg_pool2d));
    pool(in_dims, input, win, act_min, act_max, out_dims, output, 1);
    return FLEX_OK;
}

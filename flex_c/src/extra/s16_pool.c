/* int16 average and max pooling, as TFLM's reference integer pooling for int16. */
#include "../common/internal.h"

static flex_status pool(const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
                        const flex_window *win, int32_t act_min, int32_t act_max,
                        const flex_dims4 *out_dims, int16_t *output, size_t output_len,
                        int average) {
    int32_t b, oy, ox, c, y, x;
    if (!in_dims || !out_dims || !win)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_io(in_dims, input, input_len, win, out_dims, output, output_len, 0));
    if (in_dims->n != out_dims->n || in_dims->c != out_dims->c)
        return FLEX_E_SHAPE;
    if (win->dilation_h != 1 || win->dilation_w != 1)
        return FLEX_E_STRIDE;
    if (act_min < -32768 || act_max > 32767 || act_min > act_max)
        return FLEX_E_PARAM;
    for (b = 0; b < in_dims->n; b++) {
        for (oy = 0; oy < out_dims->h; oy++) {
            for (ox = 0; ox < out_dims->w; ox++) {
                const flex__window_at at = flex__locate(win, in_dims, oy, ox);
                for (c = 0; c < in_dims->c; c++) {
                    int32_t acc = average ? 0 : -32768;
                    for (y = at.ys; y < at.ye; y++) {
                        const int16_t *row = input + ((b * in_dims->h + y) * in_dims->w) *
                                                         in_dims->c + c;
                        for (x = at.xs; x < at.xe; x++) {
                            const int32_t v = row[x * in_dims->c];
                            if (average)
                                acc += v;
                            else if (v > acc)
                                acc = v;
                        }
                    }
                    if (average)
                        acc = at.real ? flex__round_div(acc, at.real) : 0;
                    *output++ = (int16_t)flex__clamp(acc, act_min, act_max);
                }
            }
        }
    }
    return FLEX_OK;
}

/* The two public pools, one call of pool() each (average 1 for AVG, 0 for MAX). */
#define S16_POOL(name, average)                                                            \
    flex_status name(const flex_dims4 *in_dims, const int16_t *input, size_t input_len,   \
                     const flex_window *win, int32_t act_min, int32_t act_max,            \
                     const flex_dims4 *out_dims, int16_t *output, size_t output_len) {    \
        return pool(in_dims, input, input_len, win, act_min, act_max, out_dims, output,   \
                    output_len, average);                                                 \
    }
S16_POOL(flex_s16_avg_pool2d, 1)
S16_POOL(flex_s16_max_pool2d, 0)

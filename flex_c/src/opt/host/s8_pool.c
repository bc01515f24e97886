/* Host int8 average pool: channels innermost, so each window cell adds a contiguous row of
 * channels to the int32 sums (|sum| <= 2^16 * 128: exact) before the reference's rounded
 * division. More channels than the stack holds take the reference kernel (ref/ref.h). */
#include "../../ref/ref.h"

#define POOL_MAX_CHANNELS 1024

FLEX_CLONES
static void avg_pool_fast(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                          int32_t act_min, int32_t act_max, const flex_dims4 *out,
                          int8_t *output) {
    int32_t acc[POOL_MAX_CHANNELS];
    const int32_t C = in->c;
    int32_t b, oy, ox, c, y, x;
    for (b = 0; b < out->n; b++)
        for (oy = 0; oy < out->h; oy++)
            for (ox = 0; ox < out->w; ox++) {
                const flex__window_at a = flex__locate(win, in, oy, ox);
                for (c = 0; c < C; c++)
                    acc[c] = 0;
                for (y = a.ys; y < a.ye; y++)
                    for (x = a.xs; x < a.xe; x++) {
                        const int8_t *restrict row = input + ((b * in->h + y) * in->w + x) * C;
                        for (c = 0; c < C; c++)
                            acc[c] += row[c];
                    }
                for (c = 0; c < C; c++) {
                    const int32_t v = flex__round_div(acc[c], a.real);
                    *output++ = (int8_t)flex__clamp(v, act_min, act_max);
                }
            }
}

FLEX__SIGNATURE_s8_avg_pool2d(flex_s8_avg_pool2d) {
    FLEX_TRY(flex__s8_pool_check(FLEX__ARGS_s8_avg_pool2d));
    if (in_dims->c > POOL_MAX_CHANNELS)
        return flex__ref_s8_avg_pool2d(FLEX__ARGS_s8_avg_pool2d);
    avg_pool_fast(in_dims, input, win, act_min, act_max, out_dims, output);
    return FLEX_OK;
}

/* int8 image resize through sampling tables, as TFLM's ResizeBilinearInteger (and its
 * nearest-neighbour resize, a table with zero weights). */
#include "../common/internal.h"

static flex_status check_table(const int32_t *t, size_t len, int32_t count, int32_t size,
                               int weights) {
    int32_t i;
    FLEX_TRY(flex__product(count, 3, &i));
    FLEX_TRY(flex__check_len(len, i));
    for (i = 0; i < count; i++, t += 3)
        if (t[0] < 0 || t[0] >= size || t[1] < 0 || t[1] >= size ||
            (weights && (t[2] < -512 || t[2] > 1024)))
            return FLEX_E_PARAM;
    return FLEX_OK;
}

flex_status flex__resize_check(const flex_dims4 *in_dims, const void *input, size_t input_len,
                               const int32_t *ys, size_t ys_len, const int32_t *xs,
                               size_t xs_len, int weights, const flex_dims4 *out_dims,
                               const void *output, size_t output_len) {
    int32_t count;
    if (!in_dims || !out_dims || !input || !output || !ys || !xs)
        return FLEX_E_NULL;
    if (in_dims->n != out_dims->n || in_dims->c != out_dims->c)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__count(in_dims, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(check_table(ys, ys_len, out_dims->h, in_dims->h, weights));
    return check_table(xs, xs_len, out_dims->w, in_dims->w, weights);
}

flex_status flex_s8_resize(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int32_t *ys, size_t ys_len, const int32_t *xs, size_t xs_len,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int32_t b, y, x, k;
    const int32_t c = in_dims ? in_dims->c : 0;
    FLEX_TRY(flex__resize_check(in_dims, input, input_len, ys, ys_len, xs, xs_len, 1, out_dims,
                                output, output_len));
    for (b = 0; b < out_dims->n; b++)
        for (y = 0; y < out_dims->h; y++) {
            const int32_t *ty = ys + 3 * y, wy = ty[2];
            const int8_t *r0 = input + (b * in_dims->h + ty[0]) * in_dims->w * c;
            const int8_t *r1 = input + (b * in_dims->h + ty[1]) * in_dims->w * c;
            for (x = 0; x < out_dims->w; x++) {
                const int32_t *tx = xs + 3 * x, wx = tx[2];
                const int32_t x0 = tx[0] * c, x1 = tx[1] * c;
                for (k = 0; k < c; k++) {
                    /* |weights| <= 1536 * 1536 in all: the sum stays within int32 */
                    const int32_t acc = r0[x0 + k] * (1024 - wy) * (1024 - wx) +
                                        r1[x0 + k] * wy * (1024 - wx) +
                                        r0[x1 + k] * (1024 - wy) * wx + r1[x1 + k] * wy * wx;
                    const int32_t q = acc > 0 ? (acc + (1 << 19)) / (1 << 20)
                                              : (acc - (1 << 19)) / (1 << 20);
                    *output++ = (int8_t)(uint8_t)(uint32_t)q;
                }
            }
        }
    return FLEX_OK;
}

/* float32 image resize through sampling tables, as TFLM's ResizeBilinear (and its
 * nearest-neighbour resize, a table with zero fractions). */
#include "../common/internal.h"

flex_status flex_f32_resize(const flex_dims4 *in_dims, const float *input, size_t input_len,
                            const int32_t *ys, size_t ys_len, const int32_t *xs,
                            size_t xs_len, const float *fy, const float *fx,
                            const flex_dims4 *out_dims, float *output, size_t output_len) {
    int32_t b, y, x, k;
    const int32_t c = in_dims ? in_dims->c : 0;
    FLEX_TRY(flex__resize_check(in_dims, input, input_len, ys, ys_len, xs, xs_len, 0, out_dims,
                                output, output_len));
    if (!fy || !fx)
        return FLEX_E_NULL;
    for (b = 0; b < out_dims->n; b++)
        for (y = 0; y < out_dims->h; y++) {
            const float dy = fy[y];
            const float *r0 = input + (b * in_dims->h + ys[3 * y]) * in_dims->w * c;
            const float *r1 = input + (b * in_dims->h + ys[3 * y + 1]) * in_dims->w * c;
            for (x = 0; x < out_dims->w; x++) {
                const float dx = fx[x];
                const int32_t x0 = xs[3 * x] * c, x1 = xs[3 * x + 1] * c;
                for (k = 0; k < c; k++)
                    *output++ = r0[x0 + k] * (1 - dy) * (1 - dx) + r1[x0 + k] * dy * (1 - dx) +
                                r0[x1 + k] * (1 - dy) * dx + r1[x1 + k] * dy * dx;
            }
        }
    return FLEX_OK;
}

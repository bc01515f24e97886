/* int16 nearest-neighbour resize (TFLite RESIZE_NEAREST_NEIGHBOR of int16, the optional op
 * `resize`): each output pixel a copy of the input pixel at the sampling tables' first
 * positions, as TFLM's ResizeNearestNeighbor copies it. */
#include "../common/internal.h"

flex_status flex_s16_resize_nearest(int32_t n, int32_t ih, int32_t iw, int32_t c, int32_t oh,
                                    int32_t ow, const int16_t *input, size_t input_len,
                                    const int32_t *ys, size_t ys_len, const int32_t *xs,
                                    size_t xs_len, int16_t *output, size_t output_len) {
    const flex_dims4 in_dims = {n, ih, iw, c}, out_dims = {n, oh, ow, c};
    int32_t b, y, x, k;
    FLEX_TRY(flex__resize_check(&in_dims, input, input_len, ys, ys_len, xs, xs_len, 1,
                                &out_dims, output, output_len));
    for (b = 0; b < n; b++)
        for (y = 0; y < oh; y++) {
            const int16_t *row = input + (size_t)(b * ih + ys[3 * y]) * (size_t)iw * (size_t)c;
            for (x = 0; x < ow; x++) {
                const int16_t *pixel = row + (size_t)xs[3 * x] * (size_t)c;
                for (k = 0; k < c; k++)
                    *output++ = pixel[k];
            }
        }
    return FLEX_OK;
}

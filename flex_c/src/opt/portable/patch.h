/* Receptive fields of int8 convolution gathered into contiguous patches (patch.c): plain
 * C that every kernel set standing on opt/portable (sources.py BASES) shares. */
#ifndef FLEX_PATCH_H
#define FLEX_PATCH_H

#include "../../common/internal.h"

/* Whether output pixel p's window is input pixel p alone (1 x 1, stride 1, no padding): the
 * patch is the pixel. */
FLEX_INLINE int flex__patch_pointwise(const flex_dims4 *in, const flex_window *win,
                                      const flex_dims4 *out) {
    return win->kernel_h == 1 && win->kernel_w == 1 && win->stride_h == 1 &&
           win->stride_w == 1 && win->pad_top == 0 && win->pad_left == 0 && in->h == out->h &&
           in->w == out->w;
}

/* dst[0:n] = src[0:n], a word at a time when both are word-aligned or the core takes words
 * at any address. */
void flex__patch_copy_run(int8_t *dst, const int8_t *src, int32_t n);

/* kernel_h rows of `width` pixels into dst: input columns x0 .. x0 + width - 1 of input rows
 * y0 + ky * dilation_h of `image`, with `fill` outside it. */
void flex__patch_padded_rows(const flex_dims4 *in, const int8_t *image, const flex_window *win,
                          int32_t y0, int32_t x0, int32_t width, int8_t fill, int8_t *dst);

/* Gathers the window of output pixel (b, oy, ox) into patch, `fill` where it lies outside
 * the input; returns the patch start (the input itself when the window is one contiguous
 * run of it). */
const int8_t *flex__patch_gather(const flex_dims4 *in, const int8_t *input,
                              const flex_window *win, int32_t b, int32_t oy, int32_t ox,
                              int8_t fill, int8_t *patch);

#endif

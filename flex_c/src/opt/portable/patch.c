/* Receptive fields gathered into patches (patch.h). */
#include "patch.h"

#if defined(__ARM_FEATURE_UNALIGNED)
/* The core loads and stores words at any byte address (Armv7-M and later). */
typedef int32_t word_t __attribute__((aligned(1), may_alias));
#define WORDS_AT_ANY_ADDRESS 1
#else
typedef int32_t word_t __attribute__((may_alias));
#define WORDS_AT_ANY_ADDRESS 0
#endif

void flex__patch_copy_run(int8_t *dst, const int8_t *src, int32_t n) {
    if (WORDS_AT_ANY_ADDRESS || (((uintptr_t)dst | (uintptr_t)src) & 3) == 0) {
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

void flex__patch_padded_rows(const flex_dims4 *in, const int8_t *image, const flex_window *win,
                          int32_t y0, int32_t x0, int32_t width, int8_t fill, int8_t *dst) {
    const int32_t C = in->c, in_w = in->w, row = width * C;
    const int32_t left = x0 >= 0 ? 0 : (-x0 < width ? -x0 : width);
    const int32_t end = x0 + width <= in_w ? width : (in_w - x0 > left ? in_w - x0 : left);
    int32_t ky, iy;
    for (ky = 0; ky < win->kernel_h; ky++, dst += row) {
        iy = y0 + ky * win->dilation_h;
        if (iy < 0 || iy >= in->h) {
            fill_run(dst, fill, row);
            continue;
        }
        fill_run(dst, fill, left * C);
        flex__patch_copy_run(dst + left * C, image + (iy * in_w + x0 + left) * C,
                          (end - left) * C);
        fill_run(dst + end * C, fill, row - end * C);
    }
}

const int8_t *flex__patch_gather(const flex_dims4 *in, const int8_t *input,
                              const flex_window *win, int32_t b, int32_t oy, int32_t ox,
                              int8_t fill, int8_t *patch) {
    const int32_t y0 = oy * win->stride_h - win->pad_top;
    const int32_t x0 = ox * win->stride_w - win->pad_left;
    const int32_t C = in->c;
    const int8_t *image = input + b * in->h * in->w * C;
    int32_t ky, kx;
    int8_t *dst = patch;
    if (win->kernel_h == 1 && x0 >= 0 && x0 + win->kernel_w <= in->w && y0 >= 0 &&
        y0 < in->h && (win->kernel_w == 1 || win->dilation_w == 1))
        return image + (y0 * in->w + x0) * C;
    if (win->dilation_w == 1) { /* each window row one run of the input, padded at its ends */
        flex__patch_padded_rows(in, image, win, y0, x0, win->kernel_w, fill, patch);
        return patch;
    }
    for (ky = 0; ky < win->kernel_h; ky++, dst += win->kernel_w * C) {
        const int32_t iy = y0 + ky * win->dilation_h;
        const int8_t *src = image + iy * in->w * C;
        for (kx = 0; kx < win->kernel_w; kx++) {
            const int32_t ix = x0 + kx * win->dilation_w;
            if (iy < 0 || iy >= in->h || ix < 0 || ix >= in->w)
                fill_run(dst + kx * C, fill, C);
            else
                flex__patch_copy_run(dst + kx * C, src + ix * C, C);
        }
    }
    return patch;
}

/* int8 convolution for AArch64 with the dot-product extension: a pointwise one (1x1,
 * stride 1, unpadded, one group), whose filter is a fully connected layer's over every
 * pixel's channels, runs by SDOT (a64_dot.h); other convolutions, and more than
 * FLEX_A64_ROW_MAX input channels, use the reference kernel (ref/ref.h). */
#include "../../ref/ref.h"
#include "a64_dot.h"

FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    int32_t k;
    FLEX__S8_CONV_PATCH(k, FLEX_A64_ROW_MAX);
    if (win->kernel_h != 1 || win->kernel_w != 1 || win->stride_h != 1 || win->stride_w != 1 ||
        win->pad_top || win->pad_bottom || win->pad_left || win->pad_right)
        return flex__ref_s8_conv2d(FLEX__ARGS_s8_conv2d);
    flex__a64_s8_rows(out_dims->n * out_dims->h * out_dims->w, k, input, out_dims->c, filter,
                      bias, multiplier, shift, 1, q, output);
    return FLEX_OK;
}

/* What the int8 and float32 transposed convolutions share: their argument checks and the
 * gather rule. Both compute each output from the input pixels whose windows cover it, so
 * they need no scratch buffer; they take the taps from the last to the first, the order in
 * which TFLM's scatter adds them. */
#ifndef FLEX_TRANSPOSE_CONV_H
#define FLEX_TRANSPOSE_CONV_H

#include "../common/internal.h"

/* The input index that output index o reads through tap k, or -1 when none does. */
FLEX_INLINE int32_t flex__tconv_source(int32_t o, int32_t k, int32_t stride, int32_t pad,
                                       int32_t size) {
    int32_t t = o + pad - k;
    if (t < 0)
        return -1;
    if (stride != 1) {
        if (t % stride)
            return -1;
        t /= stride;
    }
    return t < size ? t : -1;
}

/* The loop nest of both kernels over the checked arguments, outputs in order: each output
 * (b, oy, ox, oc) sums, in an accumulator of type T from 0, MAC(acc, x, w) for the input
 * channels x of each input pixel that a tap reads, taps from the last to the first, with
 * w the tap's filter weights; then acc += (T)bias[oc] (unless bias is NULL), and
 * *output++ = STORE(acc, oc). */
#define FLEX__TCONV_LOOP(in, input, filter, bias, win, out, output, T, MAC, STORE)         \
    do {                                                                                   \
        int32_t b_, oy_, ox_, oc_, ky_, kx_, ic_, iy_, ix_;                                \
        for (b_ = 0; b_ < (out)->n; b_++)                                                  \
            for (oy_ = 0; oy_ < (out)->h; oy_++)                                           \
                for (ox_ = 0; ox_ < (out)->w; ox_++)                                       \
                    for (oc_ = 0; oc_ < (out)->c; oc_++) {                                 \
                        T acc_ = 0;                                                        \
                        for (ky_ = (win)->kernel_h - 1; ky_ >= 0; ky_--) {                 \
                            iy_ = flex__tconv_source(oy_, ky_, (win)->stride_h,            \
                                                     (win)->pad_top, (in)->h);             \
                            if (iy_ < 0)                                                   \
                                continue;                                                  \
                            for (kx_ = (win)->kernel_w - 1; kx_ >= 0; kx_--) {             \
                                int32_t i0_, f0_;                                          \
                                ix_ = flex__tconv_source(ox_, kx_, (win)->stride_w,        \
                                                         (win)->pad_left, (in)->w);        \
                                if (ix_ < 0)                                               \
                                    continue;                                              \
                                i0_ = ((b_ * (in)->h + iy_) * (in)->w + ix_) * (in)->c;    \
                                f0_ = ((oc_ * (win)->kernel_h + ky_) * (win)->kernel_w +   \
                                       kx_) * (in)->c;                                     \
                                for (ic_ = 0; ic_ < (in)->c; ic_++)                        \
                                    MAC(acc_, (input)[i0_ + ic_], (filter)[f0_ + ic_]);    \
                            }                                                              \
                        }                                                                  \
                        if (bias)                                                          \
                            acc_ += (T)(bias)[oc_];                                        \
                        *(output)++ = STORE(acc_, oc_);                                    \
                    }                                                                      \
    } while (0)

/* Pointers, window ranges, shapes and buffer lengths (elements) of either kernel. */
FLEX_INLINE flex_status flex__tconv_check(const flex_dims4 *in, const void *input,
                                          size_t input_len, const void *filter,
                                          size_t filter_len, const void *bias, size_t bias_len,
                                          const flex_transpose_window *win,
                                          const flex_dims4 *out, const void *output,
                                          size_t output_len) {
    int32_t count;
    if (!in || !out || !win || !input || !filter || !output)
        return FLEX_E_NULL;
    if (win->kernel_h < 1 || win->kernel_h > FLEX_MAX_KERNEL || win->kernel_w < 1 ||
        win->kernel_w > FLEX_MAX_KERNEL || win->stride_h < 1 || win->stride_h > FLEX_MAX_STEP ||
        win->stride_w < 1 || win->stride_w > FLEX_MAX_STEP || win->pad_top < 0 ||
        win->pad_top > FLEX_MAX_STEP || win->pad_left < 0 || win->pad_left > FLEX_MAX_STEP)
        return FLEX_E_STRIDE;
    if (in->n != out->n || in->h > FLEX_MAX_SPATIAL || in->w > FLEX_MAX_SPATIAL ||
        out->h > FLEX_MAX_SPATIAL || out->w > FLEX_MAX_SPATIAL)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__count(in, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    FLEX_TRY(flex__count(out, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(flex__check_bias(bias, bias_len, out->c));
    FLEX_TRY(flex__product(out->c, win->kernel_h, &count));
    FLEX_TRY(flex__product(count, win->kernel_w, &count));
    FLEX_TRY(flex__product(count, in->c, &count));
    return flex__check_len(filter_len, count);
}

#endif

/* Argument validation: every kernel checks its arguments here before touching memory. */
#include "validate_inline.h"

flex_status flex__product(int32_t a, int32_t b, int32_t *out) {
    return flex__product_inline(a, b, out);
}

flex_status flex__count(const flex_dims4 *d, int32_t *count) {
    int32_t c;
    if (!d)
        return FLEX_E_NULL;
    if (d->n < 1 || d->h < 1 || d->w < 1 || d->c < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(d->n, d->h, &c));
    FLEX_TRY(flex__product(c, d->w, &c));
    FLEX_TRY(flex__product(c, d->c, &c));
    *count = c;
    return FLEX_OK;
}

flex_status flex__check_len(size_t len, int32_t count) {
    return flex__check_len_inline(len, count);
}

flex_status flex__check_window(const flex_window *w) {
    if (!w)
        return FLEX_E_NULL;
    if (!flex__in_range(w->kernel_h, 1, FLEX_MAX_KERNEL) ||
        !flex__in_range(w->kernel_w, 1, FLEX_MAX_KERNEL) ||
        !flex__in_range(w->dilation_h, 1, FLEX_MAX_KERNEL) ||
        !flex__in_range(w->dilation_w, 1, FLEX_MAX_KERNEL) ||
        !flex__in_range(w->stride_h, 1, FLEX_MAX_STEP) ||
        !flex__in_range(w->stride_w, 1, FLEX_MAX_STEP) ||
        !flex__in_range(w->pad_top, 0, FLEX_MAX_STEP) ||
        !flex__in_range(w->pad_bottom, 0, FLEX_MAX_STEP) ||
        !flex__in_range(w->pad_left, 0, FLEX_MAX_STEP) ||
        !flex__in_range(w->pad_right, 0, FLEX_MAX_STEP))
        return FLEX_E_STRIDE;
    return FLEX_OK;
}

flex_status flex__check_extent(int32_t in, int32_t out, int32_t kernel, int32_t stride,
                               int32_t dilation, int32_t pad_before, int32_t pad_after,
                               int allow_ceil) {
    int32_t eff, span, floor_out;
    if (in > FLEX_MAX_SPATIAL || out > FLEX_MAX_SPATIAL)
        return FLEX_E_SHAPE;
    eff = dilation * (kernel - 1) + 1;
    span = in + pad_before + pad_after;
    if (span < eff)
        return FLEX_E_STRIDE;
    floor_out = (span - eff) / stride + 1;
    if (out == floor_out)
        return FLEX_OK;
    /* ceil mode: one more window, provided it starts inside the input or leading pad. */
    if (allow_ceil && out == floor_out + 1 && (span - eff) % stride != 0 &&
        (out - 1) * stride < in + pad_before)
        return FLEX_OK;
    return FLEX_E_SHAPE;
}

flex_status flex__check_spatial(const flex_dims4 *in, const flex_window *w,
                                const flex_dims4 *out, int allow_ceil) {
    if (!in || !out)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_window(w));
    if (in->n != out->n)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__check_extent(in->h, out->h, w->kernel_h, w->stride_h, w->dilation_h,
                                w->pad_top, w->pad_bottom, allow_ceil));
    return flex__check_extent(in->w, out->w, w->kernel_w, w->stride_w, w->dilation_w,
                              w->pad_left, w->pad_right, allow_ceil);
}

flex_status flex__check_shift(int32_t shift) {
    return flex__in_range(shift, -31, 31) ? FLEX_OK : FLEX_E_PARAM;
}

flex_status flex__check_shifts(const int32_t *shift, int32_t n) {
    return flex__check_shifts_inline(shift, n);
}

flex_status flex__check_act(int32_t act_min, int32_t act_max) {
    return flex__check_act_inline(act_min, act_max);
}

flex_status flex__check_zero_point(int32_t zp) {
    return flex__check_zero_point_inline(zp);
}

flex_status flex__check_s8_quant(const flex_s8_quant *q) {
    return flex__check_s8_quant_inline(q);
}

flex_status flex__check_bias(const void *bias, size_t bias_len, int32_t channels) {
    return flex__check_bias_inline(bias, bias_len, channels);
}

flex_status flex__check_io(const flex_dims4 *in_dims, const void *x, size_t x_len,
                           const flex_window *win, const flex_dims4 *out_dims, const void *y,
                           size_t y_len, int allow_ceil) {
    int32_t count;
    if (!x || !y)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &count));
    FLEX_TRY(flex__check_len(x_len, count));
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(y_len, count));
    return flex__check_spatial(in_dims, win, out_dims, allow_ceil);
}

flex_status flex__check_fc(int32_t batches, int32_t in_features, int32_t out_features,
                           const void *input, size_t input_len, const void *filter,
                           size_t filter_len, const void *output, size_t output_len) {
    return flex__check_fc_inline(batches, in_features, out_features, input, input_len, filter,
                                 filter_len, output, output_len);
}

const char *flex_status_str(flex_status status) {
    switch (status) {
    case FLEX_OK: return "ok";
    case FLEX_E_NULL: return "null pointer";
    case FLEX_E_SHAPE: return "bad shape";
    case FLEX_E_STRIDE: return "bad window (kernel, stride, dilation or padding)";
    case FLEX_E_SIZE: return "buffer length does not match shape";
    case FLEX_E_PARAM: return "parameter out of range";
    case FLEX_E_OVERFLOW: return "element count overflows int32";
    case FLEX_E_CORE: return "the second core did not finish its part in time";
    case FLEX_E_STOPPED: return "interrupted";
    default: return "unknown status";
    }
}

int32_t flex_version(void) {
    return FLEX_VERSION;
}

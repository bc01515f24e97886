/* Layout kernels for any element size: constant PAD and CONCATENATION. */
#include "../common/internal.h"

static void copy_bytes(uint8_t *dst, const uint8_t *src, int32_t n) {
    int32_t i;
    for (i = 0; i < n; i++)
        dst[i] = src[i];
}

static void fill_elems(uint8_t *dst, const uint8_t *value, int32_t elem_size, int32_t count) {
    int32_t i, j;
    for (i = 0; i < count; i++)
        for (j = 0; j < elem_size; j++)
            *dst++ = value[j];
}

static int valid_elem_size(int32_t elem_size) {
    return elem_size == 1 || elem_size == 2 || elem_size == 4;
}

flex_status flex_pad(int32_t elem_size, const flex_dims4 *in_dims, const void *input,
                     size_t input_len, const int32_t *pads, const void *pad_value,
                     void *output, size_t output_len) {
    flex_dims4 out;
    int32_t in_count, out_count, n, h, w, i;
    const uint8_t *src = (const uint8_t *)input;
    uint8_t *dst = (uint8_t *)output;
    if (!input || !pads || !pad_value || !output)
        return FLEX_E_NULL;
    if (!valid_elem_size(elem_size))
        return FLEX_E_PARAM;
    FLEX_TRY(flex__count(in_dims, &in_count));
    FLEX_TRY(flex__check_len(input_len, in_count));
    for (i = 0; i < 8; i++)
        if (pads[i] < 0 || pads[i] > FLEX_MAX_STEP)
            return FLEX_E_STRIDE;
    if (in_dims->n > INT32_MAX - 2 * FLEX_MAX_STEP || in_dims->h > INT32_MAX - 2 * FLEX_MAX_STEP ||
        in_dims->w > INT32_MAX - 2 * FLEX_MAX_STEP || in_dims->c > INT32_MAX - 2 * FLEX_MAX_STEP)
        return FLEX_E_OVERFLOW;
    out.n = in_dims->n + pads[0] + pads[1];
    out.h = in_dims->h + pads[2] + pads[3];
    out.w = in_dims->w + pads[4] + pads[5];
    out.c = in_dims->c + pads[6] + pads[7];
    FLEX_TRY(flex__count(&out, &out_count));
    FLEX_TRY(flex__check_len(output_len, out_count));
    if ((int64_t)out_count * elem_size > INT32_MAX)
        return FLEX_E_OVERFLOW;
    for (n = 0; n < out.n; n++)
        for (h = 0; h < out.h; h++)
            for (w = 0; w < out.w; w++) {
                const int32_t in_n = n - pads[0], in_h = h - pads[2], in_w = w - pads[4];
                if (in_n < 0 || in_n >= in_dims->n || in_h < 0 || in_h >= in_dims->h ||
                    in_w < 0 || in_w >= in_dims->w) {
                    fill_elems(dst, (const uint8_t *)pad_value, elem_size, out.c);
                } else {
                    const int32_t row = ((in_n * in_dims->h + in_h) * in_dims->w + in_w);
                    fill_elems(dst, (const uint8_t *)pad_value, elem_size, pads[6]);
                    copy_bytes(dst + pads[6] * elem_size, src + row * in_dims->c * elem_size,
                               in_dims->c * elem_size);
                    fill_elems(dst + (pads[6] + in_dims->c) * elem_size,
                               (const uint8_t *)pad_value, elem_size, pads[7]);
                }
                dst += out.c * elem_size;
            }
    return FLEX_OK;
}

flex_status flex_concat(int32_t elem_size, int32_t n_inputs, const void *const *inputs,
                        const int32_t *axis_sizes, int32_t outer, int32_t inner,
                        void *output, size_t output_len) {
    int64_t total = 0;
    int32_t i, o, count;
    uint8_t *dst = (uint8_t *)output;
    if (!inputs || !axis_sizes || !output)
        return FLEX_E_NULL;
    if (!valid_elem_size(elem_size))
        return FLEX_E_PARAM;
    if (n_inputs < 1 || outer < 1 || inner < 1)
        return FLEX_E_SHAPE;
    for (i = 0; i < n_inputs; i++) {
        if (!inputs[i])
            return FLEX_E_NULL;
        if (axis_sizes[i] < 1)
            return FLEX_E_SHAPE;
        total += axis_sizes[i];
        if (total > INT32_MAX)
            return FLEX_E_OVERFLOW;
    }
    FLEX_TRY(flex__product(outer, (int32_t)total, &count));
    FLEX_TRY(flex__product(count, inner, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    if ((int64_t)count * elem_size > INT32_MAX)
        return FLEX_E_OVERFLOW;
    for (o = 0; o < outer; o++)
        for (i = 0; i < n_inputs; i++) {
            const int32_t chunk = axis_sizes[i] * inner * elem_size;
            copy_bytes(dst, (const uint8_t *)inputs[i] + o * chunk, chunk);
            dst += chunk;
        }
    return FLEX_OK;
}

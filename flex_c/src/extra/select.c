/* The selection of the optional op `select` (burn.graph.logic), int8, int16 or float32
 * elements moved as bytes. */
#include "../common/internal.h"

flex_status flex_select(int32_t elem_size, size_t n, const int8_t *cond, size_t cond_len,
                        const void *x, size_t x_len, const void *y, size_t y_len,
                        void *output) {
    const uint8_t *px = (const uint8_t *)x, *py = (const uint8_t *)y;
    uint8_t *out = (uint8_t *)output;
    size_t i, c = 0, k = 0, m = 0, e;
    if (!cond || !x || !y || !output)
        return FLEX_E_NULL;
    if (elem_size != 1 && elem_size != 2 && elem_size != 4)
        return FLEX_E_PARAM;
    if (n < 1 || cond_len < 1 || x_len < 1 || y_len < 1 || n % cond_len || n % x_len ||
        n % y_len)
        return FLEX_E_SHAPE;
    for (i = 0; i < n; i++) {
        const uint8_t *src = cond[c] ? px + k * (size_t)elem_size : py + m * (size_t)elem_size;
        for (e = 0; e < (size_t)elem_size; e++)
            out[i * (size_t)elem_size + e] = src[e];
        c = c + 1 == cond_len ? 0 : c + 1;
        k = k + 1 == x_len ? 0 : k + 1;
        m = m + 1 == y_len ? 0 : m + 1;
    }
    return FLEX_OK;
}

/* Rows picked by int32 positions given at run time (the optional op `gather`,
 * burn.graph.gather: TFLite GATHER, EMBEDDING_LOOKUP), int8 or float32 elements moved as
 * bytes. */
#include "../common/internal.h"

flex_status flex_gather(int32_t elem_size, int32_t outer, int32_t size, int32_t inner,
                        int32_t count, const void *params, size_t params_len,
                        const int32_t *positions, size_t positions_len, void *output,
                        size_t output_len) {
    const uint8_t *src = (const uint8_t *)params;
    uint8_t *out = (uint8_t *)output;
    int32_t total, a, i;
    size_t row, e;
    if (!params || !positions || !output)
        return FLEX_E_NULL;
    if (elem_size != 1 && elem_size != 4)
        return FLEX_E_PARAM;
    if (outer < 1 || size < 1 || inner < 1 || count < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__check_len(positions_len, count));
    FLEX_TRY(flex__product(outer, size, &total));
    FLEX_TRY(flex__product(total, inner, &total));
    FLEX_TRY(flex__check_len(params_len, total));
    FLEX_TRY(flex__product(outer, count, &total));
    FLEX_TRY(flex__product(total, inner, &total));
    FLEX_TRY(flex__check_len(output_len, total));
    for (i = 0; i < count; i++)
        if (positions[i] < 0 || positions[i] >= size)
            return FLEX_E_PARAM;
    row = (size_t)inner * (size_t)elem_size;
    for (a = 0; a < outer; a++)
        for (i = 0; i < count; i++) {
            const uint8_t *from = src + ((size_t)a * (size_t)size + (size_t)positions[i]) * row;
            for (e = 0; e < row; e++)
                *out++ = from[e];
        }
    return FLEX_OK;
}

/* int8 elementwise ops as a 256-entry table lookup (the table is made on the host). */
#include "../common/internal.h"

flex_status flex_s8_lookup(size_t n, const int8_t *input, const int8_t *table,
                           int8_t *output) {
    size_t i;
    if (!input || !table || !output)
        return FLEX_E_NULL;
    for (i = 0; i < n; i++)
        output[i] = table[(uint8_t)input[i]];
    return FLEX_OK;
}

/* int8 fully connected for AArch64 with the dot-product extension: every batch's row times
 * the filter by SDOT (a64_dot.h). A non-zero filter offset and rows longer than
 * FLEX_A64_ROW_MAX use the reference kernel (ref/ref.h). */
#include "../../ref/ref.h"
#include "a64_dot.h"

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
    if (filter_offset != 0 || in_features > FLEX_A64_ROW_MAX)
        return flex__ref_s8_fully_connected(FLEX__ARGS_s8_fully_connected);
    flex__a64_s8_rows(batches, in_features, input, out_features, filter, bias, multiplier,
                      shift, quant_len != 1, q, output);
    return FLEX_OK;
}

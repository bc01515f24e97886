/* int8 fully connected on Helium (MVE): the output rows four at a time over the input row
 * (mve_dot.h: per 16 elements one load of the input and, per output, a load of its weights
 * and a VMLAVA), the input offset folded into each output's bias and every requantization
 * made from records, OUT_BLOCK outputs at a time. An output row that may lie over its input
 * row (the .bst arena's in-place plan) is computed from a copy of that input. A non-zero
 * filter offset and rows longer than ROW_MAX use the reference kernel (ref/ref.h). Stack:
 * about 4.5 KB. */
#include "../../ref/ref.h"
#include "../portable/patch.h"
#include "mve_dot.h"

#define ROW_MAX 1280 /* input features */
#define OUT_BLOCK 256

/* The records of outputs [o0, o0 + n). */
static void block_records(int32_t o0, int32_t n, int32_t k, const int8_t *filter,
                          const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                          size_t quant_len, const flex_s8_quant *q, int32_t *rec) {
    const int per_tensor = quant_len == 1;
    flex__mve_records(filter + o0 * k, k, n, bias ? bias + o0 : 0, q->input_offset,
                      multiplier + (per_tensor ? 0 : o0), shift + (per_tensor ? 0 : o0),
                      per_tensor, rec);
}

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    int8_t row[ROW_MAX];
    int32_t rec[FLEX_MVE_RECORD_WORDS(OUT_BLOCK)];
    int32_t b, o0, n;
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
    if (filter_offset != 0 || in_features > ROW_MAX)
        return flex__ref_s8_fully_connected(FLEX__ARGS_s8_fully_connected);
    const int8_t *in_end = input + batches * in_features;
    const int8_t *out_end = output + batches * out_features;
    if (out_end <= input || in_end <= output) { /* apart: each block's records made once */
        for (o0 = 0; o0 < out_features; o0 += n) {
            n = out_features - o0 < OUT_BLOCK ? out_features - o0 : OUT_BLOCK;
            block_records(o0, n, in_features, filter, bias, multiplier, shift, quant_len, q,
                          rec);
            for (b = 0; b < batches; b++)
                flex__mve_rows(input + b * in_features, in_features, filter + o0 * in_features,
                               n, rec, q, output + b * out_features + o0);
        }
        return FLEX_OK;
    }
    for (b = 0; b < batches; b++) {
        flex__patch_copy_run(row, input + b * in_features, in_features);
        for (o0 = 0; o0 < out_features; o0 += n) {
            n = out_features - o0 < OUT_BLOCK ? out_features - o0 : OUT_BLOCK;
            block_records(o0, n, in_features, filter, bias, multiplier, shift, quant_len, q,
                          rec);
            flex__mve_rows(row, in_features, filter + o0 * in_features, n, rec, q,
                           output + b * out_features + o0);
        }
    }
    return FLEX_OK;
}

/* Cortex-M0+ int8 fully connected: blocks of output rows through flex__m0_dot_rows, then
 * m0_requant.h. The input offset enters as input_offset * sum(row), folded with the bias;
 * callers that fold it into the bias at prepare time (input offset 0) skip that pass. A
 * non-zero filter offset uses the reference kernel (ref/ref.h). An output that overlaps its
 * input takes the rows one at a time (each row's blocks set up again), so that no row is
 * overwritten before every block has read it. */
#include "../../ref/ref.h"
#include "m0_dot.h"
#include "m0_requant.h"

#define OUT_BLOCK 32

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    int all_fast;
    int32_t acc[OUT_BLOCK];
    flex__m0_rq rq[OUT_BLOCK];
    int32_t b, b0, rows, o0, nb;
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
    if (filter_offset != 0)
        return flex__ref_s8_fully_connected(FLEX__ARGS_s8_fully_connected);
    /* Output over its input (an in-place arena): every block of a row before the next row */
    rows = out_features > OUT_BLOCK &&
                   flex__s8_overlap(input, (size_t)batches * in_features, output,
                                    (size_t)batches * out_features)
               ? 1
               : batches;
    for (b0 = 0; b0 < batches; b0 += rows)
        for (o0 = 0; o0 < out_features; o0 += OUT_BLOCK) {
            const int8_t *w_block = filter + o0 * in_features;
            nb = out_features - o0 < OUT_BLOCK ? out_features - o0 : OUT_BLOCK;
            all_fast = flex__m0_rq_block(rq, nb, w_block, in_features, 0, bias ? bias + o0 : 0,
                                         multiplier + (quant_len == 1 ? 0 : o0),
                                         shift + (quant_len == 1 ? 0 : o0),
                                         quant_len == 1 ? 0 : 1, q);
            for (b = b0; b < b0 + rows; b++) {
                const int8_t *x = input + b * in_features;
                int8_t *out = output + b * out_features + o0;
                flex__m0_dot_rows(x + in_features, w_block + in_features, in_features, nb,
                                  acc);
                flex__m0_requant_block(acc, rq, nb, all_fast, out, q);
            }
        }
    return FLEX_OK;
}

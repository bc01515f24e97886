/* int8 fully connected for RISC-V (rv32imc): each input row is widened once with the input
 * offset, then every output row's dot product runs over it, four rows at a time
 * (rv_dot.h), each output requantized as the reference does. The row is widened before any
 * of its outputs is written, so an output over its input needs no other order. A non-zero
 * filter offset and rows longer than ROW_MAX use the reference kernel (ref/ref.h). Stack:
  * about 2.7 KB. */
#include "../../ref/ref.h"
#include "rv_dot.h"
#include "rv_requant.h"

#define ROW_MAX 1280 /* input features */
#define OUT_BLOCK 32

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    int16_t xq[ROW_MAX];
    int32_t acc[OUT_BLOCK];
    flex__rv_rq rq; /* one multiplier and shift: worked out once; else per output */
    int32_t b, o0, nb, r;
    const int32_t per_channel = quant_len == 1 ? 0 : 1;
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
    if (filter_offset != 0 || in_features > ROW_MAX)
        return flex__ref_s8_fully_connected(FLEX__ARGS_s8_fully_connected);
    flex__rv_rq_init(&rq, 0, multiplier[0], shift[0]);
    for (b = 0; b < batches; b++) {
        int8_t *out = output + b * out_features;
        flex__rv_widen(input + b * in_features, in_features, q->input_offset, 1, xq);
        for (o0 = 0; o0 < out_features; o0 += nb) {
            nb = out_features - o0 < OUT_BLOCK ? out_features - o0 : OUT_BLOCK;
            flex__rv_dot_rows(xq, 1, in_features, filter + o0 * in_features, nb, acc);
            for (r = 0; r < nb; r++) {
                const int32_t o = o0 + r;
                if (per_channel)
                    flex__rv_rq_init(&rq, 0, multiplier[o], shift[o]);
                out[o] = flex__rv_rq_apply(&rq, FLEX_WADD(acc[r], bias ? bias[o] : 0), q);
            }
        }
    }
    return FLEX_OK;
}

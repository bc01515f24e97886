/* int8 fully connected on the Arm DSP extension: each input row is widened once with the
 * input offset (dsp_dot.h), then every output row's dot product runs over it, four rows at
 * a time, requantized (dsp_requant.h): through one record with the biases beside the sums
 * when every output shares the multiplier and shift (per tensor), else a record per
 * channel. A layer of at most OUT_BLOCK outputs whose input offset is 0 (the host folds
 * the input zero point into the biases) and whose rows are whole groups of four reads its
 * int8 input rows as they are, no widening. Every dot product of a row is taken before any
 * of its outputs is written, so an output over its input needs no other order. A non-zero
 * filter offset and rows longer than ROW_MAX use the reference kernel (ref/ref.h). Stack:
 * about 3.4 KB. */
#include "../../ref/ref.h"
#include "dsp_dot.h"
#include "dsp_requant.h"

#define ROW_MAX 1280 /* input features */
#define XQ_WORDS FLEX_DSP_WORDS(ROW_MAX)
#define OUT_BLOCK 32

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    int32_t xq[XQ_WORDS], acc[OUT_BLOCK];
    flex__dsp_rq rq[OUT_BLOCK];
    int32_t b, o0, nb, r;
    const int32_t per_channel = quant_len == 1 ? 0 : 1;
    FLEX_TRY(flex__s8_fc_checks(FLEX__ARGS_s8_fully_connected));
    if (filter_offset != 0 || in_features > ROW_MAX)
        return flex__ref_s8_fully_connected(FLEX__ARGS_s8_fully_connected);
    const int32_t one = bias && flex__dsp_uniform(multiplier, shift, quant_len) &&
                        flex__dsp_rq_set(rq, 0, multiplier[0], shift[0], q->output_offset);
    const int32_t narrow = q->input_offset == 0 && (in_features & 3) == 0 &&
                           out_features <= OUT_BLOCK;
    if (narrow && one) { /* the common case: per tensor, the input offset folded away */
        for (b = 0; b < batches; b++) {
            flex__dsp_dot_rows_s8(input + b * in_features, in_features, filter, out_features,
                                  acc);
            flex__dsp_rq_apply_bias(rq, acc, out_features, bias, q,
                                    output + b * out_features);
        }
        return FLEX_OK;
    }
    for (b = 0; b < batches; b++) {
        const int8_t *x = input + b * in_features;
        int8_t *out = output + b * out_features;
        if (!narrow)
            flex__dsp_widen(x, in_features, q->input_offset, 1, 0, xq);
        for (o0 = 0; o0 < out_features; o0 += nb) {
            nb = out_features - o0 < OUT_BLOCK ? out_features - o0 : OUT_BLOCK;
            if (narrow)
                flex__dsp_dot_rows_s8(x, in_features, filter, nb, acc);
            else
                flex__dsp_dot_rows(xq, in_features, filter + o0 * in_features, nb, acc);
            if (one) {
                flex__dsp_rq_apply_bias(rq, acc, nb, bias + o0, q, out + o0);
                continue;
            }
            if (per_channel && flex__dsp_rq_block(rq, bias ? bias + o0 : 0, multiplier + o0,
                                                  shift + o0, nb, q->output_offset)) {
                flex__dsp_rq_apply(rq, acc, nb, 1, q, out + o0, 0);
                continue;
            }
            for (r = 0; r < nb; r++) {
                const int32_t o = o0 + r;
                out[o] = flex__s8_requant(FLEX_WADD(acc[r], bias ? bias[o] : 0),
                                          multiplier[per_channel * o], shift[per_channel * o],
                                          q);
            }
        }
    }
    return FLEX_OK;
}

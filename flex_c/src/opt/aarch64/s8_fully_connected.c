/* int8 fully connected for AArch64 with the dot-product extension (SDOT): each input row is
 * copied once (so an output over its input needs no other order), then four output rows at
 * a time take their dot products over it, sixteen products per SDOT (four per lane, exact
 * in int32). The input offset, which may not fit int8, is folded afterwards:
 * sum(w * (x + offset)) = sum(w * x) + offset * sum(w), in the wrapping 32-bit arithmetic
 * of the reference's accumulator; fewer than sixteen trailing inputs run in scalar code.
 * Each output is requantized by the reference's flex__s8_requant. A non-zero filter offset
 * and rows longer than ROW_MAX use the reference kernel (ref/ref.h). Stack: about 4 KB. */
#include <arm_neon.h>

#include "../../ref/ref.h"

#define ROW_MAX 4096 /* input features */
#define ROWS 4       /* output rows per pass over the input row */

/* acc[r] = sum_{i<k} w[r * k + i] * x[i] for r < rows (at most ROWS). */
static void dot_rows(const int8_t *x, int32_t k, const int8_t *w, int32_t rows,
                     uint32_t *acc) {
    int32x4_t dot[ROWS];
    int32_t r, i, j;
    for (r = 0; r < ROWS; r++)
        dot[r] = vdupq_n_s32(0);
    for (i = 0; i + 16 <= k; i += 16) {
        const int8x16_t xv = vld1q_s8(x + i);
        for (r = 0; r < rows; r++)
            dot[r] = vdotq_s32(dot[r], vld1q_s8(w + r * k + i), xv);
    }
    for (r = 0; r < rows; r++) {
        uint32_t a = (uint32_t)vaddvq_s32(dot[r]);
        for (j = i; j < k; j++)
            a += (uint32_t)(w[r * k + j] * x[j]);
        acc[r] = a;
    }
}

/* sum_{i<k} w[i]: an SDOT with ones. */
static int32_t row_sum(const int8_t *w, int32_t k) {
    const int8x16_t ones = vdupq_n_s8(1);
    int32x4_t sum = vdupq_n_s32(0);
    int32_t i, s;
    for (i = 0; i + 16 <= k; i += 16)
        sum = vdotq_s32(sum, vld1q_s8(w + i), ones);
    s = vaddvq_s32(sum);
    for (; i < k; i++)
        s += w[i];
    return s;
}

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    int8_t xs[ROW_MAX];
    uint32_t acc[ROWS];
    int32_t b, i, o, r, nb;
    const int32_t offset = q->input_offset;
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
    if (filter_offset != 0 || in_features > ROW_MAX)
        return flex__ref_s8_fully_connected(FLEX__ARGS_s8_fully_connected);
    for (b = 0; b < batches; b++) {
        int8_t *out = output + b * out_features;
        for (i = 0; i < in_features; i++)
            xs[i] = input[b * in_features + i];
        for (o = 0; o < out_features; o += nb) {
            const int8_t *w = filter + o * in_features;
            nb = out_features - o < ROWS ? out_features - o : ROWS;
            dot_rows(xs, in_features, w, nb, acc);
            for (r = 0; r < nb; r++) {
                const int32_t qi = quant_len == 1 ? 0 : o + r;
                uint32_t a = acc[r];
                if (offset)
                    a += (uint32_t)offset * (uint32_t)row_sum(w + r * in_features, in_features);
                if (bias)
                    a += (uint32_t)bias[o + r];
                out[o + r] = flex__s8_requant((int32_t)a, multiplier[qi], shift[qi], q);
            }
        }
    }
    return FLEX_OK;
}

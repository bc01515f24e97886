/* AArch64 int8 matrix rows by SDOT (a64_dot.h): each input row is copied once, then four
 * filter rows at a time take their dot products over it, sixteen products per SDOT (four
 * per lane, exact in int32). The input offset, which may not fit int8, is folded
 * afterwards: sum(w * (x + offset)) = sum(w * x) + offset * sum(w), in the wrapping 32-bit
 * arithmetic of the reference's accumulator; fewer than sixteen trailing inputs run in
 * scalar code. Stack: about 4 KB. */
#include <arm_neon.h>

#include "a64_dot.h"

#define ROWS 4 /* filter rows per pass over the input row */

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

void flex__a64_s8_rows(int32_t rows, int32_t k, const int8_t *input, int32_t n,
                       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
                       const int32_t *shift, int32_t per_channel, const flex_s8_quant *q,
                       int8_t *output) {
    int8_t xs[FLEX_A64_ROW_MAX];
    uint32_t acc[ROWS];
    int32_t b, i, o, r, nb;
    const int32_t offset = q->input_offset;
    for (b = 0; b < rows; b++) {
        int8_t *out = output + b * n;
        for (i = 0; i < k; i++)
            xs[i] = input[b * k + i];
        for (o = 0; o < n; o += nb) {
            const int8_t *w = filter + o * k;
            nb = n - o < ROWS ? n - o : ROWS;
            dot_rows(xs, k, w, nb, acc);
            for (r = 0; r < nb; r++) {
                const int32_t qi = per_channel ? o + r : 0;
                uint32_t a = acc[r];
                if (offset)
                    a += (uint32_t)offset * (uint32_t)row_sum(w + r * k, k);
                if (bias)
                    a += (uint32_t)bias[o + r];
                out[o + r] = flex__s8_requant((int32_t)a, multiplier[qi], shift[qi], q);
            }
        }
    }
}

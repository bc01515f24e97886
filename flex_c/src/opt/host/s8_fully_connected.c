/* Host (x86-64 / aarch64) int8 fully connected, bit-identical to the reference kernel and
 * written for the vectorizer (cloned for AVX2 on x86-64 GCC builds, FLEX_CLONES).
 *
 * TFLM sums (w + filter_offset) * (x + input_offset) in a wrapping int32 accumulator, which
 * equals, modulo 2^32, sum(w * x) + input_offset * sum(w) + filter_offset * sum(x) +
 * n * filter_offset * input_offset. The products w * x of int8 values are summed in int32
 * over chunks of CHUNK taps (|sum| <= CHUNK * 2^14 < 2^31), four weight rows per pass over
 * the input row; the offset terms are added once per output (the runtime folds the input
 * offset into the bias, so they are usually 0). Outputs are requantized in blocks
 * (s8_requant.h). A batch row's outputs are written after its whole input row is read, the
 * order the .bst arena's in-place plan assumes (docs/bst-format.md). */
#include "../../common/s8_checks.h"
#include "s8_requant.h"

#define CHUNK 65536
#define BLOCK 256 /* outputs requantized at a time */

/* sum(w[i] * x[i]) over n taps, wrapping like TFLM's accumulator; n <= CHUNK per piece. */
FLEX_INLINE int32_t dot(const int8_t *restrict w, const int8_t *restrict x, int32_t n) {
    int32_t s = 0, i;
    for (i = 0; i < n; i++)
        s += w[i] * x[i];
    return s;
}

FLEX_INLINE int32_t sum(const int8_t *restrict v, int32_t n) {
    int32_t s = 0, i;
    for (i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* acc[j] += w[j] . x for `count` rows of n (<= CHUNK) taps at `stride`, four at a time. */
FLEX_INLINE void dot_rows(const int8_t *restrict w, int32_t stride,
                          const int8_t *restrict x, int32_t n, int32_t count,
                          int32_t *restrict acc) {
    int32_t j = 0, i;
    for (; j + 4 <= count; j += 4) {
        const int8_t *restrict w0 = w + j * stride, *restrict w1 = w0 + stride;
        const int8_t *restrict w2 = w1 + stride, *restrict w3 = w2 + stride;
        int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (i = 0; i < n; i++) {
            s0 += w0[i] * x[i];
            s1 += w1[i] * x[i];
            s2 += w2[i] * x[i];
            s3 += w3[i] * x[i];
        }
        acc[j] = FLEX_WADD(acc[j], s0);
        acc[j + 1] = FLEX_WADD(acc[j + 1], s1);
        acc[j + 2] = FLEX_WADD(acc[j + 2], s2);
        acc[j + 3] = FLEX_WADD(acc[j + 3], s3);
    }
    for (; j < count; j++)
        acc[j] = FLEX_WADD(acc[j], dot(w + j * stride, x, n));
}

FLEX_CLONES
static void fc_rows(int32_t batches, int32_t in_f, int32_t out_f, const int8_t *input,
                    const int8_t *filter, int32_t filter_offset, const int32_t *bias,
                    const int32_t *multiplier, const int32_t *shift, int32_t per_channel,
                    const flex_s8_quant *q, int8_t *output) {
    int32_t acc[BLOCK], mult[BLOCK], left[BLOCK], right[BLOCK];
    const int32_t io = q->input_offset;
    int32_t b, o0, i0, j;
    for (b = 0; b < batches; b++) {
        const int8_t *x = input + b * in_f;
        int32_t x_term = 0; /* filter_offset * (sum(x) + n * input_offset) */
        if (filter_offset) {
            for (i0 = 0; i0 < in_f; i0 += CHUNK)
                x_term = FLEX_WADD(x_term, sum(x + i0, in_f - i0 < CHUNK ? in_f - i0 : CHUNK));
            x_term = FLEX_WMUL(filter_offset, FLEX_WADD(x_term, FLEX_WMUL(in_f, io)));
        }
        for (o0 = 0; o0 < out_f; o0 += BLOCK) {
            const int32_t count = out_f - o0 < BLOCK ? out_f - o0 : BLOCK;
            const int8_t *w = filter + o0 * in_f;
            const int32_t *m = multiplier + (per_channel ? o0 : 0);
            const int32_t *sh = shift + (per_channel ? o0 : 0);
            for (j = 0; j < count; j++)
                acc[j] = bias ? FLEX_WADD(bias[o0 + j], x_term) : x_term;
            if (io)
                for (j = 0; j < count; j++)
                    for (i0 = 0; i0 < in_f; i0 += CHUNK)
                        acc[j] = FLEX_WADD(acc[j], FLEX_WMUL(io, sum(w + j * in_f + i0,
                                           in_f - i0 < CHUNK ? in_f - i0 : CHUNK)));
            for (j = 0; j < count; j++) {
                const int32_t k = per_channel ? j : 0;
                mult[j] = m[k];
                left[j] = sh[k] > 0 ? sh[k] : 0;
                right[j] = sh[k] > 0 ? 0 : -sh[k];
            }
            for (i0 = 0; i0 < in_f; i0 += CHUNK)
                dot_rows(w + i0, in_f, x + i0, in_f - i0 < CHUNK ? in_f - i0 : CHUNK, count,
                         acc);
            flex__host_requant_row(acc, 0, mult, left, right, count, q, output + o0);
        }
        output += out_f;
    }
}

flex_status flex_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                    const int8_t *input, size_t input_len,
                                    const int8_t *filter, size_t filter_len,
                                    int32_t filter_offset,
                                    const int32_t *bias, size_t bias_len,
                                    const int32_t *multiplier, const int32_t *shift,
                                    size_t quant_len, const flex_s8_quant *q,
                                    int8_t *output, size_t output_len) {
    FLEX_TRY(flex__s8_fc_check(batches, in_features, out_features, input, input_len, filter,
                               filter_len, filter_offset, bias, bias_len, multiplier, shift,
                               quant_len, q, output, output_len));
    fc_rows(batches, in_features, out_features, input, filter, filter_offset, bias,
            multiplier, shift, quant_len != 1, q, output);
    return FLEX_OK;
}

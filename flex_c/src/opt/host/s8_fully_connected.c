/* Host (x86-64 / aarch64) int8 fully connected, bit-identical to the reference kernel and
 * written for the vectorizer (cloned for AVX2 on x86-64 GCC builds, FLEX_CLONES).
 *
 * TFLM sums (w + filter_offset) * (x + input_offset) in a wrapping int32 accumulator, which
 * equals, modulo 2^32, sum(w * x) + input_offset * sum(w) + filter_offset * sum(x) +
 * n * filter_offset * input_offset. The products w * x of int8 values are summed in int32
 * over chunks of CHUNK taps (|sum| <= CHUNK * 2^14 < 2^31), four weight rows per pass over
 * the input row; the offset terms are added once per output (the runtime folds the input
 * offset into the bias, so they are usually 0). Outputs are requantized in blocks
 * (s8_requant.h). On x86-64 CPUs with AVX2, rows of 16 taps or more go eight at a time,
 * and are requantized eight at a time, in AVX2 code of their own (dot8_avx2,
 * requant8_avx2): short rows, such as a 16-unit layer's, spend most of the generic loop's
 * time entering and leaving it. CPUs with AVX-512 VNNI sum the rows of other lengths in
 * s8_fc_vnni.c. A block's outputs are written after all of its rows are summed, so a batch
 * row's outputs come after its whole input row is read, the order the .bst arena's
 * in-place plan assumes (docs/bst-format.md). */
#include "../../ref/ref.h"
#include "s8_dot.h"
#include "s8_fc.h"
#include "s8_requant.h"
#include "s8_vnni.h"

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
    int32_t j = 0;
    FLEX__HOST_DOT4_ROWS(int8_t, x, w, stride, n, count, j, acc, FLEX_WADD)
    for (; j < count; j++)
        acc[j] = FLEX_WADD(acc[j], dot(w + j * stride, x, n));
}

#ifdef FLEX_S8_SIMD
/* Eight rows of a short-row layer at once with AVX2: the row's int8 taps sign-extended to
 * int16, multiplied and summed in pairs into int32 lanes (vpmaddwd: |pair| <= 2^15), the
 * lanes of the eight rows then summed by a tree of horizontal adds. Each 16 taps cost two
 * instructions a row, where the vectorizer's loop over a runtime length spends dozens on
 * entering, leaving and reducing a 16-tap loop. The int32 lanes wrap, as TFLM's sum does. */
#define FC_AVX2 1

/* acc[r] += w[r * stride : + n] . x for r < 8. */
FLEX_AVX2 static void dot8_avx2(const int8_t *w, int32_t stride,
                                                       const int8_t *x, int32_t n,
                                                       int32_t *acc) {
    __m256i a[8], h[4], g0, g1, s;
    int32_t i, r;
    for (r = 0; r < 8; r++)
        a[r] = _mm256_setzero_si256();
    for (i = 0; i + 16 <= n; i += 16) {
        const __m256i xv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x + i)));
        for (r = 0; r < 8; r++) {
            const __m128i wr = _mm_loadu_si128((const __m128i *)(w + r * stride + i));
            a[r] = _mm256_add_epi32(a[r], _mm256_madd_epi16(_mm256_cvtepi8_epi16(wr), xv));
        }
    }
    for (r = 0; r < 4; r++)
        h[r] = _mm256_hadd_epi32(a[2 * r], a[2 * r + 1]);
    g0 = _mm256_hadd_epi32(h[0], h[1]); /* rows 0-3, each 128-bit half its own taps */
    g1 = _mm256_hadd_epi32(h[2], h[3]); /* rows 4-7 */
    s = _mm256_add_epi32(_mm256_permute2x128_si256(g0, g1, 0x20),
                         _mm256_permute2x128_si256(g0, g1, 0x31));
    s = _mm256_add_epi32(s, _mm256_loadu_si256((const __m256i *)acc));
    _mm256_storeu_si256((__m256i *)acc, s);
    for (; i < n; i++)
        for (r = 0; r < 8; r++)
            acc[r] = FLEX_WADD(acc[r], w[r * stride + i] * x[i]);
}

/* flex__host_requant_row (s8_requant.h) of eight outputs, without bias, in AVX2 lanes, with
 * the multipliers and shifts of eight channels (one for all when not per_channel): the
 * 64-bit products of the even and of the odd lanes, their rounded high words blended back. */
FLEX_AVX2 static void requant8_avx2(const int32_t *acc,
                                                           const int32_t *multiplier,
                                                           const int32_t *shift,
                                                           int32_t per_channel,
                                                           const flex_s8_quant *q,
                                                           int8_t *out) {
#define LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
    const __m256i m = per_channel ? LOAD(multiplier) : _mm256_set1_epi32(multiplier[0]);
    const __m256i sh = per_channel ? LOAD(shift) : _mm256_set1_epi32(shift[0]);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i rs = _mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero);
    const __m256i a = _mm256_sllv_epi32(LOAD(acc), _mm256_max_epi32(sh, zero));
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i lowest = _mm256_set1_epi32(INT32_MIN);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(a, m), nudge), 31);
    const __m256i odd = _mm256_add_epi64(
        _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(m, 32)), nudge);
    const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, rs), one);
    __m256i high = _mm256_blend_epi32(even, _mm256_slli_epi64(_mm256_srli_epi64(odd, 31), 32),
                                      0xAA);
    __m256i v;
    high = _mm256_add_epi32(high, _mm256_and_si256(_mm256_cmpeq_epi32(a, lowest),
                                                   _mm256_cmpeq_epi32(m, lowest)));
    v = _mm256_sub_epi32(_mm256_srav_epi32(high, rs),
                         _mm256_cmpgt_epi32(_mm256_and_si256(high, mask),
                                            _mm256_sub_epi32(_mm256_srli_epi32(mask, 1),
                                                             _mm256_srai_epi32(high, 31))));
    v = _mm256_add_epi32(v, _mm256_set1_epi32(q->output_offset));
    v = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(q->act_min)),
                         _mm256_set1_epi32(q->act_max));
    v = _mm256_packs_epi32(v, v); /* in range: the packs keep the values */
    v = _mm256_packs_epi16(v, v); /* bytes 0-3 of each 128-bit half: outputs 0-3, 4-7 */
    _mm_storel_epi64((__m128i *)out, _mm_unpacklo_epi32(_mm256_castsi256_si128(v),
                                                        _mm256_extracti128_si256(v, 1)));
#undef LOAD
}
#endif

FLEX_CLONES
void flex__host_fc_rows(int32_t batches, int32_t in_f, int32_t out_f, const int8_t *input,
                        const int8_t *filter, int32_t filter_offset, const int32_t *bias,
                        const int32_t *multiplier, const int32_t *shift, int32_t per_channel,
                        const flex_s8_quant *q, int8_t *output) {
    int32_t acc[BLOCK], mult[BLOCK], left[BLOCK], right[BLOCK];
    const int32_t io = q->input_offset;
    int32_t b, o0, i0, j, k, r;
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
            j = 0; /* rows before j: summed by a vector path (rows of 16 to 31 taps: AVX2's
                    * eight rows cost less than VNNI's 16 with one masked step) */
#ifdef FC_AVX2
            if (in_f >= 1 && (in_f < 16 || in_f >= 32) && flex__s8_simd() >= 64) {
                flex__host_fc_vnni(w, in_f, x, count, acc);
                j = count;
            } else if (in_f >= 16 && flex__s8_simd() >= 32) {
                for (; j + 8 <= count; j += 8)
                    dot8_avx2(w + j * in_f, in_f, x, in_f, acc + j);
            }
#endif
            r = j / 8 * 8; /* rows before r: requantized eight at a time */
            for (k = r; k < count; k++) {
                const int32_t c = per_channel ? k : 0;
                mult[k] = m[c];
                left[k] = sh[c] > 0 ? sh[c] : 0;
                right[k] = sh[c] > 0 ? 0 : -sh[c];
            }
            if (j < count)
                for (i0 = 0; i0 < in_f; i0 += CHUNK)
                    dot_rows(w + j * in_f + i0, in_f, x + i0,
                             in_f - i0 < CHUNK ? in_f - i0 : CHUNK, count - j, acc + j);
            /* the block's outputs only now: they may lie over its input row */
#ifdef FC_AVX2
            for (k = 0; k < r; k += 8)
                requant8_avx2(acc + k, m + (per_channel ? k : 0), sh + (per_channel ? k : 0),
                              per_channel, q, output + o0 + k);
#endif
            if (r < count)
                flex__host_requant_row(acc + r, 0, mult + r, left + r, right + r, count - r,
                                       q, output + o0 + r);
        }
        output += out_f;
    }
}

FLEX__SIGNATURE_s8_fully_connected(flex_s8_fully_connected) {
    FLEX_TRY(flex__s8_fc_check(FLEX__ARGS_s8_fully_connected));
    flex__host_fc_rows(batches, in_features, out_features, input, filter, filter_offset, bias,
                       multiplier, shift, quant_len != 1, q, output);
    return FLEX_OK;
}

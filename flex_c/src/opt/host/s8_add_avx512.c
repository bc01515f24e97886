/* Host int8 ADD of two tensors of the output's shape with AVX-512, bit-identical to the
 * reference. An input's scaled value, MultiplyByQuantizedMultiplier((x + offset) <<
 * left_shift, multiplier, shift), depends on its byte alone: each input's 256 values are
 * computed once per call (s8_vnni.h's 16-lane form) and kept as four 256-byte planes, one
 * per byte of the int32. A step of 64 elements then looks each input byte up in the four
 * planes (vpermt2b selects among 128 bytes, bit 7 between two halves), interleaves the
 * planes back into int32 lanes, sums the two inputs (wrapping) and requantizes (16 lanes at
 * a time), and packs the results back in element order; the last elements go under a mask.
 * Where the output shift allows (TFLM's int8 ADD: left shift 20), the split form below
 * looks up int16 tables instead and needs no 64-bit product per element (about 1.8x
 * faster); a validated plan makes its tables once (flex__host_add_avx512_prepare).
 * Each step reads its 64 elements before it writes them, so the output may lie over either
 * input (the .bst arena's in-place plan). Taken for at least FLEX_ADD_TABLES elements on
 * CPUs with AVX-512 VBMI (vpermt2b); s8_elementwise.c's loops run otherwise. */
#include "s8_requant.h"
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
#define FLEX_VBMI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))
#define FLEX_ADD_TABLES 1024 /* elements at least: the tables cost about that many */

/* The scaled input (TFLM's MultiplyByQuantizedMultiplierSmallerThanOneExp of
 * (x + offset) << left_shift) of the 16 int8 whose bytes are u .. u + 15. */
FLEX_VBMI static __m512i scaled16(int32_t u, int32_t offset, int32_t left_shift,
                                  const flex__vnni_mq_t *mq) {
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i x = _mm512_srai_epi32(
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_set1_epi32(u), iota), 24), 24);
    return flex__vnni_mbqm16(_mm512_sll_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(offset)),
                                              _mm_cvtsi32_si128(left_shift)),
                             mq);
}

/* plane[4 j + h] = bytes 64 h .. 64 h + 63 of plane j: byte j of the scaled value of the
 * int8 whose byte is u, at u. */
FLEX_VBMI static void planes(int32_t offset, int32_t left_shift, int32_t multiplier,
                             int32_t shift, __m512i plane[16]) {
    const flex__vnni_mq_t mq =
        flex__vnni_mq(_mm512_set1_epi32(multiplier), _mm512_set1_epi32(shift));
    uint8_t bytes[4][256];
    int32_t u, j;
    for (u = 0; u < 256; u += 16) {
        const __m512i v = scaled16(u, offset, left_shift, &mq);
        for (j = 0; j < 4; j++)
            _mm_storeu_si128((__m128i *)(bytes[j] + u),
                             _mm512_cvtepi32_epi8(_mm512_srli_epi32(v, 8 * j)));
    }
    for (j = 0; j < 16; j++)
        plane[j] = _mm512_loadu_si512(bytes[j / 4] + 64 * (j % 4));
}

/* The scaled values of the 64 bytes u, in int32 lanes: d[i] holds, in its 128-bit lane L,
 * those of elements 16 L + 4 i .. 16 L + 4 i + 3 (the order of the unpacks). */
FLEX_INLINE FLEX_VBMI void look_up(__m512i u, const __m512i plane[16], __m512i d[4]) {
    const __mmask64 high = _mm512_movepi8_mask(u);
    __m512i b[4], lo01, hi01, lo23, hi23;
    int32_t j;
    for (j = 0; j < 4; j++)
        b[j] = _mm512_mask_blend_epi8(high,
                                      _mm512_permutex2var_epi8(plane[4 * j], u, plane[4 * j + 1]),
                                      _mm512_permutex2var_epi8(plane[4 * j + 2], u,
                                                               plane[4 * j + 3]));
    lo01 = _mm512_unpacklo_epi8(b[0], b[1]);
    hi01 = _mm512_unpackhi_epi8(b[0], b[1]);
    lo23 = _mm512_unpacklo_epi8(b[2], b[3]);
    hi23 = _mm512_unpackhi_epi8(b[2], b[3]);
    d[0] = _mm512_unpacklo_epi16(lo01, lo23);
    d[1] = _mm512_unpackhi_epi16(lo01, lo23);
    d[2] = _mm512_unpacklo_epi16(hi01, hi23);
    d[3] = _mm512_unpackhi_epi16(hi01, hi23);
}

FLEX_VBMI static void add64(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                            int32_t n, int8_t *out) {
    const flex_s8_add_params c = *p; /* a local: the output stores do not alias it */
    const flex__vnni_mq_t mo = flex__vnni_mq(_mm512_set1_epi32(c.output_multiplier),
                                             _mm512_set1_epi32(c.output_shift));
    __m512i p1[16], p2[16];
    int32_t i, k;
    planes(c.input1_offset, c.left_shift, c.input1_multiplier, c.input1_shift, p1);
    planes(c.input2_offset, c.left_shift, c.input2_multiplier, c.input2_shift, p2);
    for (i = 0; i < n; i += 64) {
        const __mmask64 lanes = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        __m512i x1[4], x2[4], y[4];
        look_up(_mm512_maskz_loadu_epi8(lanes, a + i), p1, x1);
        look_up(_mm512_maskz_loadu_epi8(lanes, b + i), p2, x2);
        for (k = 0; k < 4; k++) {
            const __m512i v = _mm512_add_epi32(
                flex__vnni_mbqm16(_mm512_add_epi32(x1[k], x2[k]), &mo),
                _mm512_set1_epi32(c.output_offset));
            y[k] = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_set1_epi32(c.act_min)),
                                    _mm512_set1_epi32(c.act_max));
        }
        /* the packs undo the unpacks: lane L gets elements 16 L .. 16 L + 15 in order */
        _mm512_mask_storeu_epi8(out + i, lanes,
                                _mm512_packs_epi16(_mm512_packs_epi32(y[0], y[1]),
                                                   _mm512_packs_epi32(y[2], y[3])));
    }
}

/* ---- the split form: no 64-bit product per element --------------------------------------
 * With e = -output_shift >= 15 (TFLM's int8 ADD has left_shift 20, which puts e near 20),
 * the output's rescale needs no 64-bit product per element. With sum = x1 + x2 (the
 * inputs' scaled values, |sum| < 2^31) and P = sum * output_multiplier (64-bit), TFLM's
 * SaturatingRoundingDoublingHighMul is floor((P + 2^30) / 2^31) (it cannot saturate here;
 * a left-shifted input whose sums could wrap keeps add64)
 * and RoundingDivideByPOT(v, e) is floor((v + 2^(e-1) - [v < 0]) / 2^e); as
 * floor((floor(y) + n) / d) = floor((y + n) / d) for integers n and d > 0, together
 *     v = floor((P + C - delta) / 2^S),  S = 31 + e,  C = 2^30 + 2^(30+e),
 * delta = 2^31 where P < -2^30 (a negative high product), else 0. P + C = W1 + W2 with, per
 * byte, W1 = x1 * multiplier + C and W2 = x2 * multiplier, computed exactly once per call and
 * split as W = A * 2^S + R (0 <= R < 2^S), with h = R >> (S - 15), R's top 15 bits. Then
 * v = A1 + A2 + k, k = floor((R1 + R2 - delta) / 2^S), and as R1 + R2 lies in
 * [s, s + 2) * 2^(S-15) with s = h1 + h2 while delta <= 2^31 <= 2^(S-15): k = 1 where
 * s > 2^15, k = 0 where 0 < s < 2^15 - 1. s in {0, 2^15 - 1, 2^15} leaves k open: such an
 * element (a pair of bytes within about 2^-15 of a rounding step) is computed one by one from
 * the scaled values instead, which the tables keep. The tables hold A1 + output_offset, A2,
 * h1 - 1 and h2 as int16 (taken where every A fits 14 bits), two byte planes each; a step of
 * 64 elements looks them up, sums in int16 lanes (the carry k is bit 15 of h1 - 1 + h2),
 * clamps and packs. */
#define SPLIT_MIN_E 15
#define SPLIT_A_MAX ((1 << 14) - 1)

/* The output of scaled sum `sum` with e = -output_shift >= 0: the reference's arithmetic. */
FLEX_INLINE int32_t flex__host_add_one(const flex_s8_add_params *c, int32_t sum, int32_t e) {
    const int32_t v = FLEX_WADD(flex__host_mbqm(sum, c->output_multiplier, 0, e),
                                c->output_offset);
    return v < c->act_min ? c->act_min : (v > c->act_max ? c->act_max : v);
}

typedef struct {
    __m512i plane[2][4][4]; /* input; A lo, A hi, h lo, h hi; bytes 64 q .. 64 q + 63 */
    int32_t scaled[2][256]; /* each input's scaled value, by byte */
    uint32_t top[2];        /* each input's largest |scaled value| */
    int32_t e;
} split_tables;

/* One input's tables (`in` 0 or 1); 0 when an A + a_off leaves [-SPLIT_A_MAX, SPLIT_A_MAX]. */
FLEX_VBMI static int split_input(const flex_s8_add_params *c, int32_t in, int32_t e,
                                 split_tables *t) {
    const int32_t offset = in ? c->input2_offset : c->input1_offset;
    const flex__vnni_mq_t mq = flex__vnni_mq(
        _mm512_set1_epi32(in ? c->input2_multiplier : c->input1_multiplier),
        _mm512_set1_epi32(in ? c->input2_shift : c->input1_shift));
    const __m512i mo = _mm512_set1_epi32(c->output_multiplier);
    const __m512i add = _mm512_set1_epi64(in ? 0 : ((int64_t)1 << 30) + ((int64_t)1 << (30 + e)));
    const __m128i s = _mm_cvtsi32_si128(31 + e), sh = _mm_cvtsi32_si128(31 + e - 15);
    const __m512i a_off = _mm512_set1_epi32(in ? 0 : c->output_offset);
    const __m512i h_off = _mm512_set1_epi32(in ? 0 : 1), low15 = _mm512_set1_epi64(0x7FFF);
    const __m512i a_max = _mm512_set1_epi32(SPLIT_A_MAX);
    uint8_t bytes[4][256];
    __mmask16 wide = 0;
    __m512i top = _mm512_setzero_si512();
    int32_t u, j;
    for (u = 0; u < 256; u += 16) {
        const __m512i v = scaled16(u, offset, c->left_shift, &mq);
        /* W = v * multiplier (+ C), even and odd lanes in 64 bits */
        const __m512i we = _mm512_add_epi64(_mm512_mul_epi32(v, mo), add);
        const __m512i wo = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(v, 32), mo), add);
        const __m512i a = _mm512_add_epi32(
            _mm512_mask_blend_epi32(0xAAAA, _mm512_sra_epi64(we, s),
                                    _mm512_slli_epi64(_mm512_sra_epi64(wo, s), 32)),
            a_off);
        const __m512i h = _mm512_sub_epi32(
            _mm512_mask_blend_epi32(
                0xAAAA, _mm512_and_si512(_mm512_srl_epi64(we, sh), low15),
                _mm512_slli_epi64(_mm512_and_si512(_mm512_srl_epi64(wo, sh), low15), 32)),
            h_off);
        wide |= _mm512_cmpgt_epi32_mask(_mm512_abs_epi32(a), a_max);
        top = _mm512_max_epu32(top, _mm512_abs_epi32(v));
        _mm512_storeu_si512(t->scaled[in] + u, v);
        _mm_storeu_si128((__m128i *)(bytes[0] + u), _mm512_cvtepi32_epi8(a));
        _mm_storeu_si128((__m128i *)(bytes[1] + u), _mm512_cvtepi32_epi8(_mm512_srai_epi32(a, 8)));
        _mm_storeu_si128((__m128i *)(bytes[2] + u), _mm512_cvtepi32_epi8(h));
        _mm_storeu_si128((__m128i *)(bytes[3] + u), _mm512_cvtepi32_epi8(_mm512_srai_epi32(h, 8)));
    }
    for (j = 0; j < 16; j++)
        t->plane[in][j / 4][j % 4] = _mm512_loadu_si512(bytes[j / 4] + 64 * (j % 4));
    t->top[in] = (uint32_t)_mm512_reduce_max_epu32(top);
    return !wide;
}

/* The int16 table of `plane` (its lo and hi byte planes) at the 64 bytes u: w[0] holds, in
 * its 128-bit lane L, the values of elements 16 L .. 16 L + 7, w[1] those of 16 L + 8 ..
 * 16 L + 15 (the order of the unpacks, which packs_epi16 undoes). */
FLEX_INLINE FLEX_VBMI void look_up16(__m512i u, __mmask64 high, const __m512i lo[4],
                                     const __m512i hi[4], __m512i w[2]) {
    const __m512i l = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(lo[0], u, lo[1]),
                                             _mm512_permutex2var_epi8(lo[2], u, lo[3]));
    const __m512i h = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(hi[0], u, hi[1]),
                                             _mm512_permutex2var_epi8(hi[2], u, hi[3]));
    w[0] = _mm512_unpacklo_epi8(l, h);
    w[1] = _mm512_unpackhi_epi8(l, h);
}

/* The rare elements of a step whose carry is open (open[k]: its int16 lanes), computed from
 * the scaled values into r (the step's outputs, in element order). */
static void split_open(const flex_s8_add_params *c, const split_tables *t, const int8_t *x1,
                       const int8_t *x2, const uint32_t open[2], int8_t *r) {
    int32_t e;
    for (e = 0; e < 64; e++) /* element e's int16 lane: half (e / 8) % 2, 8 (e / 16) + e % 8 */
        if ((open[(e / 8) % 2] >> (8 * (e / 16) + e % 8)) & 1)
            r[e] = (int8_t)flex__host_add_one(
                c, FLEX_WADD(t->scaled[0][(uint8_t)x1[e]], t->scaled[1][(uint8_t)x2[e]]),
                t->e);
}

FLEX_VBMI static void add_split(const flex_s8_add_params *p, const split_tables *t,
                                const int8_t *a, const int8_t *b, int32_t n, int8_t *out) {
    const flex_s8_add_params c = *p; /* a local: the output stores do not alias it */
    const __m512i lo = _mm512_set1_epi16((int16_t)c.act_min);
    const __m512i hi = _mm512_set1_epi16((int16_t)c.act_max);
    const __m512i two = _mm512_set1_epi16(2), low15 = _mm512_set1_epi16(0x7FFF);
    const __m512i one = _mm512_set1_epi16(1);
    int32_t i, k;
    for (i = 0; i < n; i += 64) {
        const __mmask64 lanes = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        const __m512i u1 = _mm512_maskz_loadu_epi8(lanes, a + i);
        const __m512i u2 = _mm512_maskz_loadu_epi8(lanes, b + i);
        const __mmask64 high1 = _mm512_movepi8_mask(u1), high2 = _mm512_movepi8_mask(u2);
        __m512i a1[2], h1[2], a2[2], h2[2], y[2], v;
        uint32_t open[2];
        look_up16(u1, high1, t->plane[0][0], t->plane[0][1], a1);
        look_up16(u1, high1, t->plane[0][2], t->plane[0][3], h1);
        look_up16(u2, high2, t->plane[1][0], t->plane[1][1], a2);
        look_up16(u2, high2, t->plane[1][2], t->plane[1][3], h2);
        for (k = 0; k < 2; k++) {
            const __m512i s = _mm512_add_epi16(h1[k], h2[k]); /* h1 + h2 - 1 */
            open[k] = _mm512_cmple_epu16_mask(
                _mm512_and_si512(_mm512_add_epi16(s, two), low15), one);
            y[k] = _mm512_add_epi16(_mm512_add_epi16(a1[k], a2[k]), _mm512_srli_epi16(s, 15));
            y[k] = _mm512_min_epi16(_mm512_max_epi16(y[k], lo), hi);
        }
        v = _mm512_packs_epi16(y[0], y[1]);
        if (open[0] | open[1]) { /* rare: those elements from the scaled values */
            int8_t r[64], x1[64], x2[64];
            _mm512_storeu_si512(r, v);
            _mm512_storeu_si512(x1, u1);
            _mm512_storeu_si512(x2, u2);
            split_open(&c, t, x1, x2, open, r);
            v = _mm512_loadu_si512(r);
        }
        _mm512_mask_storeu_epi8(out + i, lanes, v);
    }
}

/* Whether the split form takes n elements with p: then the tables in t. */
static int32_t split_tables_of(const flex_s8_add_params *p, int32_t n, split_tables *t) {
    if (flex__s8_simd() < 64 || n < FLEX_ADD_TABLES || !__builtin_cpu_supports("avx512vbmi"))
        return 0;
    t->e = -p->output_shift;
    return t->e >= SPLIT_MIN_E && split_input(p, 0, t->e, t) && split_input(p, 1, t->e, t) &&
           (uint64_t)t->top[0] + t->top[1] <= INT32_MAX; /* the sums do not wrap */
}

int32_t flex__host_add_avx512(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                              int32_t n, int8_t *out) {
    split_tables t;
    if (split_tables_of(p, n, &t)) {
        add_split(p, &t, a, b, n, out);
        return 1;
    }
    if (flex__s8_simd() < 64 || n < FLEX_ADD_TABLES || !__builtin_cpu_supports("avx512vbmi"))
        return 0;
    add64(p, a, b, n, out);
    return 1;
}

/* The prepared form: the tables, the parameters, the element count. */
typedef struct {
    split_tables t;
    flex_s8_add_params p;
    int32_t n;
} add_prep;

size_t flex__host_add_avx512_size(const flex_s8_add_params *p, int32_t n) {
    split_tables t;
    return split_tables_of(p, n, &t) ? (sizeof(add_prep) + 63) / 64 * 64 : 0;
}

void flex__host_add_avx512_prepare(const flex_s8_add_params *p, int32_t n, void *prep) {
    add_prep *a = prep;
    split_tables_of(p, n, &a->t);
    a->p = *p;
    a->n = n;
}

void flex__host_add_avx512_run(const void *prep, const int8_t *a, const int8_t *b,
                               int8_t *out) {
    const add_prep *k = prep;
    add_split(&k->p, &k->t, a, b, k->n, out);
}
#endif

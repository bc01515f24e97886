/* Host int8 ADD of two tensors of the output's shape with AVX-512, 16 elements at a time,
 * bit-identical to the reference: each input offset, shifted left, scaled by its
 * MultiplyByQuantizedMultiplier, the two summed (wrapping) and requantized (s8_vnni.h's
 * 16-lane forms), the last elements under a mask. Each block of 16 is read before it is
 * written, so the output may lie over either input (the .bst arena's in-place plan). */
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
/* One input's scaling, MultiplyByQuantizedMultiplier((x + offset) << left_shift, m, shift),
 * in one of two forms. With L = left_shift + max(shift, 0) in 9 .. 22 and |offset| <= 128,
 * (x + offset) << L stays within 2^30 (no saturation) and TFLM's rounded high product is
 * floor((v m + 2^(k - 1)) / 2^k) for v = x + offset, k = 31 - L; with m = mh 2^k + ml
 * (0 <= ml < 2^k) that is v mh + ((v ml + 2^(k - 1)) >> k), both products within 2^30: two
 * 32-bit multiplies instead of four 64-bit ones (ADD's left shift is 20). Otherwise the
 * general 16-lane form. Then the rounding divide by 2^-shift, as MBQM's. */
typedef struct {
    __m512i offset, mh, ml, half, rs;
    __m128i ls, k;
    flex__vnni_mq_t mq;
    int32_t narrow;
} input_scale;

FLEX_INLINE FLEX_VNNI void input_scale_init(int32_t offset, int32_t ls, int32_t m, int32_t sh,
                                            input_scale *s) {
    const int32_t L = ls + (sh > 0 ? sh : 0), k = 31 - L;
    s->narrow = ls >= 0 && L >= 9 && L <= 22 && offset >= -128 && offset <= 128;
    s->offset = _mm512_set1_epi32(offset);
    s->mq = flex__vnni_mq(_mm512_set1_epi32(m), _mm512_set1_epi32(sh));
    s->ls = _mm_cvtsi32_si128(ls);
    s->k = _mm_cvtsi32_si128(s->narrow ? k : 0);
    s->mh = _mm512_set1_epi32(s->narrow ? m >> k : 0); /* arithmetic: floor */
    s->ml = _mm512_set1_epi32(s->narrow ? (int32_t)((uint32_t)m & ((1u << k) - 1u)) : 0);
    s->half = _mm512_set1_epi32(s->narrow ? 1 << (k - 1) : 0);
    s->rs = _mm512_set1_epi32(sh < 0 ? -sh : 0);
}

/* The scaled int32 lanes of 16 bytes at p (n < 16: the first n, the rest from 0), in the
 * 32-bit form when `narrow` (a constant where inlined). */
FLEX_INLINE FLEX_VNNI __m512i scaled(const int8_t *p, __mmask16 n, const input_scale *s,
                                     int32_t narrow) {
    const __m512i v =
        _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(n, p)), s->offset);
    if (narrow)
        return flex__vnni_rdbpot16(
            _mm512_add_epi32(_mm512_mullo_epi32(v, s->mh),
                             _mm512_sra_epi32(
                                 _mm512_add_epi32(_mm512_mullo_epi32(v, s->ml), s->half), s->k)),
            s->rs);
    return flex__vnni_mbqm16(_mm512_sll_epi32(v, s->ls), &s->mq);
}

/* The elements of ADD, both inputs in the 32-bit form or neither (`narrow`). */
FLEX_INLINE FLEX_VNNI void add_all(const flex_s8_add_params *c, const input_scale *s1,
                                   const input_scale *s2, const int8_t *a, const int8_t *b,
                                   int32_t n, int8_t *out, int32_t narrow) {
    const flex__vnni_mq_t mo = flex__vnni_mq(_mm512_set1_epi32(c->output_multiplier),
                                             _mm512_set1_epi32(c->output_shift));
    int32_t i;
    for (i = 0; i < n; i += 16) {
        const __mmask16 lanes = flex__vnni_lanes(n - i);
        const __m512i sum = _mm512_add_epi32(scaled(a + i, lanes, s1, narrow),
                                             scaled(b + i, lanes, s2, narrow));
        _mm_mask_storeu_epi8(out + i, lanes,
                             flex__vnni_out16(flex__vnni_mbqm16(sum, &mo), c->output_offset,
                                              c->act_min, c->act_max));
    }
}

FLEX_VNNI static void add16(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                            int32_t n, int8_t *out) {
    const flex_s8_add_params c = *p; /* a local: the output stores do not alias it */
    input_scale s1, s2;
    input_scale_init(c.input1_offset, c.left_shift, c.input1_multiplier, c.input1_shift, &s1);
    input_scale_init(c.input2_offset, c.left_shift, c.input2_multiplier, c.input2_shift, &s2);
    if (s1.narrow && s2.narrow)
        add_all(&c, &s1, &s2, a, b, n, out, 1);
    else
        add_all(&c, &s1, &s2, a, b, n, out, 0);
}

int32_t flex__host_add_avx512(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                              int32_t n, int8_t *out) {
    if (flex__s8_simd() < 64)
        return 0;
    add16(p, a, b, n, out);
    return 1;
}
#endif

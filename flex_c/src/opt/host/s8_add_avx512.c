/* Host int8 ADD of two tensors of the output's shape with AVX-512, 16 elements at a time,
 * bit-identical to the reference: each input offset, shifted left, scaled by its
 * MultiplyByQuantizedMultiplier, the two summed (wrapping) and requantized (s8_vnni.h's
 * 16-lane forms), the last elements under a mask. Each block of 16 is read before it is
 * written, so the output may lie over either input (the .bst arena's in-place plan). */
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
/* The int32 lanes of 16 bytes at p (n < 16: the first n, the rest 0), plus offset, shifted
 * left by ls. */
FLEX_INLINE FLEX_VNNI __m512i widen(const int8_t *p, __mmask16 n, int32_t offset, int32_t ls) {
    const __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(n, p));
    return _mm512_sll_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(offset)),
                            _mm_cvtsi32_si128(ls));
}

FLEX_VNNI static void add16(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                            int32_t n, int8_t *out) {
    const __m512i m1 = _mm512_set1_epi32(p->input1_multiplier);
    const __m512i s1 = _mm512_set1_epi32(p->input1_shift);
    const __m512i m2 = _mm512_set1_epi32(p->input2_multiplier);
    const __m512i s2 = _mm512_set1_epi32(p->input2_shift);
    const __m512i mo = _mm512_set1_epi32(p->output_multiplier);
    const __m512i so = _mm512_set1_epi32(p->output_shift);
    const flex_s8_add_params c = *p; /* a local: the output stores do not alias it */
    int32_t i;
    for (i = 0; i < n; i += 16) {
        const __mmask16 lanes = flex__vnni_lanes(n - i);
        const __m512i x1 = flex__vnni_mbqm16(
            widen(a + i, lanes, c.input1_offset, c.left_shift), m1, s1);
        const __m512i x2 = flex__vnni_mbqm16(
            widen(b + i, lanes, c.input2_offset, c.left_shift), m2, s2);
        _mm_mask_storeu_epi8(out + i, lanes,
                             flex__vnni_out16(flex__vnni_mbqm16(_mm512_add_epi32(x1, x2), mo, so),
                                              c.output_offset, c.act_min, c.act_max));
    }
}

int32_t flex__host_add_avx512(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                              int32_t n, int8_t *out) {
    if (flex__s8_simd() < 64)
        return 0;
    add16(p, a, b, n, out);
    return 1;
}
#endif

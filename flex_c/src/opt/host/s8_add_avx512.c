/* Host int8 ADD of two tensors of the output's shape with AVX-512, bit-identical to the
 * reference. An input's scaled value, MultiplyByQuantizedMultiplier((x + offset) <<
 * left_shift, multiplier, shift), depends on its byte alone: each input's 256 values are
 * computed once per call (s8_vnni.h's 16-lane form) and kept as four 256-byte planes, one
 * per byte of the int32. A step of 64 elements then looks each input byte up in the four
 * planes (vpermt2b selects among 128 bytes, bit 7 between two halves), interleaves the
 * planes back into int32 lanes, sums the two inputs (wrapping) and requantizes (16 lanes at
 * a time), and packs the results back in element order; the last elements go under a mask.
 * Each step reads its 64 elements before it writes them, so the output may lie over either
 * input (the .bst arena's in-place plan). Taken for at least FLEX_ADD_TABLES elements on
 * CPUs with AVX-512 VBMI (vpermt2b); s8_elementwise.c's loops run otherwise. */
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
#define FLEX_VBMI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))
#define FLEX_ADD_TABLES 1024 /* elements at least: the tables cost about that many */

/* plane[4 j + h] = bytes 64 h .. 64 h + 63 of plane j: byte j of the scaled value of the
 * int8 whose byte is u, at u. */
FLEX_VBMI static void planes(int32_t offset, int32_t left_shift, int32_t multiplier,
                             int32_t shift, __m512i plane[16]) {
    const flex__vnni_mq_t mq =
        flex__vnni_mq(_mm512_set1_epi32(multiplier), _mm512_set1_epi32(shift));
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint8_t bytes[4][256];
    int32_t u, j;
    for (u = 0; u < 256; u += 16) {
        const __m512i x = _mm512_srai_epi32(
            _mm512_slli_epi32(_mm512_add_epi32(_mm512_set1_epi32(u), iota), 24), 24);
        const __m512i v = flex__vnni_mbqm16(
            _mm512_sll_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(offset)),
                             _mm_cvtsi32_si128(left_shift)),
            &mq);
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

int32_t flex__host_add_avx512(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                              int32_t n, int8_t *out) {
    if (flex__s8_simd() < 64 || n < FLEX_ADD_TABLES || !__builtin_cpu_supports("avx512vbmi"))
        return 0;
    add64(p, a, b, n, out);
    return 1;
}
#endif

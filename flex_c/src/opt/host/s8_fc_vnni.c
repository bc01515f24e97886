/* The host int8 fully connected layer's dot products with AVX-512 VNNI (s8_fully_connected.c
 * calls it where flex__s8_simd() says the CPU has it). vpdpbusd multiplies unsigned by
 * signed bytes: with the weights as the unsigned side, (w ^ 0x80) = w + 128, so
 * sum((w + 128) * x) - 128 * sum(x) = sum(w * x), all in wrapping int32 arithmetic as TFLM's
 * accumulator (sum(x) once per call). Sixteen rows at a time, 64 taps per step (the last
 * step's bytes past the row masked to zero, w ^ 0x80 then 128 times a zero x), each row's
 * 16 lanes then summed and the 16 rows gathered into one vector by a tree of unpacks and
 * 128-bit shuffles. A block of fewer than 16 rows repeats its last row and keeps only its
 * own sums. */
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
/* Lane j = sum of the lanes of a[j]: pairs, then quadruples within 128-bit lanes, then
 * the four 128-bit lanes. */
FLEX_INLINE FLEX_VNNI __m512i sum16(__m512i *a) {
    __m512i b[8], c[4], d[2];
    int32_t i;
    for (i = 0; i < 8; i++)
        b[i] = _mm512_add_epi32(_mm512_unpacklo_epi32(a[2 * i], a[2 * i + 1]),
                                _mm512_unpackhi_epi32(a[2 * i], a[2 * i + 1]));
    for (i = 0; i < 4; i++)
        c[i] = _mm512_add_epi32(_mm512_unpacklo_epi64(b[2 * i], b[2 * i + 1]),
                                _mm512_unpackhi_epi64(b[2 * i], b[2 * i + 1]));
    for (i = 0; i < 2; i++)
        d[i] = _mm512_add_epi32(_mm512_shuffle_i32x4(c[2 * i], c[2 * i + 1], 0x88),
                                _mm512_shuffle_i32x4(c[2 * i], c[2 * i + 1], 0xDD));
    return _mm512_add_epi32(_mm512_shuffle_i32x4(d[0], d[1], 0x88),
                            _mm512_shuffle_i32x4(d[0], d[1], 0xDD));
}

FLEX_VNNI void flex__host_fc_vnni(const int8_t *w, int32_t n, const int8_t *x, int32_t count,
                                  int32_t *acc) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const __mmask64 tail = n % 64 ? ((__mmask64)1 << (n % 64)) - 1 : ~(__mmask64)0;
    const int32_t full = (n - 1) / 64 * 64; /* taps before the last (masked) step */
    __m512i s = _mm512_setzero_si512(), a[16], total;
    const int8_t *row[16];
    int32_t r0, r, i, sum_x;
    for (i = 0; i < full; i += 64)
        s = _mm512_dpbusd_epi32(s, _mm512_set1_epi8(1), _mm512_loadu_si512(x + i));
    s = _mm512_dpbusd_epi32(s, _mm512_set1_epi8(1), _mm512_maskz_loadu_epi8(tail, x + full));
    sum_x = _mm512_reduce_add_epi32(s);
    for (r0 = 0; r0 < count; r0 += 16) {
        const int32_t rows = count - r0 < 16 ? count - r0 : 16;
        __m512i xv;
        for (r = 0; r < 16; r++) {
            row[r] = w + (size_t)(r0 + (r < rows ? r : rows - 1)) * n;
            a[r] = _mm512_setzero_si512();
        }
        for (i = 0; i < full; i += 64) {
            xv = _mm512_loadu_si512(x + i);
            for (r = 0; r < 16; r++)
                a[r] = _mm512_dpbusd_epi32(
                    a[r], _mm512_xor_si512(_mm512_loadu_si512(row[r] + i), flip), xv);
        }
        xv = _mm512_maskz_loadu_epi8(tail, x + full);
        for (r = 0; r < 16; r++)
            a[r] = _mm512_dpbusd_epi32(
                a[r], _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail, row[r] + full), flip), xv);
        total = _mm512_add_epi32(_mm512_maskz_loadu_epi32(flex__vnni_lanes(rows), acc + r0),
                                 _mm512_sub_epi32(sum16(a), _mm512_set1_epi32(
                                                                FLEX_WMUL(128, sum_x))));
        _mm512_mask_storeu_epi32(acc + r0, flex__vnni_lanes(rows), total);
    }
}
#endif

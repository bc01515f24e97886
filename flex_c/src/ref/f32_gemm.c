/* Blocked float32 GEMM: B is packed one block at a time into a stack buffer, then every
 * row block of A streams over it with a 4-row micro-kernel the compiler vectorizes. */
#include "../common/internal.h"

#ifndef FLEX_GEMM_KB
#if defined(__x86_64__) || defined(__aarch64__)
#define FLEX_GEMM_KB 128
#define FLEX_GEMM_NB 256
#else
#define FLEX_GEMM_KB 16
#define FLEX_GEMM_NB 16
#endif
#endif

/* c[0:mb, 0:nb] += a[0:mb, 0:kb] @ packed[0:kb, 0:nb]; a addressed by row/col strides. */
static void micro(int32_t mb, int32_t nb, int32_t kb, const float *a, int32_t a_rs,
                  int32_t a_cs, const float *packed, float *c, int32_t ldc) {
    int32_t i = 0, p, j;
    for (; i + 4 <= mb; i += 4) {
        float *restrict c0 = c + i * ldc, *restrict c1 = c0 + ldc;
        float *restrict c2 = c1 + ldc, *restrict c3 = c2 + ldc;
        for (p = 0; p < kb; p++) {
            const float *restrict bp = packed + p * FLEX_GEMM_NB;
            const float a0 = a[i * a_rs + p * a_cs], a1 = a[(i + 1) * a_rs + p * a_cs];
            const float a2 = a[(i + 2) * a_rs + p * a_cs], a3 = a[(i + 3) * a_rs + p * a_cs];
            for (j = 0; j < nb; j++) {
                c0[j] += a0 * bp[j];
                c1[j] += a1 * bp[j];
                c2[j] += a2 * bp[j];
                c3[j] += a3 * bp[j];
            }
        }
    }
    for (; i < mb; i++) {
        float *restrict c0 = c + i * ldc;
        for (p = 0; p < kb; p++) {
            const float *restrict bp = packed + p * FLEX_GEMM_NB;
            const float a0 = a[i * a_rs + p * a_cs];
            for (j = 0; j < nb; j++)
                c0[j] += a0 * bp[j];
        }
    }
}

flex_status flex_f32_gemm(int32_t trans_a, int32_t trans_b, int32_t m, int32_t n, int32_t k,
                          const float *a, size_t a_len, const float *b, size_t b_len,
                          float beta, float *c, size_t c_len) {
    float packed[FLEX_GEMM_KB * FLEX_GEMM_NB];
    int32_t count, i, j0, p0, p, j;
    const int32_t a_rs = trans_a ? 1 : k, a_cs = trans_a ? m : 1;
    const int32_t b_rs = trans_b ? 1 : n, b_cs = trans_b ? k : 1;
    if (!a || !b || !c)
        return FLEX_E_NULL;
    if ((trans_a != 0 && trans_a != 1) || (trans_b != 0 && trans_b != 1))
        return FLEX_E_PARAM;
    if (m < 1 || n < 1 || k < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(m, k, &count));
    FLEX_TRY(flex__check_len(a_len, count));
    FLEX_TRY(flex__product(k, n, &count));
    FLEX_TRY(flex__check_len(b_len, count));
    FLEX_TRY(flex__product(m, n, &count));
    FLEX_TRY(flex__check_len(c_len, count));
    for (i = 0; i < count; i++)
        c[i] = beta == 0.0f ? 0.0f : beta * c[i];
    for (j0 = 0; j0 < n; j0 += FLEX_GEMM_NB) {
        const int32_t nb = n - j0 < FLEX_GEMM_NB ? n - j0 : FLEX_GEMM_NB;
        for (p0 = 0; p0 < k; p0 += FLEX_GEMM_KB) {
            const int32_t kb = k - p0 < FLEX_GEMM_KB ? k - p0 : FLEX_GEMM_KB;
            for (p = 0; p < kb; p++)
                for (j = 0; j < nb; j++)
                    packed[p * FLEX_GEMM_NB + j] = b[(p0 + p) * b_rs + (j0 + j) * b_cs];
            micro(m, nb, kb, a + p0 * a_cs, a_rs, a_cs, packed, c + j0, n);
        }
    }
    return FLEX_OK;
}

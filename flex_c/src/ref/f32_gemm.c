/* Blocked float32 GEMM. B is packed one [kb x nb] block at a time into a stack buffer, as
 * column panels FLEX_GEMM_NR wide; a register-tiled micro-kernel then streams MR rows of A
 * over each panel, keeping its MR x NR accumulators in registers. On 64-bit GCC / Clang
 * hosts the full tiles use the compilers' vector types (eight floats: two AVX registers per
 * row of the tile); elsewhere, and for the last rows, a plain C tile. B's packing is a
 * callback, so convolutions can pack im2col columns straight from the image without
 * materialising them (flex__gemm_acc); flex__gemm_rows skips packing for a B whose rows lie
 * in memory at given offsets. */
#include "../common/internal.h"

#define MR 4
#define NR FLEX_GEMM_NR
#define PACK_STRIDE(kb) ((kb) * NR)

/* Row p of the B block a tile reads: panel row p, or base + b_off[p] (flex__gemm_rows). */
#define B_ROW(b, b_off, p) ((b_off) ? (b) + (b_off)[p] : (b) + (p) * NR)

/* c[0:mr, 0:nr] += a[0:mr, 0:kb] @ B[0:kb, 0:NR] for mr <= MR, nr <= NR (B_ROW). */
FLEX_INLINE void tile(int32_t mr, int32_t nr, int32_t kb, const float *a, int32_t a_rs,
                      int32_t a_cs, const float *panel, const int32_t *b_off, float *c,
                      int32_t ldc) {
    float acc[MR][NR];
    int32_t r, j, p;
    for (r = 0; r < MR; r++)
        for (j = 0; j < NR; j++)
            acc[r][j] = 0.0f;
    if (mr == MR && (!b_off || nr == NR)) {
        const float *a0 = a, *a1 = a + a_rs, *a2 = a + 2 * a_rs, *a3 = a + 3 * a_rs;
        for (p = 0; p < kb; p++) {
            const float *b = B_ROW(panel, b_off, p);
            const float v0 = a0[p * a_cs], v1 = a1[p * a_cs];
            const float v2 = a2[p * a_cs], v3 = a3[p * a_cs];
            for (j = 0; j < NR; j++) {
                acc[0][j] += v0 * b[j];
                acc[1][j] += v1 * b[j];
                acc[2][j] += v2 * b[j];
                acc[3][j] += v3 * b[j];
            }
        }
    } else {
        const int32_t width = b_off ? nr : NR; /* in place, a row may end at nr */
        for (p = 0; p < kb; p++) {
            const float *b = B_ROW(panel, b_off, p);
            for (r = 0; r < mr; r++) {
                const float v = a[r * a_rs + p * a_cs];
                for (j = 0; j < width; j++)
                    acc[r][j] += v * b[j];
            }
        }
    }
    for (r = 0; r < mr; r++)
        for (j = 0; j < nr; j++)
            c[r * ldc + j] += acc[r][j];
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__)) && NR == 16
#define VECTOR_TILE 1
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4))); /* unaligned access */

/* c[0:MR, 0:nr] += a[0:MR, 0:kb] @ B[0:kb, 0:16] (B_ROW). */
FLEX_INLINE void vector_tile(int32_t nr, int32_t kb, const float *a, int32_t a_rs,
                             int32_t a_cs, const float *panel, const int32_t *b_off,
                             float *c, int32_t ldc) {
    const float *a0 = a, *a1 = a + a_rs, *a2 = a + 2 * a_rs, *a3 = a + 3 * a_rs;
    v8 c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0};
    int32_t p, j;
    for (p = 0; p < kb; p++) {
        const float *b = B_ROW(panel, b_off, p);
        const v8 b0 = *(const v8u *)b, b1 = *(const v8u *)(b + 8);
        const float v0 = a0[p * a_cs], v1 = a1[p * a_cs];
        const float v2 = a2[p * a_cs], v3 = a3[p * a_cs];
        c00 += b0 * v0;
        c01 += b1 * v0;
        c10 += b0 * v1;
        c11 += b1 * v1;
        c20 += b0 * v2;
        c21 += b1 * v2;
        c30 += b0 * v3;
        c31 += b1 * v3;
    }
    if (nr == NR) {
        *(v8u *)c += c00;
        *(v8u *)(c + 8) += c01;
        *(v8u *)(c + ldc) += c10;
        *(v8u *)(c + ldc + 8) += c11;
        *(v8u *)(c + 2 * ldc) += c20;
        *(v8u *)(c + 2 * ldc + 8) += c21;
        *(v8u *)(c + 3 * ldc) += c30;
        *(v8u *)(c + 3 * ldc + 8) += c31;
        return;
    }
    for (j = 0; j < nr; j++) {
        c[j] += j < 8 ? c00[j] : c01[j - 8];
        c[ldc + j] += j < 8 ? c10[j] : c11[j - 8];
        c[2 * ldc + j] += j < 8 ? c20[j] : c21[j - 8];
        c[3 * ldc + j] += j < 8 ? c30[j] : c31[j - 8];
    }
}
#endif

/* c[0:m, 0:nb] += a @ B, B packed (b_off NULL) or read in place (flex__gemm_rows); `wide`:
 * a strip of B may be read 16 columns wide even where the rows end sooner. */
FLEX_CLONES
static void block(int32_t m, int32_t nb, int32_t kb, const float *a, int32_t a_rs,
                  int32_t a_cs, const float *b, const int32_t *b_off, int32_t wide, float *c,
                  int32_t ldc) {
    int32_t i, j;
    for (j = 0; j < nb; j += NR) {
        const float *bj = b_off ? b + j : b + (j / NR) * PACK_STRIDE(kb);
        const int32_t nr = nb - j < NR ? nb - j : NR;
        for (i = 0; i < m; i += MR) {
#ifdef VECTOR_TILE
            /* in place, a short strip loads 16 columns only where the rows allow it */
            if (m - i >= MR && (!b_off || nr == NR || wide)) {
                vector_tile(nr, kb, a + i * a_rs, a_rs, a_cs, bj, b_off, c + i * ldc + j,
                            ldc);
                continue;
            }
#endif
            tile(m - i < MR ? m - i : MR, nr, kb, a + i * a_rs, a_rs, a_cs, bj, b_off,
                 c + i * ldc + j, ldc);
        }
    }
}

void flex__gemm_rows(int32_t m, int32_t n, int32_t k, const float *a, int32_t a_rs,
                     const float *base, const int32_t *off, int32_t slack, float *c,
                     int32_t ldc) {
    block(m, n, k, a, a_rs, 1, base, off, slack, c, ldc);
}

void flex__gemm_acc(int32_t m, int32_t n, int32_t k, const float *a, int32_t a_rs,
                    int32_t a_cs, flex__pack_fn pack, const void *ctx, float *c, int32_t ldc) {
    FLEX_ALIGNED float packed[FLEX_GEMM_KB * FLEX_GEMM_NB];
    int32_t j0, p0, i;
    for (j0 = 0; j0 < n; j0 += FLEX_GEMM_NB) {
        const int32_t nb = n - j0 < FLEX_GEMM_NB ? n - j0 : FLEX_GEMM_NB;
        for (p0 = 0; p0 < k; p0 += FLEX_GEMM_KB) {
            const int32_t kb = k - p0 < FLEX_GEMM_KB ? k - p0 : FLEX_GEMM_KB;
            const int32_t tail = nb % NR;
            pack(ctx, p0, kb, j0, nb, packed);
            if (tail) /* the last panel's unused columns must not hold garbage (NaN) */
                for (i = 0; i < kb; i++) {
                    float *row = packed + (nb / NR) * PACK_STRIDE(kb) + i * NR;
                    int32_t j;
                    for (j = tail; j < NR; j++)
                        row[j] = 0.0f;
                }
            block(m, nb, kb, a + p0 * a_cs, a_rs, a_cs, packed, 0, 0, c + j0, ldc);
        }
    }
}

typedef struct {
    const float *b;
    int32_t rs, cs; /* element strides of B's rows and columns */
} strided;

/* Packs B[p0:p0+kb, j0:j0+nb] of a strided matrix into column panels. */
FLEX_CLONES
static void pack_strided(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                         float *dst) {
    const strided *s = (const strided *)ctx;
    int32_t p, j;
    for (p = 0; p < kb; p++) {
        const float *row = s->b + (p0 + p) * s->rs + j0 * s->cs;
        if (s->cs == 1) {
            flex__panel_row(dst, kb, p, row, nb);
            continue;
        }
        for (j = 0; j < nb; j++)
            FLEX_PANEL(dst, kb, p, j) = row[j * s->cs];
    }
}

flex_status flex_f32_gemm(int32_t trans_a, int32_t trans_b, int32_t m, int32_t n, int32_t k,
                          const float *a, size_t a_len, const float *b, size_t b_len,
                          float beta, float *c, size_t c_len) {
    int32_t count, i;
    strided s;
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
    s.b = b;
    s.rs = trans_b ? 1 : n;
    s.cs = trans_b ? k : 1;
    flex__gemm_acc(m, n, k, a, trans_a ? 1 : k, trans_a ? m : 1, pack_strided, &s, c, n);
    return FLEX_OK;
}

/* Blocked float32 GEMM. B is packed one [kb x nb] block at a time into a stack buffer, as
 * column panels FLEX_GEMM_NR wide; a register-tiled micro-kernel then streams rows of A
 * over each panel, keeping its accumulators in registers. On 64-bit GCC / Clang hosts the
 * full tiles use the compilers' vector types (eight floats: two AVX registers per row of
 * the tile); elsewhere, and for the last rows, a plain C tile. Two engines:
 *
 * - flex__gemm_acc: A strided, B packed through a callback, so convolutions can pack
 *   im2col columns straight from the image without materialising them; flex__gemm_rows
 *   skips packing for a B whose rows lie in memory at given offsets. 4 x 16 tiles.
 * - flex__gemm_gather: each row of A is gathered in place, segment by segment, through the
 *   row's own pointer (a convolution's output pixels reading their windows), B is packed
 *   once by the caller, and the bias, the sum over blocks of K and the activation are
 *   applied as a tile is stored. 6 x 16 tiles: 12 accumulators hide the FMA latency. On
 *   AVX-512 hosts (x86-64-v4, flex__wide) the tiles are 16 floats wide and hold up to four
 *   panels, 64 columns: every column of a tile at once where the GEMM has no more, so that
 *   a convolution writes each tile of pixels only after reading all of its inputs
 *   (flex__gemm_gather_whole; f32_graph_conv.c then needs no scratch in place).
 *
 * flex__pack_strided packs a strided B, transposing 8 x 8 blocks with vector shuffles where
 * B is stored transposed (a filter's rows). */
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

#if defined(FLEX_VECTOR) && NR == 16
#define VECTOR_TILE 1
typedef flex__v8 v8;
typedef flex__v8u v8u;

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

void flex__pack_block(flex__pack_fn pack, const void *ctx, int32_t p0, int32_t kb, int32_t j0,
                      int32_t nb, float *dst) {
    const int32_t tail = nb % NR;
    int32_t i, j;
    pack(ctx, p0, kb, j0, nb, dst);
    if (tail) /* the last panel's unused columns must not hold garbage (NaN) */
        for (i = 0; i < kb; i++)
            for (j = tail; j < NR; j++)
                dst[(nb / NR) * PACK_STRIDE(kb) + i * NR + j] = 0.0f;
}

void flex__gemm_acc(int32_t m, int32_t n, int32_t k, const float *a, int32_t a_rs,
                    int32_t a_cs, flex__pack_fn pack, const void *ctx, float *c, int32_t ldc) {
    FLEX_ALIGNED float packed[FLEX_GEMM_KB * FLEX_GEMM_NB];
    int32_t j0, p0;
    for (j0 = 0; j0 < n; j0 += FLEX_GEMM_NB) {
        const int32_t nb = n - j0 < FLEX_GEMM_NB ? n - j0 : FLEX_GEMM_NB;
        for (p0 = 0; p0 < k; p0 += FLEX_GEMM_KB) {
            const int32_t kb = k - p0 < FLEX_GEMM_KB ? k - p0 : FLEX_GEMM_KB;
            flex__pack_block(pack, ctx, p0, kb, j0, nb, packed);
            block(m, nb, kb, a + p0 * a_cs, a_rs, a_cs, packed, 0, 0, c + j0, ldc);
        }
    }
}

/* ---- gathered rows (flex__gemm_gather) ------------------------------------------------- */

/* Stores acc[0:mr, 0:nr] into c as flex__gemm_gather describes. */
FLEX_INLINE void store_tile(float acc[][NR], int32_t mr, int32_t nr, const float *bias,
                            int32_t first, int32_t last, float lo, float hi, float *c,
                            int32_t ldc) {
    int32_t r, j;
    for (r = 0; r < mr; r++)
        for (j = 0; j < nr; j++) {
            float v = acc[r][j] + (!first ? c[r * ldc + j] : bias ? bias[j] : 0.0f);
            if (last)
                v = flex__clampf(v, lo, hi);
            c[r * ldc + j] = v;
        }
}

#ifdef VECTOR_TILE
#define GMR 6 /* 12 accumulators: enough independent FMAs to hide their latency */

/* A full-width tile row, its halves *u0 and *u1, stored into c as flex__gemm_gather
 * describes. */
FLEX_INLINE void store_row8(v8 *u0, v8 *u1, const float *bias, int32_t first, int32_t last,
                            const v8 *lo, const v8 *hi, float *c) {
    if (!first) {
        *u0 += *(const v8u *)c;
        *u1 += *(const v8u *)(c + 8);
    } else if (bias) {
        *u0 += *(const v8u *)bias;
        *u1 += *(const v8u *)(bias + 8);
    }
    if (last) {
        flex__clamp8(u0, lo, hi);
        flex__clamp8(u1, lo, hi);
    }
    *(v8u *)c = *u0;
    *(v8u *)(c + 8) = *u1;
}

/* c[0:mr, 0:nr] from rows a[0:GMR] (those past mr repeat a row) @ one 16-column panel. */
FLEX_INLINE void gather_tile(const float *const *a, const flex__rows *rows, const float *panel,
                             int32_t mr, int32_t nr, const float *bias, int32_t first,
                             int32_t last, float lo, float hi, float *c, int32_t ldc) {
    v8 c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
    v8 c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
    const float *b = panel;
    const int32_t segs = rows->segs;
    int32_t s, p;
    for (s = 0; s < segs; s++) {
        const int32_t o = rows->off[s], len = rows->len[s];
        const float *a0 = a[0] + o, *a1 = a[1] + o, *a2 = a[2] + o;
        const float *a3 = a[3] + o, *a4 = a[4] + o, *a5 = a[5] + o;
        for (p = 0; p < len; p++, b += NR) {
            const v8 b0 = *(const v8u *)b, b1 = *(const v8u *)(b + 8);
            c00 += b0 * a0[p];
            c01 += b1 * a0[p];
            c10 += b0 * a1[p];
            c11 += b1 * a1[p];
            c20 += b0 * a2[p];
            c21 += b1 * a2[p];
            c30 += b0 * a3[p];
            c31 += b1 * a3[p];
            c40 += b0 * a4[p];
            c41 += b1 * a4[p];
            c50 += b0 * a5[p];
            c51 += b1 * a5[p];
        }
    }
    if (mr == GMR && nr == NR) {
        const v8 lo8 = {lo, lo, lo, lo, lo, lo, lo, lo}, hi8 = {hi, hi, hi, hi, hi, hi, hi, hi};
        store_row8(&c00, &c01, bias, first, last, &lo8, &hi8, c);
        store_row8(&c10, &c11, bias, first, last, &lo8, &hi8, c + ldc);
        store_row8(&c20, &c21, bias, first, last, &lo8, &hi8, c + 2 * ldc);
        store_row8(&c30, &c31, bias, first, last, &lo8, &hi8, c + 3 * ldc);
        store_row8(&c40, &c41, bias, first, last, &lo8, &hi8, c + 4 * ldc);
        store_row8(&c50, &c51, bias, first, last, &lo8, &hi8, c + 5 * ldc);
    } else {
        float acc[GMR][NR];
        *(v8u *)acc[0] = c00;
        *(v8u *)(acc[0] + 8) = c01;
        *(v8u *)acc[1] = c10;
        *(v8u *)(acc[1] + 8) = c11;
        *(v8u *)acc[2] = c20;
        *(v8u *)(acc[2] + 8) = c21;
        *(v8u *)acc[3] = c30;
        *(v8u *)(acc[3] + 8) = c31;
        *(v8u *)acc[4] = c40;
        *(v8u *)(acc[4] + 8) = c41;
        *(v8u *)acc[5] = c50;
        *(v8u *)(acc[5] + 8) = c51;
        store_tile(acc, mr, nr, bias, first, last, lo, hi, c, ldc);
    }
}
#elif defined(FLEX_ROM_FLOAT)
#define GMR MR

/* Soft-float (the RP2040's ROM routines): one output at a time, its row's segments dotted
 * with its column of the panel and then the bias or the partial sum added (flex__fdot), in
 * the order of the plain tile (below) and store_tile; a tile of accumulators saves nothing there,
 * and the spare rows of the last tile are not computed. */
FLEX_INLINE void gather_tile(const float *const *a, const flex__rows *rows, const float *panel,
                             int32_t mr, int32_t nr, const float *bias, int32_t first,
                             int32_t last, float lo, float hi, float *c, int32_t ldc) {
    static const float none = 0.0f;
    int32_t woff[FLEX_GEMM_KB * FLEX_GEMM_NB / NR]; /* a panel's taps at most */
    flex__fruns segs = {1, NR, rows->segs, rows->off, woff, rows->len, 0};
    int32_t s, r, j, at = 0;
    float v;
    for (s = 0; s < rows->segs; at += rows->len[s++] * NR)
        woff[s] = at;
    for (r = 0; r < mr; r++)
        for (j = 0; j < nr; j++) {
            segs.tail = !first ? c + r * ldc + j : bias ? bias + j : &none;
            v = flex__fdot(0.0f, a[r], panel + j, &segs);
            c[r * ldc + j] = last ? flex__clampf(v, lo, hi) : v;
        }
}
#else
#define GMR MR

FLEX_INLINE void gather_tile(const float *const *a, const flex__rows *rows, const float *panel,
                             int32_t mr, int32_t nr, const float *bias, int32_t first,
                             int32_t last, float lo, float hi, float *c, int32_t ldc) {
    float acc[GMR][NR];
    const float *b = panel;
    int32_t s, p, r, j;
    for (r = 0; r < GMR; r++)
        for (j = 0; j < NR; j++)
            acc[r][j] = 0.0f;
    for (s = 0; s < rows->segs; s++)
        for (p = 0; p < rows->len[s]; p++, b += NR)
            for (r = 0; r < GMR; r++) {
                const float v = a[r][rows->off[s] + p];
                for (j = 0; j < NR; j++)
                    acc[r][j] += v * b[j];
            }
    store_tile(acc, mr, nr, bias, first, last, lo, hi, c, ldc);
}
#endif

/* Rows q .. q + tr - 1 of the gathered GEMM: a[i] = row q + i's inputs, where (y, x), its
 * output row and column, moves on; rows past mr repeat row q (computed, not stored). */
FLEX_INLINE void tile_rows(const flex__rows *rows, int32_t mr, int32_t tr, int32_t *y,
                           int32_t *x, const float **a) {
    int32_t i;
    for (i = 0; i < tr; i++) {
        if (i >= mr) {
            a[i] = a[0];
            continue;
        }
        a[i] = rows->src + *y * rows->ystep + *x * rows->xstep;
        if (++*x == rows->width) {
            *x = 0;
            ++*y;
        }
    }
}

#if defined(VECTOR_TILE) && defined(FLEX_WIDE)
#define WIDE_TILE 1
#include <immintrin.h>
typedef flex__v16 v16;
typedef flex__v16u v16u;

#define WIDE_PANELS 4 /* panels of a wide tile at most: 64 columns */
#define WMR 12        /* rows of a wide tile at most */

/* Rows of a wide tile of `panels` panels: 12 for one, 8 for two or three, 6 for four (at
 * most 24 accumulators, and the rows' distances fit the general registers). */
#define WIDE_ROWS(panels) ((panels) == 1 ? 12 : (panels) == 2 ? 8 : (panels) == 3 ? 8 : 6)

/* u, the first nr (1 to 16) columns of a tile row in one panel, stored into c as
 * flex__gemm_gather describes: plus c or the bias, then clamped when `last`: max(lo, v),
 * then min(hi, v), which answer v < lo ? lo : (v > hi ? hi : v) as flex__clampf does, NaN
 * included (vmaxps and vminps return their second operand when either one is NaN). */
FLEX_INLINE FLEX_WIDE void store16(const v16 *u, int32_t nr, const float *bias, int32_t first,
                                   int32_t last, const __m512 *lo, const __m512 *hi, float *c) {
    __m512 v = (__m512)*u;
    if (nr < NR) { /* the last columns, under a mask */
        const __mmask16 m = (__mmask16)((1u << nr) - 1u);
        if (!first)
            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, c));
        else if (bias)
            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias));
        if (last)
            v = _mm512_min_ps(*hi, _mm512_max_ps(*lo, v));
        _mm512_mask_storeu_ps(c, m, v);
        return;
    }
    if (!first)
        v = _mm512_add_ps(v, _mm512_loadu_ps(c));
    else if (bias)
        v = _mm512_add_ps(v, _mm512_loadu_ps(bias));
    if (last)
        v = _mm512_min_ps(*hi, _mm512_max_ps(*lo, v));
    _mm512_storeu_ps(c, v);
}

/* gather_tile in 16-float vectors over `panels` (1 to WIDE_PANELS, a constant once inlined)
 * neighbouring panels, `next` floats apart: c[0:mr, 0:nr] (nr <= 16 * panels) from rows
 * a[0 : WIDE_ROWS(panels)] (those past mr repeat a row), one accumulator per row and panel,
 * every one stored only after the last tap. */
FLEX_INLINE FLEX_WIDE void wide_tile(const float *const *a, const flex__rows *rows,
                                     const float *panel, int32_t next, int32_t panels,
                                     int32_t mr, int32_t nr, const float *bias, int32_t first,
                                     int32_t last, float lo, float hi, float *c, int32_t ldc) {
    const int32_t tr = WIDE_ROWS(panels);
    const __m512 lo16 = _mm512_set1_ps(lo), hi16 = _mm512_set1_ps(hi);
    v16 acc[WMR][WIDE_PANELS];
    const float *b = panel;
    int32_t s, p, r, h;
    for (r = 0; r < tr; r++)
        for (h = 0; h < panels; h++)
            acc[r][h] = (v16){0};
    for (s = 0; s < rows->segs; s++) {
        /* one pointer moves, the rows' distances from it stay in registers */
        const float *x0 = a[0] + rows->off[s];
        const int32_t len = rows->len[s];
        ptrdiff_t d[WMR];
        for (r = 0; r < tr; r++)
            d[r] = a[r] - a[0];
        for (p = 0; p < len; p++, b += NR, x0++) {
            v16 bv[WIDE_PANELS];
            for (h = 0; h < panels; h++)
                bv[h] = *(const v16u *)(b + h * next);
            for (r = 0; r < tr; r++) {
                const float x = x0[d[r]];
                for (h = 0; h < panels; h++)
                    acc[r][h] += bv[h] * x;
            }
        }
    }
    /* constant bounds (a full tile apart), so that the accumulators stay in registers */
    if (mr == tr) {
        for (r = 0; r < tr; r++)
            for (h = 0; h < panels; h++)
                store16(&acc[r][h], nr - h * NR, bias ? bias + h * NR : 0, first, last, &lo16,
                        &hi16, c + r * ldc + h * NR);
        return;
    }
    for (r = 0; r < tr; r++)
        for (h = 0; h < panels; h++)
            if (r < mr)
                store16(&acc[r][h], nr - h * NR, bias ? bias + h * NR : 0, first, last, &lo16,
                        &hi16, c + r * ldc + h * NR);
}

/* The wide tiles of rows [q0, q1) and columns [j, j + 16 * panels) (the last ones may
 * lie past n), `panels` (1 to WIDE_PANELS) a constant once inlined. */
FLEX_INLINE FLEX_WIDE void wide_rows(const flex__rows *rows, int32_t q0, int32_t q1, int32_t j,
                                     int32_t n, int32_t panels, const float *packed,
                                     const float *bias, int32_t first, int32_t last, float lo,
                                     float hi, float *c, int32_t ldc) {
    const int32_t tr = WIDE_ROWS(panels);
    const float *a[WMR];
    int32_t y = q0 / rows->width, x = q0 % rows->width, q;
    for (q = q0; q < q1; q += tr) {
        const int32_t mr = q1 - q < tr ? q1 - q : tr;
        tile_rows(rows, mr, tr, &y, &x, a);
        wide_tile(a, rows, packed + (j / NR) * PACK_STRIDE(rows->k), PACK_STRIDE(rows->k),
                  panels, mr, n - j, bias ? bias + j : 0, first, last, lo, hi,
                  c + (q - q0) * ldc + j, ldc);
    }
}

/* flex__gemm_gather in wide tiles: as many panels at once as the columns fill, up to
 * WIDE_PANELS (every column of a tile at once where n <= 64: flex__gemm_gather_whole). */
FLEX_WIDE
static void gather_wide(const flex__rows *rows, int32_t q0, int32_t q1, int32_t n,
                        const float *packed, const float *bias, int32_t first, int32_t last,
                        float lo, float hi, float *c, int32_t ldc) {
    int32_t j, panels;
    for (j = 0; j < n; j += panels * NR) { /* the panels stay in L1 while the tiles stream */
        panels = n - j > (WIDE_PANELS - 1) * NR ? WIDE_PANELS : (n - j + NR - 1) / NR;
        switch (panels) {
        case 4:
            wide_rows(rows, q0, q1, j, n, 4, packed, bias, first, last, lo, hi, c, ldc);
            break;
        case 3:
            wide_rows(rows, q0, q1, j, n, 3, packed, bias, first, last, lo, hi, c, ldc);
            break;
        case 2:
            wide_rows(rows, q0, q1, j, n, 2, packed, bias, first, last, lo, hi, c, ldc);
            break;
        default:
            wide_rows(rows, q0, q1, j, n, 1, packed, bias, first, last, lo, hi, c, ldc);
        }
    }
}
#endif

/* flex__gemm_gather in GMR x 16 tiles. */
FLEX_CLONES
static void gather_narrow(const flex__rows *rows, int32_t q0, int32_t q1, int32_t n,
                          const float *packed, const float *bias, int32_t first, int32_t last,
                          float lo, float hi, float *c, int32_t ldc) {
    const float *a[GMR];
    int32_t q, j;
    for (j = 0; j < n; j += NR) { /* the panels stay in L1 while the tiles stream past */
        int32_t y = q0 / rows->width, x = q0 % rows->width;
        for (q = q0; q < q1; q += GMR) {
            const int32_t mr = q1 - q < GMR ? q1 - q : GMR;
            tile_rows(rows, mr, GMR, &y, &x, a);
            gather_tile(a, rows, packed + (j / NR) * PACK_STRIDE(rows->k), mr,
                        n - j < NR ? n - j : NR, bias ? bias + j : 0, first, last, lo, hi,
                        c + (q - q0) * ldc + j, ldc);
        }
    }
}

int flex__gemm_gather_whole(int32_t n) {
#ifdef WIDE_TILE
    return n <= WIDE_PANELS * NR && flex__wide();
#else
    (void)n;
    return 0;
#endif
}

void flex__gemm_gather(const flex__rows *rows, int32_t q0, int32_t q1, int32_t n,
                       const float *packed, const float *bias, int32_t first, int32_t last,
                       float lo, float hi, float *c, int32_t ldc) {
#ifdef WIDE_TILE
    if (flex__wide()) {
        gather_wide(rows, q0, q1, n, packed, bias, first, last, lo, hi, c, ldc);
        return;
    }
#endif
    gather_narrow(rows, q0, q1, n, packed, bias, first, last, lo, hi, c, ldc);
}

#if defined(VECTOR_TILE) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define TRANSPOSE8 1
#define SHUF(a, b, i0, i1, i2, i3, i4, i5, i6, i7) \
    __builtin_shufflevector(a, b, i0, i1, i2, i3, i4, i5, i6, i7)

/* dst[i * NR : i * NR + 8] = column i of the 8x8 block whose row r is src[r * cs : r * cs + 8]
 * (the unpack / shuffle / lane-swap transpose). */
FLEX_INLINE void transpose8(const float *src, int32_t cs, float *dst) {
    v8 r[8], t[8], u[8];
    int32_t i;
    for (i = 0; i < 8; i++)
        r[i] = *(const v8u *)(src + i * cs);
    for (i = 0; i < 8; i += 2) {
        t[i] = SHUF(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = SHUF(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (i = 0; i < 8; i += 4) {
        u[i] = SHUF(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 1] = SHUF(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[i + 2] = SHUF(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 3] = SHUF(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (i = 0; i < 4; i++) {
        *(v8u *)(dst + i * NR) = SHUF(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        *(v8u *)(dst + (i + 4) * NR) = SHUF(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}
#endif
#endif

/* Rows are copied whole; a B stored transposed (rs 1: a filter's rows) is transposed in 8x8
 * blocks where vector shuffles exist; anything else element by element. */
FLEX_CLONES
void flex__pack_strided(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                        float *dst) {
    const flex__strided *s = (const flex__strided *)ctx;
    const float *b = s->b + p0 * s->rs + j0 * s->cs;
    int32_t p, j = 0;
    if (s->cs == 1) {
        for (p = 0; p < kb; p++)
            flex__panel_row(dst, kb, p, b + p * s->rs, nb);
        return;
    }
#ifdef TRANSPOSE8
    if (s->rs == 1)
        for (; j + 8 <= nb; j += 8) {
            float *d = &FLEX_PANEL(dst, kb, 0, j);
            for (p = 0; p + 8 <= kb; p += 8)
                transpose8(b + j * s->cs + p, s->cs, d + p * NR);
            for (; p < kb; p++) {
                int32_t i;
                for (i = 0; i < 8; i++)
                    d[p * NR + i] = b[(j + i) * s->cs + p];
            }
        }
#endif
    for (; j < nb; j++)
        for (p = 0; p < kb; p++)
            FLEX_PANEL(dst, kb, p, j) = b[p * s->rs + j * s->cs];
}

flex_status flex_f32_gemm(int32_t trans_a, int32_t trans_b, int32_t m, int32_t n, int32_t k,
                          const float *a, size_t a_len, const float *b, size_t b_len,
                          float beta, float *c, size_t c_len) {
    int32_t count, i;
    flex__strided s;
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
    flex__gemm_acc(m, n, k, a, trans_a ? 1 : k, trans_a ? m : 1, flex__pack_strided, &s,
                   c, n);
    return FLEX_OK;
}

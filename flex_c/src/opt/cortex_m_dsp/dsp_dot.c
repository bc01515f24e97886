/* int8 dot products on the DSP extension (dsp_dot.h). */
#include "dsp_dot.h"
#include "dsp_ops.h"

void flex__dsp_widen(const int8_t *x, int32_t k, int32_t offset, int32_t lanes, int32_t lane,
                     int32_t *xq) {
    const int32_t groups = k >> 2, offsets = (int32_t)(((uint32_t)offset & 0xFFFF) * 0x10001u);
    int32_t *dst = xq + 2 * lane, *tail = xq + 2 * lanes * groups + lane;
    int32_t g, t;
    for (g = 0; g < groups; g++, x += 4, dst += 2 * lanes) {
        const int32_t v = flex__dsp_load(x);
        dst[0] = flex__dsp_sadd16(flex__dsp_sxtb16(v), offsets);
        dst[1] = flex__dsp_sadd16(flex__dsp_sxtb16_ror8(v), offsets);
    }
    for (t = 0; t < (k & 3); t++, tail += lanes)
        *tail = x[t] + offset;
}

/* Where the rows of a block lie and what they sum to: off[i] is row i + 1's distance from
 * row 0 less 4 (the loops read row 0 with post-increment), acc the sums over the groups of
 * four elements. */
typedef struct {
    int32_t off[3];
    int32_t acc[4];
} rows_block;

/* b->acc[r] = sum over the groups of xq[0:end] (one lane) of row r (w, w + off[r-1] + 4)
 * for r < 4: per group LDRD, four LDR, eight SXTB16 and eight SMLAD. */
FLEX_HOT
__attribute__((naked)) static void groups4(const int32_t *xq, const int32_t *end,
                                           const int8_t *w, rows_block *b) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r11, lr}\n"
        "push {r3}\n"
        "ldm r3, {r3, r10, r11}\n"
        "movs r4, #0\n"
        "movs r5, #0\n"
        "movs r6, #0\n"
        "movs r7, #0\n"
        "cmp r0, r1\n"
        "beq 2f\n"
        "1:\n"
        "ldrd r8, r9, [r0], #8\n"
        "ldr lr, [r2], #4\n"
        "sxtb16 r12, lr\n"
        "sxtb16 lr, lr, ror #8\n"
        "smlad r4, r12, r8, r4\n"
        "smlad r4, lr, r9, r4\n"
        "ldr lr, [r2, r3]\n"
        "sxtb16 r12, lr\n"
        "sxtb16 lr, lr, ror #8\n"
        "smlad r5, r12, r8, r5\n"
        "smlad r5, lr, r9, r5\n"
        "ldr lr, [r2, r10]\n"
        "sxtb16 r12, lr\n"
        "sxtb16 lr, lr, ror #8\n"
        "smlad r6, r12, r8, r6\n"
        "smlad r6, lr, r9, r6\n"
        "ldr lr, [r2, r11]\n"
        "sxtb16 r12, lr\n"
        "sxtb16 lr, lr, ror #8\n"
        "smlad r7, r12, r8, r7\n"
        "smlad r7, lr, r9, r7\n"
        "cmp r0, r1\n"
        "bne 1b\n"
        "2:\n"
        "pop {r3}\n"
        "adds r3, #12\n"
        "stm r3, {r4-r7}\n"
        "pop {r4-r11, pc}\n");
}

/* b->acc[2r + lane] = the same over two interleaved lanes for rows r < 2 (w and
 * w + off[0] + 4): per group LDM of four words, two LDR, four SXTB16 and eight SMLAD. */
FLEX_HOT
__attribute__((naked)) static void groups2x2(const int32_t *xq, const int32_t *end,
                                             const int8_t *w, rows_block *b) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r11, lr}\n"
        "push {r3}\n"
        "ldr r3, [r3]\n"
        "movs r4, #0\n"
        "movs r5, #0\n"
        "movs r6, #0\n"
        "movs r7, #0\n"
        "cmp r0, r1\n"
        "beq 2f\n"
        "1:\n"
        "ldm r0!, {r8-r11}\n"
        "ldr lr, [r2], #4\n"
        "sxtb16 r12, lr\n"
        "sxtb16 lr, lr, ror #8\n"
        "smlad r4, r12, r8, r4\n"
        "smlad r4, lr, r9, r4\n"
        "smlad r5, r12, r10, r5\n"
        "smlad r5, lr, r11, r5\n"
        "ldr lr, [r2, r3]\n"
        "sxtb16 r12, lr\n"
        "sxtb16 lr, lr, ror #8\n"
        "smlad r6, r12, r8, r6\n"
        "smlad r6, lr, r9, r6\n"
        "smlad r7, r12, r10, r7\n"
        "smlad r7, lr, r11, r7\n"
        "cmp r0, r1\n"
        "bne 1b\n"
        "2:\n"
        "pop {r3}\n"
        "adds r3, #12\n"
        "stm r3, {r4-r7}\n"
        "pop {r4-r11, pc}\n");
}

/* The first n (1 to 4) of rows w, w + k, ... as a block whose missing rows repeat the last
 * one (so that every row read lies inside the filter). */
static void block_rows(rows_block *b, int32_t k, int32_t n) {
    int32_t i;
    for (i = 0; i < 3; i++)
        b->off[i] = (i + 1 < n ? i + 1 : n - 1) * k - 4;
}

void flex__dsp_dot_rows(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                        int32_t *acc) {
    const int32_t groups = k >> 2, *xt = xq + 2 * groups;
    rows_block b;
    int32_t r, i, t, n;
    for (r = 0; r < rows; r += 4, w += 4 * k, acc += 4) {
        n = rows - r < 4 ? rows - r : 4;
        block_rows(&b, k, n);
        groups4(xq, xt, w, &b);
        for (i = 0; i < n; i++) {
            const int8_t *row = w + i * k + 4 * groups;
            for (t = 0; t < (k & 3); t++)
                b.acc[i] += xt[t] * row[t];
            acc[i] = b.acc[i];
        }
    }
}

void flex__dsp_dot_rows2(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                         int32_t *acc) {
    const int32_t groups = k >> 2, *xt = xq + 4 * groups;
    rows_block b;
    int32_t r, i, t, n;
    for (r = 0; r < rows; r += 2, w += 2 * k, acc += 4) {
        n = rows - r < 2 ? rows - r : 2;
        block_rows(&b, k, n);
        groups2x2(xq, xt, w, &b);
        for (i = 0; i < 2 * n; i++) {
            const int8_t *row = w + (i >> 1) * k + 4 * groups;
            for (t = 0; t < (k & 3); t++)
                b.acc[i] += xt[2 * t + (i & 1)] * row[t];
            acc[i] = b.acc[i];
        }
    }
}

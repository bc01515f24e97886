/* Cortex-M0+ paired int8 dot products (see m0_pairs.h). */
#include "../../common/internal.h"
#include "m0_asm.h"
#include "m0_pairs.h"

/* w0 + 2^16 w1 in 32-bit two's complement. */
static int32_t pair_word(int32_t w0, int32_t w1) {
    return (int32_t)((uint32_t)w0 + ((uint32_t)w1 << 16));
}

typedef uint32_t word_t __attribute__((may_alias));

int flex__m0_pairable(const int8_t *w, int32_t n) {
    for (; n > 0 && ((uintptr_t)w & 3) != 0; n--)
        if (*w++ == -128)
            return 0;
    for (; n >= 4; n -= 4, w += 4) { /* a byte 0x80 is a zero byte of x */
        const uint32_t x = *(const word_t *)w ^ 0x80808080u;
        if (((x - 0x01010101u) & ~x & 0x80808080u) != 0)
            return 0;
    }
    while (n-- > 0)
        if (*w++ == -128)
            return 0;
    return 1;
}

/* A row's sum from the sum s (mod 2^32) of its packed words: the low halves add up its even
 * elements, the high halves its odd ones (each sum within 16 bits for k <= 256). */
static int32_t packed_sum(uint32_t s) {
    const int32_t even = (int16_t)s;
    return even + ((int32_t)(s - (uint32_t)even) >> 16);
}

/* Packs the n weights (n a positive multiple of 4) of the word-aligned row w into every
 * fourth word of dst (w[0] + 2^16 w[1] at dst[0], w[2] + 2^16 w[3] at dst[4], ...); returns
 * the sum of the packed words, mod 2^32. One word load per four weights. */
FLEX_HOT
__attribute__((naked)) static uint32_t pack_row(const int8_t *w, int32_t *dst, int32_t n) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r6, lr}\n"
        "adds r2, r0, r2\n" /* end of the row */
        "movs r6, #0\n"     /* sum */
        "1:\n"
        "ldm r0!, {r3}\n"
        "sxtb r4, r3\n"
        "lsls r5, r3, #16\n"
        "asrs r5, r5, #24\n"
        "lsls r5, r5, #16\n"
        "adds r4, r4, r5\n" /* w0 + 2^16 w1 */
        "str r4, [r1, #0]\n"
        "adds r6, r6, r4\n"
        "lsls r4, r3, #8\n"
        "asrs r4, r4, #24\n"
        "asrs r3, r3, #24\n"
        "lsls r3, r3, #16\n"
        "adds r4, r4, r3\n" /* w2 + 2^16 w3 */
        "str r4, [r1, #16]\n"
        "adds r6, r6, r4\n"
        "adds r1, #32\n"
        "cmp r0, r2\n"
        "bne 1b\n"
        "movs r0, r6\n"
        "pop {r4-r6, pc}\n");
}

void flex__m0_pack_rows(const int8_t *w, int32_t k, int32_t rows, int32_t *dst, int32_t *sums) {
    const int32_t pairs = FLEX_M0_PAIR_WORDS(k);
    int32_t g, r, j;
    for (g = 0; g < rows; g += 4, dst += 4 * pairs)
        for (r = 0; r < 4; r++) {
            const int8_t *row = w + (g + r) * k;
            int32_t *d = dst + r;
            uint32_t s = 0;
            j = 0;
            if (g + r < rows && ((uintptr_t)row & 3) == 0 && k >= 4) {
                j = (k & ~3) / 2;
                s = pack_row(row, d, k & ~3);
                d += 4 * j;
            }
            for (; j < pairs; j++, d += 4) {
                const int32_t e = 2 * j, live = g + r < rows;
                *d = pair_word(live && e < k ? row[e] : 0, live && e + 1 < k ? row[e + 1] : 0);
                s += (uint32_t)*d;
            }
            if (g + r < rows)
                sums[g + r] = packed_sum(s);
        }
}

/* Two elements: dst word = x[i + 1] + 2^16 x[i] (x in r0, indices r4 r5 = i, i + 1). */
#define PACK2(i, i1)                  \
    "ldrsb r2, [r0, " i "]\n"         \
    "ldrsb r3, [r0, " i1 "]\n"        \
    "lsls r2, r2, #16\n"              \
    "adds r2, r2, r3\n"

FLEX_HOT
__attribute__((naked)) void flex__m0_pack4(const int8_t *x, int32_t *dst, int32_t n) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r7, lr}\n"
        "adds r2, r0, r2\n"
        "mov r12, r2\n" /* end of x */
        "movs r4, #0\n"
        "movs r5, #1\n"
        "movs r6, #2\n"
        "movs r7, #3\n"
        "1:\n"
        PACK2("r4", "r5")
        "stm r1!, {r2}\n"
        PACK2("r6", "r7")
        "stm r1!, {r2}\n"
        "adds r0, #4\n"
        "cmp r0, r12\n"
        "bne 1b\n"
        "pop {r4-r7, pc}\n");
}

FLEX_HOT
void flex__m0_pack_x(const int8_t *x, int32_t k, int32_t *dst) {
    const int32_t pairs = FLEX_M0_PAIR_WORDS(k), whole = k & ~3;
    int32_t j;
    if (whole)
        flex__m0_pack4(x, dst, whole);
    for (j = whole / 2; 2 * j + 1 < k; j++)
        dst[j] = pair_word(x[2 * j + 1], x[2 * j]);
    for (; j < pairs; j++)
        dst[j] = 2 * j < k ? pair_word(0, x[2 * j]) : 0;
}

/* acc += (w * X + 2^15) >> 16 for one packed weight w (r3-r6), X in r2, 2^15 in r7. */
#define LANE(w, acc)                  \
    "muls " w ", r2, " w "\n"         \
    "adds " w ", " w ", r7\n"         \
    "asrs " w ", " w ", #16\n"        \
    "add " acc ", " w "\n"
/* One packed patch word against the four rows' words. */
#define PAIR                            \
    "ldm r0!, {r2}\n"                   \
    "ldm r1!, {r3, r4, r5, r6}\n"       \
    LANE("r3", "r8") LANE("r4", "r9") LANE("r5", "r10") LANE("r6", "r11")

FLEX_HOT
__attribute__((naked)) void flex__m0_pair_dot(const int32_t *xp, const int32_t *wp,
                                              int32_t pairs, int32_t *acc, int32_t groups) {
    __asm__ volatile(
        ".syntax unified\n"
        FLEX_M0_ENTER
        "ldr r4, [sp, #36]\n" /* groups */
        "mov lr, r4\n"
        "lsls r2, r2, #2\n"
        "adds r2, r0, r2\n"
        "mov r12, r2\n" /* end of the patch */
        "push {r0, r3}\n" /* patch start, acc */
        "movs r7, #1\n"
        "lsls r7, r7, #15\n"
        "1:\n"
        "movs r2, #0\n"
        "mov r8, r2\n"
        "mov r9, r2\n"
        "mov r10, r2\n"
        "mov r11, r2\n"
        "ldr r0, [sp]\n"
        "2:\n"
        PAIR PAIR
        "cmp r0, r12\n"
        "bne 2b\n"
        "ldr r2, [sp, #4]\n"
        "mov r3, r8\n"
        "str r3, [r2, #0]\n"
        "mov r3, r9\n"
        "str r3, [r2, #4]\n"
        "mov r3, r10\n"
        "str r3, [r2, #8]\n"
        "mov r3, r11\n"
        "str r3, [r2, #12]\n"
        "adds r2, #16\n"
        "str r2, [sp, #4]\n"
        "mov r2, lr\n"
        "subs r2, #1\n"
        "mov lr, r2\n"
        "bne 1b\n"
        "add sp, #8\n"
        FLEX_M0_LEAVE);
}

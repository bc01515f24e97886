/* Cortex-M0+ int8 dot products of one input vector with several weight rows (m0_dot.h).
 *
 * Each x byte is loaded once for four (or two) rows; a MAC costs LDRSB + MULS + ADD. The
 * index counts from -n up to 0 so that the last ADDS sets the loop's flags; the loop body is
 * unrolled four times after n % 4 single steps. */
#include "../../common/internal.h"
#include "m0_asm.h"
#include "m0_dot.h"

/* One element for four rows: x in r5, rows r1 r7 r3 r4, accumulators r8-r11. */
#define STEP4                   \
    "ldrsb r5, [r0, r2]\n"      \
    "ldrsb r6, [r1, r2]\n"      \
    "muls r6, r5, r6\n"         \
    "add r8, r6\n"              \
    "ldrsb r6, [r7, r2]\n"      \
    "muls r6, r5, r6\n"         \
    "add r9, r6\n"              \
    "ldrsb r6, [r3, r2]\n"      \
    "muls r6, r5, r6\n"         \
    "add r10, r6\n"             \
    "ldrsb r6, [r4, r2]\n"      \
    "muls r6, r5, r6\n"         \
    "add r11, r6\n"             \
    "adds r2, #1\n"

/* One element for two rows: x in r5, rows r1 r3, accumulators r4 r7. */
#define STEP2                   \
    "ldrsb r5, [r0, r2]\n"      \
    "ldrsb r6, [r1, r2]\n"      \
    "muls r6, r5, r6\n"         \
    "adds r4, r6\n"             \
    "ldrsb r6, [r3, r2]\n"      \
    "muls r6, r5, r6\n"         \
    "adds r7, r6\n"             \
    "adds r2, #1\n"

/* The loop over r2 = -n .. -1 around STEP (r5 is free between steps). */
#define DOT_LOOP(STEP, tag)            \
    "b 2" tag "f\n"                    \
    "1" tag ":\n" STEP                 \
    "2" tag ":\n"                      \
    "lsls r5, r2, #30\n"               \
    "bne 1" tag "b\n"                  \
    "cmp r2, #0\n"                     \
    "beq 4" tag "f\n"                  \
    "3" tag ":\n" STEP STEP STEP STEP  \
    "bne 3" tag "b\n"                  \
    "4" tag ":\n"

/* acc[4g + r] = sum_i x[i] * w[(4g + r) * n + i] for g < groups, r < 4; x_end / w_end point
 * one past x and one past row 0. */
FLEX_HOT
__attribute__((naked)) static void dot4(const int8_t *x_end, const int8_t *w_end, int32_t n,
                                        int32_t *acc, int32_t groups) {
    __asm__ volatile(
        ".syntax unified\n"
        FLEX_M0_ENTER
        "ldr r4, [sp, #36]\n" /* groups */
        "mov lr, r4\n"
        "mov r12, r3\n" /* acc */
        "rsbs r2, r2, #0\n"
        "push {r2}\n" /* -n */
        "subs r7, r1, r2\n" /* rows end at w_end, +n, +2n, +3n */
        "subs r3, r7, r2\n"
        "subs r4, r3, r2\n"
        "5:\n"
        "movs r5, #0\n"
        "mov r8, r5\n"
        "mov r9, r5\n"
        "mov r10, r5\n"
        "mov r11, r5\n"
        "ldr r2, [sp]\n"
        DOT_LOOP(STEP4, "")
        "mov r5, r12\n"
        "mov r6, r8\n"
        "str r6, [r5, #0]\n"
        "mov r6, r9\n"
        "str r6, [r5, #4]\n"
        "mov r6, r10\n"
        "str r6, [r5, #8]\n"
        "mov r6, r11\n"
        "str r6, [r5, #12]\n"
        "adds r5, #16\n"
        "mov r12, r5\n"
        "ldr r2, [sp]\n"
        "subs r1, r4, r2\n" /* the next group's rows */
        "subs r7, r1, r2\n"
        "subs r3, r7, r2\n"
        "subs r4, r3, r2\n"
        "mov r5, lr\n"
        "subs r5, #1\n"
        "mov lr, r5\n"
        "bne 5b\n"
        "add sp, #4\n"
        FLEX_M0_LEAVE);
}

/* acc[0] = x . w0, acc[1] = x . w1 over n elements (pointers one past the end). */
FLEX_HOT
__attribute__((naked)) static void dot2(const int8_t *x_end, const int8_t *w0_end,
                                        const int8_t *w1_end, int32_t n, int32_t *acc) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r7, lr}\n"
        "mov r12, r2\n"
        "rsbs r2, r3, #0\n"
        "mov r3, r12\n"
        "movs r4, #0\n"
        "movs r7, #0\n"
        DOT_LOOP(STEP2, "")
        "ldr r5, [sp, #20]\n"
        "str r4, [r5, #0]\n"
        "str r7, [r5, #4]\n"
        "pop {r4-r7, pc}\n");
}

FLEX_HOT
void flex__m0_dot_rows(const int8_t *x_end, const int8_t *w_end, int32_t n, int32_t rows,
                       int32_t *acc) {
    const int32_t groups = rows >> 2;
    int32_t pair[2];
    if (groups) {
        dot4(x_end, w_end, n, acc, groups);
        w_end += 4 * groups * n;
        acc += 4 * groups;
    }
    if (rows & 2) {
        dot2(x_end, w_end, w_end + n, n, acc);
        w_end += 2 * n;
        acc += 2;
    }
    if (rows & 1) {
        dot2(x_end, w_end, w_end, n, pair);
        acc[0] = pair[0];
    }
}

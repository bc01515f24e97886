/* RISC-V int8 dot products (rv_dot.h). The loops run four elements a pass at constant
 * offsets from their pointers (RISC-V loads take an immediate offset, not an index), after
 * k % 4 single steps in C. The passes are assembly (naked functions under the ilp32
 * calling convention), so that every compiler gives the same code: compilers schedule all
 * of a pass's loads first and then run out of registers. Two pixels cost 2.75
 * instructions per multiply-accumulate plus 7 a pass; one pixel 3.25 plus 6. */
#include "rv_dot.h"

void flex__rv_widen(const int8_t *x, int32_t n, int32_t offset, int32_t stride,
                    int16_t *dst) {
    int32_t i;
    for (i = 0; i < n; i++, dst += stride)
        *dst = (int16_t)(x[i] + offset);
}

/* One element o (of the pair of pixels at x, interleaved) for four rows: the pixels'
 * values in s0 and s1, a weight in s2, a product in s3; rows w0..w3 in a1 a5 a6 a7; the
 * accumulators, by row, t0 t1 | t2 t3 | t4 t5 | t6 a3. */
#define MAC2(w, o, acc_a, acc_b)                                              \
    "lb s2, " o "(" w ")\n"                                                   \
    "mul s3, s0, s2\n" "add " acc_a ", " acc_a ", s3\n"                       \
    "mul s3, s1, s2\n" "add " acc_b ", " acc_b ", s3\n"
#define STEP2(xo, yo, o)                                                      \
    "lh s0, " xo "(a0)\n" "lh s1, " yo "(a0)\n"                               \
    MAC2("a1", o, "t0", "t1") MAC2("a5", o, "t2", "t3")                       \
    MAC2("a6", o, "t4", "t5") MAC2("a7", o, "t6", "a3")

/* acc[0..7] += rows 0-3 of w0 (stride k) against the pixel pairs x[0..end) (a multiple of
 * four pairs, at least one), by row then pixel. */
FLEX_HOT
__attribute__((naked)) static void pass2x4(const int16_t *x, const int8_t *w0,
                                           const int16_t *end, int32_t k, int32_t *acc) {
    __asm__ volatile(
        "addi sp, sp, -16\n"
        "sw s0, 0(sp)\n" "sw s1, 4(sp)\n" "sw s2, 8(sp)\n" "sw s3, 12(sp)\n"
        "add a5, a1, a3\n" "add a6, a5, a3\n" "add a7, a6, a3\n"
        "lw t0, 0(a4)\n" "lw t1, 4(a4)\n" "lw t2, 8(a4)\n" "lw t3, 12(a4)\n"
        "lw t4, 16(a4)\n" "lw t5, 20(a4)\n" "lw t6, 24(a4)\n" "lw a3, 28(a4)\n"
        "1:\n"
        STEP2("0", "2", "0") STEP2("4", "6", "1") STEP2("8", "10", "2")
        STEP2("12", "14", "3")
        "addi a0, a0, 16\n"
        "addi a1, a1, 4\n" "addi a5, a5, 4\n" "addi a6, a6, 4\n" "addi a7, a7, 4\n"
        "bne a0, a2, 1b\n"
        "sw t0, 0(a4)\n" "sw t1, 4(a4)\n" "sw t2, 8(a4)\n" "sw t3, 12(a4)\n"
        "sw t4, 16(a4)\n" "sw t5, 20(a4)\n" "sw t6, 24(a4)\n" "sw a3, 28(a4)\n"
        "lw s0, 0(sp)\n" "lw s1, 4(sp)\n" "lw s2, 8(sp)\n" "lw s3, 12(sp)\n"
        "addi sp, sp, 16\n"
        "ret\n");
}

/* One element o of one pixel for four rows: the value in t4, a weight in t5, a product in
 * t6; rows in a1 a5 a6 a7, accumulators t0-t3. */
#define MAC1(w, o, acc) "lb t5, " o "(" w ")\n" "mul t6, t4, t5\n" "add " acc ", " acc ", t6\n"
#define STEP1(xo, o)                                                          \
    "lh t4, " xo "(a0)\n"                                                     \
    MAC1("a1", o, "t0") MAC1("a5", o, "t1") MAC1("a6", o, "t2") MAC1("a7", o, "t3")

/* acc[0..3] += rows 0-3 of w0 (stride k) against x[0..end) (a multiple of four values, at
 * least four). */
FLEX_HOT
__attribute__((naked)) static void pass1x4(const int16_t *x, const int8_t *w0,
                                           const int16_t *end, int32_t k, int32_t *acc) {
    __asm__ volatile(
        "add a5, a1, a3\n" "add a6, a5, a3\n" "add a7, a6, a3\n"
        "lw t0, 0(a4)\n" "lw t1, 4(a4)\n" "lw t2, 8(a4)\n" "lw t3, 12(a4)\n"
        "1:\n"
        STEP1("0", "0") STEP1("2", "1") STEP1("4", "2") STEP1("6", "3")
        "addi a0, a0, 8\n"
        "addi a1, a1, 4\n" "addi a5, a5, 4\n" "addi a6, a6, 4\n" "addi a7, a7, 4\n"
        "bne a0, a2, 1b\n"
        "sw t0, 0(a4)\n" "sw t1, 4(a4)\n" "sw t2, 8(a4)\n" "sw t3, 12(a4)\n"
        "ret\n");
}

/* acc[lanes * r + l] = row r < 4 of w (stride k) against lane l, for the first k % 4
 * elements; returns that count. */
static int32_t head4(const int16_t *x, int32_t lanes, int32_t k, const int8_t *w,
                     int32_t *acc) {
    const int32_t head = k & 3;
    int32_t r, l, i, sum;
    for (r = 0; r < 4; r++)
        for (l = 0; l < lanes; l++) {
            for (sum = 0, i = 0; i < head; i++)
                sum += x[lanes * i + l] * w[r * k + i];
            acc[lanes * r + l] = sum;
        }
    return head;
}

void flex__rv_dot_rows(const int16_t *x, int32_t lanes, int32_t k, const int8_t *w,
                       int32_t rows, int32_t *acc) {
    int32_t r = 0, l, i, sum, head;
    for (; r + 4 <= rows; r += 4, w += 4 * k, acc += 4 * lanes) {
        head = head4(x, lanes, k, w, acc);
        if (head == k)
            continue;
        if (lanes == 2)
            pass2x4(x + 2 * head, w + head, x + 2 * k, k, acc);
        else
            pass1x4(x + head, w + head, x + k, k, acc);
    }
    for (; r < rows; r++, w += k, acc += lanes)
        for (l = 0; l < lanes; l++) {
            for (sum = 0, i = 0; i < k; i++)
                sum += x[lanes * i + l] * w[i];
            acc[l] = sum;
        }
}

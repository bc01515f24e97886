/* Per-channel set-up of the Cortex-M0+ requantization (see m0_requant.h). */
#include <stddef.h>

#include "m0_requant.h"

int flex__m0_rq_block(flex__m0_rq *rq, int32_t n, const int8_t *w, int32_t k,
                      const int32_t *sums, const int32_t *bias, const int32_t *multiplier,
                      const int32_t *shift, int32_t quant_step, const flex_s8_quant *q) {
    int all_fast = 1;
    int32_t j, i;
    for (j = 0; j < n; j++, w += k) {
        uint32_t sum = sums ? (uint32_t)sums[j] : 0;
        if (q->input_offset != 0 && !sums)
            for (i = 0; i < k; i++)
                sum += (uint32_t)w[i];
        flex__m0_rq_init(&rq[j],
                         (int32_t)((uint32_t)(bias ? bias[j] : 0) +
                                   sum * (uint32_t)q->input_offset),
                         multiplier[j * quant_step], shift[j * quant_step], q);
        all_fast &= rq[j].shift != 0;
    }
    return all_fast;
}

/* Record layout the assembly below relies on. */
typedef char flex__m0_rq_layout[sizeof(flex__m0_rq) == 32 && offsetof(flex__m0_rq, base) == 20 &&
                                        offsetof(flex__m0_rq, multiplier) == 24
                                    ? 1
                                    : -1];

FLEX_HOT
__attribute__((naked)) void flex__m0_requant_rows(const int32_t *acc, const flex__m0_rq *rq,
                                                  int32_t n, int8_t *out,
                                                  const flex_s8_quant *q) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r7, lr}\n"
        "mov r4, r8\n"
        "mov r5, r9\n"
        "mov r6, r10\n"
        "push {r4-r6}\n"
        "ldr r7, [sp, #32]\n" /* q */
        "ldr r4, [r7, #8]\n"
        "mov r8, r4\n" /* act_min */
        "ldr r4, [r7, #12]\n"
        "mov r9, r4\n" /* act_max */
        "lsls r2, r2, #2\n"
        "adds r2, r0, r2\n"
        "mov r10, r2\n" /* end of acc */
        "mov r6, r3\n"  /* out */
        "1:\n"
        "ldm r0!, {r2}\n"
        "ldr r3, [r1, #20]\n" /* base */
        "adds r2, r2, r3\n"
        "asrs r3, r2, #20\n" /* |acc| < 2^20? */
        "adds r3, #1\n"
        "lsrs r3, r3, #1\n"
        "bne 5f\n"
        "ldm r1!, {r3, r4, r5}\n" /* m0 m1 m2 */
        "muls r3, r2, r3\n"
        "asrs r3, r3, #11\n"
        "muls r4, r2, r4\n"
        "adds r4, r4, r3\n"
        "asrs r4, r4, #10\n"
        "muls r5, r2, r5\n"
        "adds r5, r5, r4\n" /* F */
        "lsrs r4, r5, #31\n"
        "lsls r4, r4, #10\n"
        "ldm r1!, {r2, r3}\n" /* nudge, shift */
        "adds r5, r5, r2\n"
        "subs r5, r5, r4\n"
        "asrs r5, r3\n"
        "adds r1, #12\n" /* the next record */
        "cmp r5, r8\n"
        "blt 3f\n"
        "cmp r5, r9\n"
        "bgt 4f\n"
        "2:\n"
        "strb r5, [r6]\n"
        "adds r6, #1\n"
        "cmp r0, r10\n"
        "bne 1b\n"
        "pop {r4-r6}\n"
        "mov r8, r4\n"
        "mov r9, r5\n"
        "mov r10, r6\n"
        "pop {r4-r7, pc}\n"
        "3:\n"
        "mov r5, r8\n"
        "b 2b\n"
        "4:\n"
        "mov r5, r9\n"
        "b 2b\n"
        "5:\n" /* beyond the fast form: the general requantization */
        "push {r0, r1}\n"
        "mov r0, r2\n"
        "ldr r2, [r1, #28]\n"
        "ldr r1, [r1, #24]\n"
        "mov r3, r7\n"
        "bl flex__s8_requant\n"
        "mov r5, r0\n"
        "pop {r0, r1}\n"
        "adds r1, #32\n"
        "b 2b\n");
}

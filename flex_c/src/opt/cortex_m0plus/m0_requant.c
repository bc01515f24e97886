/* Set-up and per-output loops of the Cortex-M0+ requantization (see m0_requant.h). */
#include <stddef.h>

#include "m0_asm.h"
#include "m0_requant.h"

/* Right shifts beyond S_MAX round every fast-range accumulator (|t| <= 2^20) to 0; the
 * rows' nudge holds right shifts up to S_MAX - 1, the line's up to S_MAX. */
#define S_MAX 22
#define L_MAX 9 /* left shifts beyond it saturate as this one does */

int32_t flex__m0_fast_range(int32_t multiplier, int32_t shift) {
    if (shift < 0) /* [acc < 0] must be the sign of the product */
        return multiplier >= 0 ? FLEX_M0_RQ_RANGE : FLEX_M0_RQ_NONE;
    if (shift <= L_MAX || multiplier == 0)
        return FLEX_M0_RQ_RANGE;
    if (multiplier > -(1 << 30) && multiplier < (1 << 30))
        return FLEX_M0_RQ_NONE; /* not saturated by every non-zero accumulator */
    if (shift > 30)
        return FLEX_M0_RQ_NONE;
    /* |acc 2^shift| <= 2^30: neither it nor MBQM + output_offset wraps */
    return 30 - shift < FLEX_M0_RQ_RANGE ? 30 - shift : FLEX_M0_RQ_RANGE;
}

void flex__m0_rq_init(flex__m0_rq *r, int32_t base, int32_t multiplier, int32_t shift) {
    int32_t sh;
    r->base = base;
    r->m0 = multiplier & 0x7FF;
    r->m1 = (multiplier >> 11) & 0x3FF;
    r->m2 = multiplier >> 21;
    if (shift <= -S_MAX) { /* 0: (F + 2^30) >> 31 with F >= -2^30 */
        r->half = 0;
        r->nudge = 1 << 30;
        sh = 31;
    } else if (shift < 0) {
        r->half = 1 << 10;
        r->nudge = (1 << 9) + (1 << (9 - shift)) - (1 << 10);
        sh = 10 - shift;
    } else {
        const int32_t l = shift < L_MAX ? shift : L_MAX;
        r->half = 0;
        r->nudge = 1 << (9 - l);
        sh = 10 - l;
    }
    r->shift = sh | flex__m0_fast_range(multiplier, shift) << 8 |
               (int32_t)((uint32_t)shift << 16);
}

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
                         multiplier[j * quant_step], shift[j * quant_step]);
        all_fast &= flex__m0_rq_range(&rq[j]) == FLEX_M0_RQ_RANGE;
    }
    return all_fast;
}

int8_t flex__m0_requant_general(int32_t acc, const flex__m0_rq *r, const flex_s8_quant *q) {
    const uint32_t m = ((uint32_t)r->m2 << 21) + ((uint32_t)r->m1 << 11) + (uint32_t)r->m0;
    return flex__s8_requant(acc, (int32_t)m, r->shift >> 16, q);
}

void flex__m0_requant_each(const int32_t *acc, const flex__m0_rq *rq, int32_t n, int8_t *out,
                           const flex_s8_quant *q) {
    int32_t j;
    for (j = 0; j < n; j++)
        out[j] = flex__m0_requant(acc[j], &rq[j], q);
}

void flex__m0_line_rq_init(flex__m0_line_rq *l, int32_t multiplier, int32_t shift,
                           const flex_s8_quant *q, int32_t out_stride) {
    const int32_t zp = q->output_offset;
    l->m0 = multiplier & 0x7FF;
    l->m1 = (multiplier >> 11) & 0x3FF;
    l->m2 = multiplier >> 21;
    l->act_min = q->act_min;
    l->act_max = q->act_max;
    l->out_stride = out_stride;
    l->half_away = shift < 0;
    if (shift < 0) { /* on G = (F - [F < 0] 2^10) >> 9: the terms of m0_requant.h / 2^9 */
        const int32_t s = -shift < S_MAX ? -shift : S_MAX;
        l->nudge = 1 + (1 << s) + zp * (1 << (s + 1));
        l->shift = 1 + s;
    } else {
        const int32_t L = shift < L_MAX ? shift : L_MAX;
        l->nudge = (1 << (9 - L)) + zp * (1 << (10 - L));
        l->shift = 10 - L;
    }
}

/* Record layouts the assembly below relies on. */
typedef char flex__m0_rq_layout[sizeof(flex__m0_rq) == 28 && offsetof(flex__m0_rq, m0) == 4 &&
                                        offsetof(flex__m0_rq, half) == 16 &&
                                        sizeof(flex__m0_line_rq) == 36 &&
                                        offsetof(flex__m0_line_rq, m0) == 12 &&
                                        offsetof(flex__m0_line_rq, half_away) == 32
                                    ? 1
                                    : -1];

FLEX_HOT
__attribute__((naked)) void flex__m0_requant_rows(const int32_t *acc, const flex__m0_rq *rq,
                                                  int32_t n, int8_t *out,
                                                  const flex_s8_quant *q) {
    __asm__ volatile(
        ".syntax unified\n"
        FLEX_M0_ENTER
        "ldr r7, [sp, #36]\n" /* q */
        "ldr r4, [r7, #4]\n"
        "mov r11, r4\n" /* output_offset */
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
        "ldm r1!, {r3, r4, r5, r7}\n" /* base m0 m1 m2 */
        "adds r2, r2, r3\n"
        "asrs r3, r2, #20\n" /* r3 = [acc >= 0] if acc is in [-2^20, 2^20) */
        "adds r3, #1\n"
        "cmp r3, #1\n"
        "bhi 5f\n"
        "muls r4, r2, r4\n"
        "asrs r4, r4, #11\n"
        "muls r5, r2, r5\n"
        "adds r5, r5, r4\n"
        "asrs r5, r5, #10\n"
        "muls r7, r2, r7\n"
        "adds r7, r7, r5\n" /* F */
        "ldm r1!, {r2, r4, r5}\n" /* half, nudge, shift */
        "muls r3, r2, r3\n"
        "adds r7, r7, r3\n"
        "adds r7, r7, r4\n"
        "asrs r7, r5\n"
        "add r7, r11\n"
        "cmp r7, r8\n"
        "blt 3f\n"
        "cmp r7, r9\n"
        "bgt 4f\n"
        "2:\n"
        "strb r7, [r6]\n"
        "adds r6, #1\n"
        "cmp r0, r10\n"
        "bne 1b\n"
        FLEX_M0_LEAVE
        "3:\n"
        "mov r7, r8\n"
        "b 2b\n"
        "4:\n"
        "mov r7, r9\n"
        "b 2b\n"
        "5:\n" /* beyond the fast range: the general requantization */
        "push {r0, r1, r3}\n" /* (r3: the stack stays 8-byte aligned) */
        "subs r1, #16\n"
        "mov r0, r2\n"
        "ldr r2, [sp, #48]\n" /* q */
        "bl flex__m0_requant_general\n"
        "mov r7, r0\n"
        "pop {r0, r1, r3}\n"
        "adds r1, #12\n" /* the next record */
        "b 2b\n");
}

/* One output of flex__m0_requant_line (registers as set up there): acc from r0, F, then
 * `round` (the half-away step or nothing), the nudge and shift, the clamp and the store;
 * loops to `top` while accumulators remain, else falls through. sat_lo / sat_hi / store
 * name its local labels. */
#define LINE_LOOP(top, round, store, sat_lo, sat_hi)                                \
    top ":\n"                                                                       \
    "ldm r0!, {r1}\n"                                                               \
    "mov r7, r8\n"                                                                  \
    "muls r7, r1, r7\n"                                                             \
    "asrs r7, r7, #11\n"                                                            \
    "mov r5, r9\n"                                                                  \
    "muls r5, r1, r5\n"                                                             \
    "adds r5, r5, r7\n"                                                             \
    "asrs r5, r5, #10\n"                                                            \
    "muls r1, r4, r1\n"                                                             \
    "adds r1, r1, r5\n" /* F */                                                     \
    round                                                                           \
    "adds r1, r1, r2\n"                                                             \
    "asrs r1, r3\n"                                                                 \
    "cmp r1, r10\n"                                                                 \
    "blt " sat_lo "f\n"                                                             \
    "cmp r1, r11\n"                                                                 \
    "bgt " sat_hi "f\n"                                                             \
    store ":\n"                                                                     \
    "strb r1, [r6]\n"                                                               \
    "add r6, r12\n"                                                                 \
    "cmp r0, lr\n"                                                                  \
    "bne " top "b\n"

/* G = (F - [F < 0] 2^10) >> 9 */
#define HALF_AWAY                                                                   \
    "lsrs r7, r1, #31\n"                                                            \
    "lsls r7, r7, #10\n"                                                            \
    "subs r1, r1, r7\n"                                                             \
    "asrs r1, r1, #9\n"

FLEX_HOT
__attribute__((naked)) void flex__m0_requant_line(const int32_t *acc, int32_t n, int8_t *out,
                                                  const flex__m0_line_rq *rq) {
    __asm__ volatile(
        ".syntax unified\n"
        FLEX_M0_ENTER
        "lsls r1, r1, #2\n"
        "adds r1, r0, r1\n"
        "mov lr, r1\n" /* end of acc */
        "mov r6, r2\n" /* out */
        "ldr r4, [r3, #12]\n"
        "mov r8, r4\n" /* m0 */
        "ldr r4, [r3, #16]\n"
        "mov r9, r4\n" /* m1 */
        "ldr r4, [r3, #20]\n"
        "mov r10, r4\n" /* act_min */
        "ldr r4, [r3, #24]\n"
        "mov r11, r4\n" /* act_max */
        "ldr r4, [r3, #28]\n"
        "mov r12, r4\n" /* out stride */
        "ldr r5, [r3, #32]\n" /* half_away */
        "ldm r3, {r2, r3, r4}\n" /* nudge, shift, m2 */
        "cmp r5, #0\n"
        "beq 6f\n"
        LINE_LOOP("1", HALF_AWAY, "2", "3", "4")
        "5:\n"
        FLEX_M0_LEAVE
        "3:\n"
        "mov r1, r10\n"
        "b 2b\n"
        "4:\n"
        "mov r1, r11\n"
        "b 2b\n"
        LINE_LOOP("6", "", "7", "8", "9")
        "b 5b\n"
        "8:\n"
        "mov r1, r10\n"
        "b 7b\n"
        "9:\n"
        "mov r1, r11\n"
        "b 7b\n");
}

/* Requantization records and their loop (dsp_requant.h). */
#include "dsp_requant.h"

int flex__dsp_rq_block(flex__dsp_rq *rq, const int32_t *bias, const int32_t *multiplier,
                       const int32_t *shift, int32_t n) {
    int32_t r, s;
    for (r = 0; r < n; r++, rq++) {
        s = -shift[r];
        if (multiplier[r] < 0 || s < 1 || s > 31)
            return 0;
        rq->base = bias ? bias[r] : 0;
        rq->m = multiplier[r];
        rq->c_lo = (int32_t)(s == 1 ? 0xC0000000u : 0x40000000u);
        rq->c_hi = s == 1 ? 0 : 1 << (s - 2);
    }
    return 1;
}

/* The loop over one lane: r0 records, r1 acc, r2 acc end, r3 out; [sp, #36] the quant
 * block (output offset, act_min, act_max). Per output LDM of the record, SMLAL, the
 * [acc < 0] 2^31 correction as a second SMLAL (by 0x80000000 in lr), the shift, the offset
 * and CLAMP. STEP is the byte step between one channel's accumulators. */
#define APPLY_LANE(STEP, CLAMP)                                                   \
    ".syntax unified\n"                                                           \
    "push {r4-r11, lr}\n"                                                         \
    "ldr r4, [sp, #36]\n"                                                         \
    "ldm r4, {r9-r11}\n" /* offset, lo, hi (flex_s8_quant's last three fields) */ \
    "mov lr, #0x80000000\n"                                                       \
    "1:\n"                                                                        \
    "ldm r0!, {r4-r7}\n" /* c_lo, c_hi, base, m */                                \
    "ldr r12, [r1], #" STEP "\n"                                                  \
    "add r12, r6\n"                                                               \
    "clz r8, r5\n"                                                                \
    "smlal r4, r5, r12, r7\n"                                                     \
    "lsr r12, r12, #31\n"                                                         \
    "smlal r4, r5, r12, lr\n"                                                     \
    "rsb r8, r8, #32\n"                                                           \
    "asr r5, r5, r8\n"                                                            \
    "add r5, r9\n" CLAMP                                                          \
    "strb r5, [r3], #1\n"                                                         \
    "cmp r1, r2\n"                                                                \
    "bne 1b\n"                                                                    \
    "pop {r4-r11, pc}\n"

/* The activation clamp; SATURATE where it is the whole int8 range (one SSAT). */
#define CLAMP_ACT                                                                 \
    "cmp r5, r10\n"                                                               \
    "it lt\n"                                                                     \
    "movlt r5, r10\n"                                                             \
    "cmp r5, r11\n"                                                               \
    "it gt\n"                                                                     \
    "movgt r5, r11\n"
#define SATURATE "ssat r5, #8, r5\n"

#define APPLY_FN(NAME, STEP, CLAMP)                                                         \
    FLEX_HOT __attribute__((naked)) static void NAME(const flex__dsp_rq *rq,                \
                                                     const int32_t *acc, const int32_t *end, \
                                                     int8_t *out, const int32_t *quant) {   \
        __asm__ volatile(APPLY_LANE(STEP, CLAMP));                                          \
    }

APPLY_FN(apply1, "4", CLAMP_ACT)
APPLY_FN(apply2, "8", CLAMP_ACT)
APPLY_FN(apply1_sat, "4", SATURATE)
APPLY_FN(apply2_sat, "8", SATURATE)

flex__dsp_rq_loop_fn flex__dsp_rq_loop(const flex_s8_quant *q, int32_t lanes) {
    const int whole = q->act_min == -128 && q->act_max == 127;
    if (lanes == 1)
        return whole ? apply1_sat : apply1;
    return whole ? apply2_sat : apply2;
}

void flex__dsp_rq_apply(const flex__dsp_rq *rq, const int32_t *acc, int32_t n, int32_t lanes,
                        const flex_s8_quant *q, int8_t *out, int32_t lane_step) {
    const int32_t *quant = &q->output_offset;
    const flex__dsp_rq_loop_fn loop = flex__dsp_rq_loop(q, lanes);
    if (n < 1)
        return;
    if (lanes == 1) {
        loop(rq, acc, acc + n, out, quant);
        return;
    }
    loop(rq, acc, acc + 2 * n, out, quant);
    loop(rq, acc + 1, acc + 1 + 2 * n, out + lane_step, quant);
}

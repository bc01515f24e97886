/* Requantization records and their loops (dsp_requant.h). */
#include "dsp_requant.h"

int flex__dsp_rq_block(flex__dsp_rq *rq, const int32_t *bias, const int32_t *multiplier,
                       const int32_t *shift, int32_t n, int32_t zp) {
    int32_t r;
    for (r = 0; r < n; r++)
        if (!flex__dsp_rq_set(rq + r, bias ? bias[r] : 0, multiplier[r], shift[r], zp))
            return 0;
    return 1;
}

/* The loop over one lane: r0 records, r1 acc, r2 acc end, r3 out; [sp, #36] the quant
 * block (output offset, act_min, act_max). Per output LDM of the record, SMLAL, the
 * [acc < 0] 2^31 correction as a second SMLAL (by 0x80000000 in lr), the shift and CLAMP.
 * STEP is the byte step between one channel's accumulators. */
#define APPLY_LANE(STEP, CLAMP)                                                   \
    ".syntax unified\n"                                                           \
    "push {r4-r11, lr}\n"                                                         \
    "ldr r4, [sp, #36]\n"                                                         \
    "ldm r4, {r9-r11}\n" /* offset, lo, hi (flex_s8_quant's last three fields) */ \
    "mov lr, #0x80000000\n"                                                       \
    "1:\n"                                                                        \
    "ldm r0!, {r4-r8}\n" /* c_lo, c_hi, base, m, s1 */                            \
    "ldr r12, [r1], #" STEP "\n"                                                  \
    "add r12, r6\n"                                                               \
    "smlal r4, r5, r12, r7\n"                                                     \
    "lsr r12, r12, #31\n"                                                         \
    "smlal r4, r5, r12, lr\n"                                                     \
    "asr r5, r5, r8\n" CLAMP                                                      \
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

/* Both lanes of interleaved accumulators (acc[2r], acc[2r + 1]) under the whole-int8 clamp,
 * each record read once: r0 records, r1 acc, r2 acc end, r3 out (lane 0), [sp, #36] the
 * byte step to lane 1's outputs. Lane 1's sum starts as a copy of the constant. */
FLEX_HOT
__attribute__((naked)) static void apply2_sat(const flex__dsp_rq *rq, const int32_t *acc,
                                              const int32_t *end, int8_t *out,
                                              int32_t lane_step) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r11, lr}\n"
        "ldr r11, [sp, #36]\n"
        "mov lr, #0x80000000\n"
        "1:\n"
        "ldm r0!, {r4-r8}\n" /* c_lo, c_hi, base, m, s1 */
        "ldrd r9, r10, [r1], #8\n"
        "add r9, r6\n"
        "add r10, r6\n"
        "mov r6, r4\n"
        "mov r12, r5\n"
        "smlal r4, r5, r9, r7\n"
        "smlal r6, r12, r10, r7\n"
        "lsr r9, r9, #31\n"
        "lsr r10, r10, #31\n"
        "smlal r4, r5, r9, lr\n"
        "smlal r6, r12, r10, lr\n"
        "asr r5, r5, r8\n"
        "asr r12, r12, r8\n"
        "ssat r5, #8, r5\n"
        "ssat r12, #8, r12\n"
        "strb r12, [r3, r11]\n"
        "strb r5, [r3], #1\n"
        "cmp r1, r2\n"
        "bne 1b\n"
        "pop {r4-r11, pc}\n");
}

/* One output of APPLY_BIAS: its sum and bias added, SMLAL, the [acc < 0] 2^31 correction
 * and the shift, CLAMP on r11, the byte stored. */
#define BIAS_OUTPUT(CLAMP)                                                        \
    "ldr r12, [r1], #4\n"                                                         \
    "ldr r10, [r9], #4\n"                                                         \
    "add r12, r10\n"                                                              \
    "mov r10, r4\n"                                                               \
    "mov r11, r5\n"                                                               \
    "smlal r10, r11, r12, r7\n"                                                   \
    "lsr r12, r12, #31\n"                                                         \
    "smlal r10, r11, r12, lr\n"                                                   \
    "asr r11, r11, r8\n" CLAMP                                                    \
    "strb r11, [r3], #1\n"

/* One record for every output, each output's bias read beside its accumulator: r0 the
 * record, r1 acc, r2 acc end (at least one output), r3 out, [sp, #36] the biases,
 * [sp, #40] the quant block's output_offset (LIMITS loads act_min, act_max into r6, r0
 * where CLAMP reads them). Two outputs per pass; an odd count enters at the second. */
#define APPLY_BIAS(LIMITS, CLAMP)                                                 \
    ".syntax unified\n"                                                           \
    "push {r4-r11, lr}\n"                                                         \
    "ldm r0, {r4-r8}\n" /* c_lo, c_hi, base (unused), m, s1 */                    \
    "ldr r9, [sp, #36]\n" LIMITS                                                  \
    "mov lr, #0x80000000\n"                                                       \
    "sub r12, r2, r1\n"                                                           \
    "tst r12, #4\n"                                                               \
    "bne 2f\n"                                                                    \
    "1:\n" BIAS_OUTPUT(CLAMP)                                                     \
    "2:\n" BIAS_OUTPUT(CLAMP)                                                     \
    "cmp r1, r2\n"                                                                \
    "bne 1b\n"                                                                    \
    "pop {r4-r11, pc}\n"

#define APPLY_BIAS_FN(NAME, LIMITS, CLAMP)                                                 \
    FLEX_HOT __attribute__((naked)) void NAME(                                             \
        const flex__dsp_rq *rq, const int32_t *acc, const int32_t *end, int8_t *out,       \
        const int32_t *bias, const int32_t *quant) {                                       \
        __asm__ volatile(APPLY_BIAS(LIMITS, CLAMP));                                       \
    }

APPLY_BIAS_FN(flex__dsp_apply_bias,
              "ldr r10, [sp, #40]\n"
              "ldr r6, [r10, #4]\n"
              "ldr r0, [r10, #8]\n",
              "cmp r11, r6\n"
              "it lt\n"
              "movlt r11, r6\n"
              "cmp r11, r0\n"
              "it gt\n"
              "movgt r11, r0\n")
APPLY_BIAS_FN(flex__dsp_apply_bias_sat, "", "ssat r11, #8, r11\n")

flex__dsp_rq_loop_fn flex__dsp_rq_loop(const flex_s8_quant *q) {
    return flex__dsp_whole_range(q) ? apply1_sat : apply1;
}

void flex__dsp_rq_apply(const flex__dsp_rq *rq, const int32_t *acc, int32_t n, int32_t lanes,
                        const flex_s8_quant *q, int8_t *out, int32_t lane_step) {
    const int32_t *quant = &q->output_offset;
    if (n < 1)
        return;
    if (lanes == 1) {
        flex__dsp_rq_loop(q)(rq, acc, acc + n, out, quant);
    } else if (flex__dsp_whole_range(q)) {
        apply2_sat(rq, acc, acc + 2 * n, out, lane_step);
    } else {
        apply2(rq, acc, acc + 2 * n, out, quant);
        apply2(rq, acc + 1, acc + 1 + 2 * n, out + lane_step, quant);
    }
}

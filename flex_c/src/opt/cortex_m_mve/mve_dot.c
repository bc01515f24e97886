/* int8 dot products on Helium (mve_dot.h). */
#include "mve_dot.h"

#include "mve_requant.h"

void flex__mve_records(const int8_t *w, int32_t k, int32_t rows, const int32_t *bias,
                       int32_t offset, const int32_t *multiplier, const int32_t *shift,
                       int per_tensor, int32_t *rec) {
    int32_t g, j, i;
    for (g = 0; g < rows; g += 4, rec += 12)
        for (j = 0; j < 4; j++) {
            const int32_t r = g + j < rows ? g + j : rows - 1;
            const int8_t *row = w + r * k;
            int32_t sum = 0;
            for (i = 0; i < k; i += 16) {
                const mve_pred16_t p = vctp8q((uint32_t)(k - i));
                sum = vaddvaq_p_s8(sum, vldrbq_z_s8(row + i, p), p);
            }
            rec[j] = FLEX_WADD(bias ? bias[r] : 0, (int32_t)((uint32_t)offset * (uint32_t)sum));
            rec[4 + j] = multiplier[per_tensor ? 0 : r];
            rec[8 + j] = shift[per_tensor ? 0 : r];
        }
}

/* What the group loop reads (field offsets are the assembly's). */
typedef struct {
    const int8_t *x;      /* 0 */
    int32_t k;            /* 4 */
    const int8_t *w;      /* 8: the first group's row 0 */
    const int32_t *rec;   /* 12 */
    int8_t *out, *end;    /* 16, 20: where the outputs of the groups go */
    int32_t lo[4], hi[4]; /* 24, 40: the clamp */
    int32_t zp[4];        /* 56: the output zero point */
} groups_job;

/* Whole groups of four rows: per 16 elements of x one VLDRB of x and, per row, a VLDRB of
 * its weights and a VMLAVA (sums in r0, r2, r4, r6: VMLAVA takes even registers; rows at
 * r12, r5, r7, r8 from r10, x at r1, the outputs at r3, the records at r11), in a
 * tail-predicated loop; then the group's requantization from its record (mve_requant.h's
 * sequence) and four bytes out. */
FLEX_HOT __attribute__((naked)) static void groups(const groups_job *j) {
    __asm__ volatile(
        ".syntax unified\n"
        "push {r4-r11, lr}\n"
        "vpush {d8-d15}\n"
        "sub sp, #8\n"
        "ldr r1, [r0, #0]\n"
        "str r1, [sp]\n"
        "ldr r9, [r0, #4]\n"
        "ldr r10, [r0, #8]\n"
        "ldr r11, [r0, #12]\n"
        "ldr r12, [r0, #20]\n"
        "str r12, [sp, #4]\n"
        "ldr r3, [r0, #16]\n"
        "vldrw.u32 q3, [r0, #24]\n"
        "vldrw.u32 q4, [r0, #40]\n"
        "vldrw.u32 q7, [r0, #56]\n"
        "vmov.i32 q6, #0\n"
        "1:\n"
        "ldr r1, [sp]\n"
        "mov r12, r10\n"
        "add r5, r10, r9\n"
        "add r7, r5, r9\n"
        "add r8, r7, r9\n"
        "add r10, r8, r9\n"
        "movs r0, #0\n"
        "movs r2, #0\n"
        "movs r4, #0\n"
        "movs r6, #0\n"
        "dlstp.8 lr, r9\n"
        "2:\n"
        "vldrb.u8 q0, [r1], #16\n"
        "vldrb.u8 q1, [r12], #16\n"
        "vmlava.s8 r0, q1, q0\n"
        "vldrb.u8 q1, [r5], #16\n"
        "vmlava.s8 r2, q1, q0\n"
        "vldrb.u8 q1, [r7], #16\n"
        "vmlava.s8 r4, q1, q0\n"
        "vldrb.u8 q1, [r8], #16\n"
        "vmlava.s8 r6, q1, q0\n"
        "letp lr, 2b\n"
        "vmov q2[2], q2[0], r0, r4\n"
        "vmov q2[3], q2[1], r2, r6\n"
        "vldrw.u32 q0, [r11], #16\n"
        "vadd.i32 q2, q2, q0\n"
        "vldrw.u32 q0, [r11], #16\n"
        "vldrw.u32 q1, [r11], #16\n"
        "vmax.s32 q5, q1, q6\n"
        "vmin.s32 q1, q1, q6\n"
        "vshl.s32 q2, q2, q5\n"
        "vqrdmulh.s32 q2, q2, q0\n"
        "vand q0, q2, q1\n"
        "vshr.s32 q0, q0, #31\n"
        "vqadd.s32 q2, q2, q0\n"
        "vrshl.s32 q2, q2, q1\n"
        "vadd.i32 q2, q2, q7\n"
        "vmax.s32 q2, q2, q3\n"
        "vmin.s32 q2, q2, q4\n"
        "vstrb.32 q2, [r3], #4\n" /* a low register: VSTRB.32 takes no other */
        "ldr r12, [sp, #4]\n"
        "cmp r3, r12\n"
        "bne 1b\n"
        "add sp, #8\n"
        "vpop {d8-d15}\n"
        "pop {r4-r11, pc}\n");
}

/* The last group of n < 4 rows (rows past the last read as the last), stored under a
 * predicate. */
static void short_group(const int8_t *x, int32_t k, const int8_t *row, int32_t n,
                        const int32_t *rec, const flex_s8_quant *q, int8_t *out) {
    register int32_t a0 __asm__("r0") = 0;
    register int32_t a1 __asm__("r2") = 0;
    const int8_t *x0 = x, *w0 = row, *w1 = row + (n > 1 ? k : 0);
    const mve_pred16_t p = vctp32q((uint32_t)n);
    int32x4_t v = vdupq_n_s32(0);
    __asm__ volatile(
        "dlstp.8 lr, %[k]\n"
        "1:\n"
        "vldrb.u8 q0, [%[x]], #16\n"
        "vldrb.u8 q1, [%[w0]], #16\n"
        "vmlava.s8 %[a0], q1, q0\n"
        "vldrb.u8 q1, [%[w1]], #16\n"
        "vmlava.s8 %[a1], q1, q0\n"
        "letp lr, 1b\n"
        : [a0] "+r"(a0), [a1] "+r"(a1), [x] "+r"(x0), [w0] "+r"(w0), [w1] "+r"(w1)
        : [k] "r"(k)
        : "lr", "q0", "q1", "memory");
    v = vsetq_lane_s32(a0, v, 0);
    v = vsetq_lane_s32(a1, v, 1);
    if (n > 2) {
        const int8_t *w2 = row + 2 * k;
        int32_t a2 = 0, i;
        for (i = 0; i < k; i += 16) {
            const mve_pred16_t t = vctp8q((uint32_t)(k - i));
            a2 = vmladavaq_p_s8(a2, vldrbq_z_s8(x + i, t), vldrbq_z_s8(w2 + i, t), t);
        }
        v = vsetq_lane_s32(a2, v, 2);
    }
    v = flex__mve_requant(vaddq_s32(v, vldrwq_s32(rec)), vldrwq_s32(rec + 4),
                          vldrwq_s32(rec + 8), q->output_offset, vdupq_n_s32(q->act_min),
                          vdupq_n_s32(q->act_max));
    vstrbq_p_s32(out, v, p);
}

void flex__mve_rows(const int8_t *x, int32_t k, const int8_t *w, int32_t rows,
                    const int32_t *rec, const flex_s8_quant *q, int8_t *out) {
    const int32_t full = rows / 4;
    groups_job j;
    int32_t i;
    if (full) {
        j.x = x;
        j.k = k;
        j.w = w;
        j.rec = rec;
        j.out = out;
        j.end = out + 4 * full;
        for (i = 0; i < 4; i++) {
            j.lo[i] = q->act_min;
            j.hi[i] = q->act_max;
            j.zp[i] = q->output_offset;
        }
        groups(&j);
    }
    if (rows % 4)
        short_group(x, k, w + 4 * full * k, rows % 4, rec + 12 * full, q, out + 4 * full);
}

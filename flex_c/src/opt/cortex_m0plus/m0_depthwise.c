/* Cortex-M0+ 3x3 depthwise kernels in assembly (see m0_depthwise.h).
 *
 * A strip keeps its four accumulators in r8-r11 and one pass's three weights in r4-r6; each
 * tile byte is loaded once per pass and multiplied into every window of the strip that
 * covers it, so a MAC costs a MULS, an ADD and mostly a MOV. */
#include "../../common/internal.h"
#include "m0_asm.h"
#include "m0_depthwise.h"

/* acc_a += x * w, keeping x (r0) for later taps. */
#define KEEP(w, acc) "mov r1, r0\n" "muls r1, " w ", r1\n" "add " acc ", r1\n"
/* acc_a += x * w, the last use of x. */
#define LAST(w, acc) "muls r0, " w ", r0\n" "add " acc ", r0\n"
#define LOAD(offset) "ldrb r0, [r2, #" offset "]\n"

/* One stride-1 pass: weights w0 w1 w2 (r4 r5 r6) over the six bytes the windows span. */
#define PASS1                                                             \
    "ldm r3!, {r4, r5, r6}\n"                                            \
    LOAD("0") LAST("r4", "r8")                                           \
    LOAD("4") KEEP("r5", "r8") LAST("r4", "r9")                          \
    LOAD("8") KEEP("r6", "r8") KEEP("r5", "r9") LAST("r4", "r10")        \
    LOAD("12") KEEP("r6", "r9") KEEP("r5", "r10") LAST("r4", "r11")      \
    LOAD("16") KEEP("r6", "r10") LAST("r5", "r11")                       \
    LOAD("20") LAST("r6", "r11")

/* One stride-2 pass over nine bytes; the ninth lies beyond LDRB's immediate reach. */
#define PASS2                                                             \
    "ldm r3!, {r4, r5, r6}\n"                                            \
    LOAD("0") LAST("r4", "r8")                                           \
    LOAD("4") LAST("r5", "r8")                                           \
    LOAD("8") KEEP("r6", "r8") LAST("r4", "r9")                          \
    LOAD("12") LAST("r5", "r9")                                          \
    LOAD("16") KEEP("r6", "r9") LAST("r4", "r10")                        \
    LOAD("20") LAST("r5", "r10")                                         \
    LOAD("24") KEEP("r6", "r10") LAST("r4", "r11")                       \
    LOAD("28") LAST("r5", "r11")                                         \
    "movs r1, #32\n" "ldrb r0, [r2, r1]\n" LAST("r6", "r11")

/* The strips loop around three passes; `step` bytes from one strip to the next. */
#define STRIPS(pass, step)                                                \
    ".syntax unified\n"                                                   \
    FLEX_M0_ENTER                                                         \
    "mov r12, r3\n" /* acc */                                             \
    "mov lr, r2\n"  /* strips left */                                     \
    "mov r2, r0\n"  /* p */                                               \
    "mov r7, r1\n"  /* pass stride */                                     \
    "ldr r3, [sp, #36]\n" /* wk */                                        \
    "1:\n"                                                                \
    "ldr r0, [sp, #40]\n" /* base */                                      \
    "mov r8, r0\n"                                                        \
    "mov r9, r0\n"                                                        \
    "mov r10, r0\n"                                                       \
    "mov r11, r0\n"                                                       \
    pass                                                                  \
    "adds r2, r2, r7\n"                                                   \
    pass                                                                  \
    "adds r2, r2, r7\n"                                                   \
    pass                                                                  \
    "subs r2, r2, r7\n"                                                   \
    "subs r2, r2, r7\n"                                                   \
    "adds r2, #" step "\n" /* the next strip */                           \
    "subs r3, #36\n"                                                      \
    "mov r0, r12\n"                                                       \
    "mov r1, r8\n"                                                        \
    "str r1, [r0, #0]\n"                                                  \
    "mov r1, r9\n"                                                        \
    "str r1, [r0, #4]\n"                                                  \
    "mov r1, r10\n"                                                       \
    "str r1, [r0, #8]\n"                                                  \
    "mov r1, r11\n"                                                       \
    "str r1, [r0, #12]\n"                                                 \
    "adds r0, #16\n"                                                      \
    "mov r12, r0\n"                                                       \
    "mov r0, lr\n"                                                        \
    "subs r0, #1\n"                                                       \
    "mov lr, r0\n"                                                        \
    "beq 5f\n"                                                            \
    "b 1b\n" /* beyond a conditional branch's reach */                    \
    "5:\n"                                                                \
    FLEX_M0_LEAVE

FLEX_HOT
__attribute__((naked)) void flex__m0_dw3_strips(const uint8_t *p, int32_t pass_stride,
                                                int32_t strips, int32_t *acc,
                                                const int32_t *wk, int32_t base) {
    __asm__ volatile(STRIPS(PASS1, "16"));
}

FLEX_HOT
__attribute__((naked)) void flex__m0_dw3_strips2(const uint8_t *p, int32_t pass_stride,
                                                 int32_t strips, int32_t *acc,
                                                 const int32_t *wk, int32_t base) {
    __asm__ volatile(STRIPS(PASS2, "32"));
}

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
        "mov r9, r4\n" /* shift */
        "ldr r4, [r3, #16]\n"
        "mov r8, r4\n" /* nudge */
        "ldr r4, [r3, #20]\n"
        "mov r10, r4\n" /* act_min */
        "ldr r4, [r3, #24]\n"
        "mov r11, r4\n" /* act_max */
        "ldr r4, [r3, #28]\n"
        "mov r12, r4\n" /* out stride */
        "ldr r4, [r3, #8]\n" /* m2 */
        "ldr r2, [r3, #0]\n" /* m0 */
        "ldr r3, [r3, #4]\n" /* m1 */
        "1:\n"
        "ldm r0!, {r1}\n"
        "mov r7, r1\n"
        "muls r7, r2, r7\n"
        "asrs r7, r7, #11\n"
        "mov r5, r1\n"
        "muls r5, r3, r5\n"
        "adds r5, r5, r7\n"
        "asrs r5, r5, #10\n"
        "muls r1, r4, r1\n"
        "adds r1, r1, r5\n" /* F */
        "lsrs r7, r1, #31\n"
        "lsls r7, r7, #10\n"
        "add r1, r8\n"
        "subs r1, r1, r7\n"
        "mov r7, r9\n"
        "asrs r1, r7\n"
        "cmp r1, r10\n"
        "blt 3f\n"
        "cmp r1, r11\n"
        "bgt 4f\n"
        "2:\n"
        "strb r1, [r6]\n"
        "add r6, r12\n"
        "cmp r0, lr\n"
        "bne 1b\n"
        FLEX_M0_LEAVE
        "3:\n"
        "mov r1, r10\n"
        "b 2b\n"
        "4:\n"
        "mov r1, r11\n"
        "b 2b\n");
}

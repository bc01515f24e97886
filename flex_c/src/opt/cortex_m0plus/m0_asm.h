/* Prologue and epilogue of the Cortex-M0+ assembly kernels that keep values in r4-r11. */
#ifndef FLEX_M0_ASM_H
#define FLEX_M0_ASM_H

/* Saves r4-r7, lr and r8-r11 (36 bytes: a stacked fifth argument is then at [sp, #36]). */
#define FLEX_M0_ENTER                                                              \
    "push {r4-r7, lr}\n" "mov r4, r8\n" "mov r5, r9\n" "mov r6, r10\n" "mov r7, r11\n" \
    "push {r4-r7}\n"

/* Restores what FLEX_M0_ENTER saved and returns. */
#define FLEX_M0_LEAVE                                                              \
    "pop {r4-r7}\n" "mov r8, r4\n" "mov r9, r5\n" "mov r10, r6\n" "mov r11, r7\n"     \
    "pop {r4-r7, pc}\n"

#endif

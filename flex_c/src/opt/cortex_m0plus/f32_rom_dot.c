/* The float32 kernels' dot product on the RP2040 (flex__fdot, FLEX_ROM_FLOAT): a Thumb-1
 * loop that calls the bootrom's single-precision multiply and add straight through the
 * ROM's soft-float table, where C's `acc += x * w` goes through the pico-sdk's wrappers of
 * the same routines (and MicroPython's own __aeabi_fadd in front of them), whose NaN and
 * infinity checks cost about 90 cycles a multiply-accumulate.
 *
 * Same bits: both paths round every product and sum in the same ROM routine, in the same
 * order. The wrappers change a result only when an operand is a NaN or an infinity (a NaN
 * passes through; infinity times zero and infinity minus infinity give a NaN), and the ROM
 * routines never turn such an operand, or an overflow, back into a finite number: any of
 * them leaves the loop's sum infinite. A finite sum is therefore the checked one; an
 * infinite one is computed again through the wrappers (flex__fdot_loop). Denormals are as
 * the ROM makes them (zero, in and out) on both paths. */
#include "../../common/internal.h"

#ifdef FLEX_ROM_FLOAT
#include "m0_asm.h"

#define ROM_DATA_TABLE 0x16u    /* the bootrom's 16-bit pointer to its data table */
#define ROM_SOFT_FLOAT 0x4653u  /* 'S', 'F': the entry of the soft-float table */
#define SF_FADD 0               /* byte offsets of its entries */
#define SF_FMUL 8

/* What rom_dot reads: the ROM routines (Thumb addresses), the steps within a run (bytes)
 * and the runs (flex__fruns). */
typedef struct {
    uint32_t fmul, fadd;
    int32_t xstep, wstep, runs;
    const int32_t *xoff, *woff, *len;
} rom_loop;

static uint32_t rom_fmul, rom_fadd; /* found once (find_rom) */

/* The 16-bit and 32-bit values at a ROM address (asm: address 0 upwards is no C object). */
static uint32_t rom_half(uint32_t at) {
    uint32_t v;
    __asm__ volatile("ldrh %0, [%1]" : "=l"(v) : "l"(at));
    return v;
}

static uint32_t rom_word(uint32_t at) {
    uint32_t v;
    __asm__ volatile("ldr %0, [%1]" : "=l"(v) : "l"(at));
    return v;
}

/* Fills rom_fmul and rom_fadd from the bootrom's data table (left 0 if it has none). */
static void find_rom(void) {
    uint32_t at;
    for (at = rom_half(ROM_DATA_TABLE); rom_half(at); at += 4)
        if (rom_half(at) == ROM_SOFT_FLOAT) {
            const uint32_t table = rom_half(at + 2);
            rom_fadd = rom_word(table + SF_FADD);
            rom_fmul = rom_word(table + SF_FMUL);
            return;
        }
}

/* The float32 bits of acc plus the runs' products, each product fmul(x, w) and each sum
 * fadd(sum, product), as the compiler calls __aeabi_fmul and __aeabi_fadd for
 * `acc += x * w`. Sum in r7, the run's pointers r4 r5 and count r6, the routines r8 r9, the
 * steps r10 r11; on the stack x, w, the loop and the byte offset of the next run. */
FLEX_HOT
__attribute__((naked)) static uint32_t rom_dot(uint32_t acc, const float *x, const float *w,
                                               const rom_loop *loop) {
    __asm__ volatile(
        ".syntax unified\n"
        FLEX_M0_ENTER
        "ldr r4, [r3, #0]\n"
        "mov r8, r4\n"
        "ldr r4, [r3, #4]\n"
        "mov r9, r4\n"
        "ldr r4, [r3, #8]\n"
        "mov r10, r4\n"
        "ldr r4, [r3, #12]\n"
        "mov r11, r4\n"
        "movs r7, r0\n"
        "movs r0, r1\n"
        "movs r1, r2\n"
        "movs r2, r3\n"
        "movs r3, #0\n"
        "push {r0-r3}\n" /* [sp]: x, w, loop, next run */
        "1:\n"           /* a run */
        "ldr r3, [sp, #8]\n"
        "ldr r2, [sp, #12]\n"
        "ldr r1, [r3, #20]\n"
        "ldr r1, [r1, r2]\n"
        "lsls r1, r1, #2\n"
        "ldr r4, [sp, #0]\n"
        "adds r4, r4, r1\n"
        "ldr r1, [r3, #24]\n"
        "ldr r1, [r1, r2]\n"
        "lsls r1, r1, #2\n"
        "ldr r5, [sp, #4]\n"
        "adds r5, r5, r1\n"
        "ldr r1, [r3, #28]\n"
        "ldr r6, [r1, r2]\n"
        "adds r2, #4\n"
        "str r2, [sp, #12]\n"
        "cmp r6, #0\n"
        "ble 3f\n"
        "2:\n" /* a product and a sum */
        "ldr r0, [r4]\n"
        "ldr r1, [r5]\n"
        "add r4, r10\n"
        "add r5, r11\n"
        "blx r8\n" /* r0 = x * w */
        "movs r1, r0\n"
        "movs r0, r7\n"
        "blx r9\n" /* r0 = sum + x * w */
        "movs r7, r0\n"
        "subs r6, #1\n"
        "bne 2b\n"
        "3:\n"
        "ldr r3, [sp, #8]\n"
        "ldr r2, [sp, #12]\n"
        "ldr r1, [r3, #16]\n"
        "lsls r1, r1, #2\n"
        "cmp r2, r1\n"
        "blt 1b\n"
        "add sp, #16\n"
        "movs r0, r7\n"
        FLEX_M0_LEAVE);
}

float flex__fdot(float acc, const float *x, const float *w, const flex__fruns *d) {
    union {
        float f;
        uint32_t u;
    } sum;
    rom_loop loop;
    if (d->runs <= 0)
        return acc;
    if (!rom_fmul || !rom_fadd)
        find_rom();
    if (!rom_fmul || !rom_fadd)
        return flex__fdot_loop(acc, x, w, d);
    loop.fmul = rom_fmul;
    loop.fadd = rom_fadd;
    loop.xstep = d->xs * (int32_t)sizeof(float);
    loop.wstep = d->ws * (int32_t)sizeof(float);
    loop.runs = d->runs;
    loop.xoff = d->xoff;
    loop.woff = d->woff;
    loop.len = d->len;
    sum.f = acc;
    sum.u = rom_dot(sum.u, x, w, &loop);
    if ((sum.u << 1) < 0xff000000u) /* finite */
        return sum.f;
    return flex__fdot_loop(acc, x, w, d);
}
#endif

/* The float32 kernels' dot product on the RP2040 (flex__fdot, FLEX_ROM_FLOAT): a Thumb-1
 * loop that calls the bootrom's single-precision multiply straight through the ROM's
 * soft-float table and adds the products itself, where C's `acc += x * w` goes through the
 * pico-sdk's wrappers of the ROM's fmul and fadd (and MicroPython's own __aeabi_fadd in
 * front of them), whose NaN and infinity checks cost about 90 cycles a multiply-accumulate.
 *
 * Same bits: the products are the ROM's; each sum is the exactly rounded one (round to
 * nearest even), as the ROM's fadd gives it for normal operands and results, and any
 * other sum is the ROM's fadd's. The wrappers change a result only when an operand is a
 * NaN or an infinity (a NaN passes through; infinity times zero and infinity minus
 * infinity give a NaN), and neither the ROM routines nor the loop ever turn such an
 * operand, or an overflow, back into a finite number: any of them leaves the loop's sum
 * infinite. A finite sum is therefore the checked one; an infinite one is computed again
 * through the wrappers (flex__fdot_loop). Denormals are as the ROM makes them (zero, in and
 * out) on both paths. The loop runs from SRAM (FLEX_HOT). */
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
    const float *tail; /* NULL: none */
    /* Rows (flex__fdots): the row's tail, the step to the next row's (bytes), the rows left,
     * the step from one row of w to the next (bytes), where each row's sum goes (NULL: one
     * row, its sum returned) and the bits every row's sum starts from. */
    const float *tails;
    int32_t tstep, rows, wrow;
    uint32_t *out, acc;
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

/* The float32 bits of acc plus the runs' products: each product b = fmul(x, w) in the ROM,
 * as the compiler calls __aeabi_fmul for `x * w`, each sum a + b here, rounded to nearest
 * even as the ROM's fadd rounds it, where a and b are normal, the larger magnitude's
 * exponent lies in [26, 252] (no overflow, no result below the smallest normal) and the
 * smaller's is not 0; else (zeros aside) the ROM's fadd. The mantissas carry 6 guard bits
 * below their 24 and the smaller one's bits shifted out leave a sticky bit: every sum
 * rounds as the exact one would. Then the tail, if any, added the same way. Sum a in r7,
 * the run's pointers r4 r5 and its end r9, fmul r8, the steps r10 r11 (rom_dot_unit: the
 * hidden bit in r10); b kept in ip; on
 * the stack x, w, the loop and the next run. */
#define ROM_DOT(name, STEPS, RUN_END, NEXT_PAIR, HIDDEN_BITS)                               \
    FLEX_HOT __attribute__((naked)) static uint32_t name(                                   \
        uint32_t acc, const float *x, const float *w, const rom_loop *loop) {                \
    __asm__ volatile(                                                                        \
        ".syntax unified\n"                                                                  \
        FLEX_M0_ENTER                                                                        \
        "ldr r4, [r3, #0]\n"                                                                 \
        "mov r8, r4\n"                                                                       \
        STEPS                                                                                \
        "movs r7, r0\n"                                                                      \
        "movs r0, r1\n"                                                                      \
        "movs r1, r2\n"                                                                      \
        "movs r2, r3\n"                                                                      \
        "movs r3, #0\n"                                                                      \
        "push {r0-r3}\n" /* [sp]: x, w, the loop, the next run's byte offset */              \
        "1:\n"           /* a run */                                                         \
        "ldr r3, [sp, #8]\n"                                                                 \
        "ldr r2, [sp, #12]\n"                                                                \
        "ldr r1, [r3, #20]\n"                                                                \
        "ldr r1, [r1, r2]\n"                                                                 \
        "lsls r1, r1, #2\n"                                                                  \
        "ldr r4, [sp, #0]\n"                                                                 \
        "adds r4, r4, r1\n"                                                                  \
        "ldr r1, [r3, #24]\n"                                                                \
        "ldr r1, [r1, r2]\n"                                                                 \
        "lsls r1, r1, #2\n"                                                                  \
        "ldr r5, [sp, #4]\n"                                                                 \
        "adds r5, r5, r1\n"                                                                  \
        "ldr r1, [r3, #28]\n"                                                                \
        "ldr r6, [r1, r2]\n"                                                                 \
        "adds r2, #4\n"                                                                      \
        "str r2, [sp, #12]\n"                                                                \
        "cmp r6, #0\n"                                                                       \
        "ble 3f\n"                                                                           \
        RUN_END                                                                              \
        "adds r1, r1, r4\n"                                                                  \
        "mov r9, r1\n"                                                                       \
        "2:\n" /* b = x * w (ROM), then a + b */                                             \
        NEXT_PAIR                                                                            \
        "blx r8\n"                                                                           \
        "6:\n"                                                                               \
        "mov ip, r0\n"                                                                       \
        "lsls r3, r0, #1\n"                                                                  \
        "beq 20f\n"                                                                          \
        "lsls r2, r7, #1\n"                                                                  \
        "beq 21f\n"                                                                          \
        /* r2, r3: |big| << 1, |small| << 1; r6: big */                                      \
        "movs r6, r7\n"                                                                      \
        "cmp r2, r3\n"                                                                       \
        "bhs 22f\n"                                                                          \
        "movs r6, r0\n"                                                                      \
        "movs r1, r2\n"                                                                      \
        "movs r2, r3\n"                                                                      \
        "movs r3, r1\n"                                                                      \
        "22:\n"                                                                              \
        "lsrs r0, r2, #24\n"                                                                 \
        "lsrs r1, r3, #24\n"                                                                 \
        "beq 29f\n"                                                                          \
        "subs r1, r0, r1\n"                                                                  \
        "subs r0, #26\n"                                                                     \
        "cmp r0, #226\n"                                                                     \
        "bhi 29f\n"                                                                          \
        "lsrs r6, r6, #23\n"                                                                 \
        /* mantissas, hidden bit at 29, 6 guard bits; the small one aligned by d (r1) */     \
        "lsls r2, r2, #8\n"                                                                  \
        "lsrs r2, r2, #3\n"                                                                  \
        "lsls r3, r3, #8\n"                                                                  \
        "lsrs r3, r3, #3\n"                                                                  \
        HIDDEN_BITS                                                                          \
        "cmp r1, #6\n"                                                                       \
        "bhi 23f\n"                                                                          \
        "lsrs r3, r3, r1\n"                                                                  \
        "b 25f\n"                                                                            \
        "23:\n"                                                                              \
        "cmp r1, #30\n"                                                                      \
        "bhi 24f\n"                                                                          \
        "movs r0, r3\n"                                                                      \
        "lsrs r3, r3, r1\n"                                                                  \
        "negs r1, r1\n"                                                                      \
        "adds r1, #32\n"                                                                     \
        "lsls r0, r0, r1\n"                                                                  \
        "beq 25f\n"                                                                          \
        "movs r0, #1\n"                                                                      \
        "orrs r3, r0\n"                                                                      \
        "b 25f\n"                                                                            \
        "24:\n"                                                                              \
        "movs r3, #1\n"                                                                      \
        "25:\n"                                                                              \
        "mov r0, ip\n"                                                                       \
        "eors r0, r7\n"                                                                      \
        "bmi 26f\n"                                                                          \
        "adds r2, r2, r3\n"                                                                  \
        "lsrs r0, r2, #30\n"                                                                 \
        "bne 27f\n"                                                                          \
        /* round at bit 6 (half: bit 5), pack with the exponent in r6 */                     \
        "40:\n"                                                                              \
        "lsrs r3, r2, #6\n"                                                                  \
        "lsls r0, r2, #27\n"                                                                 \
        "bcc 41f\n"                                                                          \
        "bne 42f\n"                                                                          \
        "lsls r0, r3, #31\n"                                                                 \
        "beq 41f\n"                                                                          \
        "42:\n"                                                                              \
        "adds r3, #1\n"                                                                      \
        "41:\n"                                                                              \
        "subs r6, #1\n"                                                                      \
        "lsls r6, r6, #23\n"                                                                 \
        "adds r7, r6, r3\n"                                                                  \
        "cmp r4, r9\n" /* the next pair, without a branch to 28 first */                     \
        "bne 2b\n"                                                                           \
        "b 3f\n"                                                                             \
        /* a carry: round at bit 7, the exponent one up */                                   \
        "27:\n"                                                                              \
        "lsrs r3, r2, #7\n"                                                                  \
        "lsls r0, r2, #26\n"                                                                 \
        "bcc 43f\n"                                                                          \
        "bne 44f\n"                                                                          \
        "lsls r0, r3, #31\n"                                                                 \
        "beq 43f\n"                                                                          \
        "44:\n"                                                                              \
        "adds r3, #1\n"                                                                      \
        "43:\n"                                                                              \
        "lsls r6, r6, #23\n"                                                                 \
        "adds r7, r6, r3\n"                                                                  \
        "cmp r4, r9\n"                                                                       \
        "bne 2b\n"                                                                           \
        "b 3f\n"                                                                             \
        /* signs differ: subtract, then normalize */                                         \
        "26:\n"                                                                              \
        "subs r2, r2, r3\n"                                                                  \
        "beq 45f\n"                                                                          \
        "lsrs r0, r2, #29\n"                                                                 \
        "bne 40b\n"                                                                          \
        "46:\n"                                                                              \
        "lsls r2, r2, #1\n"                                                                  \
        "subs r6, #1\n"                                                                      \
        "lsrs r0, r2, #29\n"                                                                 \
        "beq 46b\n"                                                                          \
        "b 40b\n"                                                                            \
        "45:\n"                                                                              \
        "movs r7, #0\n"                                                                      \
        "b 28f\n"                                                                            \
        /* b = 0: a stays where it is normal, an infinity or a NaN; a = 0: b where b is not a \
         * denormal (a tail may be) */                                                       \
        "20:\n"                                                                              \
        "lsls r2, r7, #1\n"                                                                  \
        "lsrs r2, r2, #24\n"                                                                 \
        "bne 28f\n"                                                                          \
        "b 29f\n"                                                                            \
        "21:\n"                                                                              \
        "lsrs r2, r3, #24\n"                                                                 \
        "beq 29f\n"                                                                          \
        "movs r7, r0\n"                                                                      \
        "b 28f\n"                                                                            \
        /* anything else: the ROM's fadd */                                                  \
        "29:\n"                                                                              \
        "movs r0, r7\n"                                                                      \
        "mov r1, ip\n"                                                                       \
        "ldr r2, [sp, #8]\n"                                                                 \
        "ldr r2, [r2, #4]\n"                                                                 \
        "blx r2\n"                                                                           \
        "movs r7, r0\n"                                                                      \
        "28:\n"                                                                              \
        "cmp r4, r9\n"                                                                       \
        "bne 2b\n"                                                                           \
        "3:\n"                                                                               \
        "cmp r4, #0\n" /* r4 = 0: the tail is added, the row done */                         \
        "beq 5f\n"                                                                           \
        "ldr r3, [sp, #8]\n"                                                                 \
        "ldr r2, [sp, #12]\n"                                                                \
        "ldr r1, [r3, #16]\n"                                                                \
        "lsls r1, r1, #2\n"                                                                  \
        "cmp r2, r1\n"                                                                       \
        "bge 4f\n"                                                                           \
        "b 1b\n"                                                                             \
        "4:\n"                                                                               \
        "ldr r1, [r3, #32]\n" /* the tail: b = *tail, added as a product is */               \
        "cmp r1, #0\n"                                                                       \
        "beq 5f\n"                                                                           \
        "ldr r0, [r1]\n"                                                                     \
        "movs r4, #0\n"                                                                      \
        "mov r9, r4\n"                                                                       \
        "b 6b\n"                                                                             \
        "5:\n" /* the row's sum to *out, then the next row, if any */                        \
        "ldr r3, [sp, #8]\n"                                                                 \
        "ldr r2, [r3, #52]\n"                                                                \
        "cmp r2, #0\n"                                                                       \
        "beq 7f\n"                                                                           \
        "str r7, [r2]\n"                                                                     \
        "adds r2, #4\n"                                                                      \
        "str r2, [r3, #52]\n"                                                                \
        "ldr r1, [r3, #44]\n"                                                                \
        "subs r1, #1\n"                                                                      \
        "str r1, [r3, #44]\n"                                                                \
        "ble 7f\n"                                                                           \
        "ldr r2, [r3, #36]\n"                                                                \
        "ldr r1, [r3, #40]\n"                                                                \
        "adds r2, r2, r1\n"                                                                  \
        "str r2, [r3, #36]\n"                                                                \
        "str r2, [r3, #32]\n"                                                                \
        "ldr r1, [sp, #4]\n"                                                                 \
        "ldr r2, [r3, #48]\n"                                                                \
        "adds r1, r1, r2\n"                                                                  \
        "str r1, [sp, #4]\n"                                                                 \
        "movs r2, #0\n"                                                                      \
        "str r2, [sp, #12]\n"                                                                \
        "ldr r7, [r3, #56]\n"                                                                \
        "b 1b\n"                                                                             \
        "7:\n"                                                                               \
        "add sp, #16\n"                                                                      \
        "movs r0, r7\n"                                                                      \
        FLEX_M0_LEAVE);                                                                      \
    }

/* Any steps: r10 and r11 hold them, the hidden bits are made in place. */
ROM_DOT(rom_dot,
        "ldr r4, [r3, #8]\n" "mov r10, r4\n" "ldr r4, [r3, #12]\n" "mov r11, r4\n",
        "mov r1, r10\n" "muls r1, r6, r1\n",
        "ldr r0, [r4]\n" "ldr r1, [r5]\n" "add r4, r10\n" "add r5, r11\n",
        "movs r0, #1\n" "lsls r0, r0, #29\n" "orrs r2, r0\n" "orrs r3, r0\n")

/* Both steps one float (a fully connected layer's rows): the pairs load with write-back,
 * and r10 keeps the hidden bit (1 << 29), 4 cycles a product less. */
ROM_DOT(rom_dot_unit,
        "movs r4, #1\n" "lsls r4, r4, #29\n" "mov r10, r4\n",
        "lsls r1, r6, #2\n",
        "ldm r4!, {r0}\n" "ldm r5!, {r1}\n",
        "add r2, r10\n" "add r3, r10\n")


typedef uint32_t (*rom_loop_fn)(uint32_t, const float *, const float *, const rom_loop *);

/* The loop for the runs of `d`: rom_dot_unit where both steps are one float. */
static rom_loop_fn loop_for(const flex__fruns *d) {
    return d->xs == 1 && d->ws == 1 ? rom_dot_unit : rom_dot;
}

/* Fills `loop` for the runs of `d`, one row; 0 when the ROM has no soft-float table. */
static int rom_setup(rom_loop *loop, const flex__fruns *d) {
    if (!rom_fmul || !rom_fadd)
        find_rom();
    if (!rom_fmul || !rom_fadd)
        return 0;
    loop->fmul = rom_fmul;
    loop->fadd = rom_fadd;
    loop->xstep = d->xs * (int32_t)sizeof(float);
    loop->wstep = d->ws * (int32_t)sizeof(float);
    loop->runs = d->runs;
    loop->xoff = d->xoff;
    loop->woff = d->woff;
    loop->len = d->len;
    loop->tail = d->tail;
    loop->out = NULL;
    return 1;
}

static int finite_bits(uint32_t bits) {
    return (bits << 1) < 0xff000000u;
}

float flex__fdot(float acc, const float *x, const float *w, const flex__fruns *d) {
    union {
        float f;
        uint32_t u;
    } sum;
    rom_loop loop;
    if (d->runs <= 0)
        return d->tail ? acc + *d->tail : acc;
    if (!rom_setup(&loop, d))
        return flex__fdot_loop(acc, x, w, d);
    sum.f = acc;
    sum.u = loop_for(d)(sum.u, x, w, &loop);
    if (finite_bits(sum.u))
        return sum.f;
    return flex__fdot_loop(acc, x, w, d);
}

void flex__fdots(float acc, const float *x, const float *w, int32_t wrow,
                 const flex__fruns *d, int32_t tstep, int32_t rows, float *out) {
    union {
        float f;
        uint32_t u;
    } start;
    rom_loop loop;
    int32_t r;
    if (rows <= 0 || d->runs <= 0 || !rom_setup(&loop, d)) {
        flex__fdots_loop(acc, x, w, wrow, d, tstep, rows, out);
        return;
    }
    start.f = acc;
    loop.tails = d->tail;
    loop.tstep = d->tail ? tstep * (int32_t)sizeof(float) : 0;
    loop.rows = rows;
    loop.wrow = wrow * (int32_t)sizeof(float);
    loop.out = (uint32_t *)out;
    loop.acc = start.u;
    /* one call for every row: set-up and return once */
    loop_for(d)(start.u, x, w, &loop);
    for (r = 0; r < rows; r++) {
        union {
            float f;
            uint32_t u;
        } v;
        v.f = out[r];
        if (!finite_bits(v.u)) { /* through the checked wrappers, as flex__fdot does */
            flex__fruns row = *d;
            row.tail = d->tail ? d->tail + r * tstep : NULL;
            out[r] = flex__fdot_loop(acc, x, w + r * wrow, &row);
        }
    }
}
#endif

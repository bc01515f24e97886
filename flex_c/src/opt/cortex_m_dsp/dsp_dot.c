/* int8 dot products on the DSP extension (dsp_dot.h). */
#include "dsp_dot.h"
#include "dsp_ops.h"

void flex__dsp_widen(const int8_t *x, int32_t k, int32_t offset, int32_t lanes, int32_t lane,
                     int32_t *xq) {
    const int32_t groups = k >> 2, offsets = (int32_t)(((uint32_t)offset & 0xFFFF) * 0x10001u);
    int32_t *dst = xq + 2 * lane, *tail = xq + 2 * lanes * groups + lane;
    int32_t g, t;
    for (g = 0; g < groups; g++, x += 4, dst += 2 * lanes) {
        const int32_t v = flex__dsp_load(x);
        dst[0] = flex__dsp_sadd16(flex__dsp_sxtb16(v), offsets);
        dst[1] = flex__dsp_sadd16(flex__dsp_sxtb16_ror8(v), offsets);
    }
    for (t = 0; t < (k & 3); t++, tail += lanes)
        *tail = x[t] + offset;
}

/* The state of a loop over blocks of rows (field offsets are read by the assembly). */
typedef struct {
    const int32_t *xq, *end; /* 0, 4: the widened groups */
    const int8_t *w;         /* 8: row 0 of the first block */
    int32_t off[3];          /* 12-20: rows 1-3 from row 0, less 4 (row 0 post-increments) */
    int32_t *acc;            /* 24: where the next block's four sums go */
    int32_t blocks;          /* 28: blocks left (at least one) */
    int32_t step;            /* 32: from row 0's end in one block to row 0 of the next */
} rows_loop;

/* Block loop of the kernels below: reload xq, clear r4-r7, run the groups (BODY, unrolled
 * twice; an odd count enters at the second copy; GROUP is the bytes of xq one group takes),
 * store r4-r7 at acc, step to the next block. The inner loop holds every register but sp,
 * so the loop state stays in l (at [sp]). */
#define BLOCKS(GROUP, BODY)          \
    ".syntax unified\n"              \
    "push {r4-r11, lr}\n"            \
    "push {r0}\n"                    \
    "ldr r1, [r0, #4]\n"             \
    "ldr r2, [r0, #8]\n"             \
    "ldr r3, [r0, #12]\n"            \
    "ldr r10, [r0, #16]\n"           \
    "ldr r11, [r0, #20]\n"           \
    "5:\n"                           \
    "ldr r0, [sp]\n"                 \
    "ldr r0, [r0]\n"                 \
    "movs r4, #0\n"                  \
    "movs r5, #0\n"                  \
    "movs r6, #0\n"                  \
    "movs r7, #0\n"                  \
    "subs r12, r1, r0\n"             \
    "beq 2f\n"                       \
    "tst r12, #" GROUP "\n"          \
    "bne 3f\n"                       \
    "1:\n" BODY                      \
    "3:\n" BODY                      \
    "cmp r0, r1\n"                   \
    "bne 1b\n"                       \
    "2:\n"                           \
    "ldr r12, [sp]\n"                \
    "ldr lr, [r12, #24]\n"           \
    "stm lr!, {r4-r7}\n"             \
    "str lr, [r12, #24]\n"           \
    "ldr lr, [r12, #32]\n"           \
    "add r2, lr\n"                   \
    "ldr lr, [r12, #28]\n"           \
    "subs lr, #1\n"                  \
    "str lr, [r12, #28]\n"           \
    "bne 5b\n"                       \
    "pop {r0}\n"                     \
    "pop {r4-r11, pc}\n"

/* One weight word (at ADDR) split into r12 (bytes 0, 2) and lr (bytes 1, 3). */
#define SPLIT(ADDR)                  \
    "ldr lr, " ADDR "\n"             \
    "sxtb16 r12, lr\n"               \
    "sxtb16 lr, lr, ror #8\n"

/* Four rows over one lane: per group of four elements LDRD, four LDR, eight SXTB16 and
 * eight SMLAD (sums r4-r7: rows 0-3). */
FLEX_HOT
__attribute__((naked)) static void groups4(rows_loop *l) {
    __asm__ volatile(BLOCKS("8",
        "ldrd r8, r9, [r0], #8\n"
        SPLIT("[r2], #4")
        "smlad r4, r12, r8, r4\n"
        "smlad r4, lr, r9, r4\n"
        SPLIT("[r2, r3]")
        "smlad r5, r12, r8, r5\n"
        "smlad r5, lr, r9, r5\n"
        SPLIT("[r2, r10]")
        "smlad r6, r12, r8, r6\n"
        "smlad r6, lr, r9, r6\n"
        SPLIT("[r2, r11]")
        "smlad r7, r12, r8, r7\n"
        "smlad r7, lr, r9, r7\n"));
}

/* Two rows over two lanes: per group LDM of four words, two LDR, four SXTB16 and eight
 * SMLAD (sums r4-r7: row 0 lanes 0 and 1, row 1 lanes 0 and 1). */
FLEX_HOT
__attribute__((naked)) static void groups2x2(rows_loop *l) {
    __asm__ volatile(BLOCKS("16",
        "ldm r0!, {r8-r11}\n"
        SPLIT("[r2], #4")
        "smlad r4, r12, r8, r4\n"
        "smlad r4, lr, r9, r4\n"
        "smlad r5, r12, r10, r5\n"
        "smlad r5, lr, r11, r5\n"
        SPLIT("[r2, r3]")
        "smlad r6, r12, r8, r6\n"
        "smlad r6, lr, r9, r6\n"
        "smlad r7, r12, r10, r7\n"
        "smlad r7, lr, r11, r7\n"));
}

/* Runs `kernel` over the rows of w (k each) in blocks of `per` (4 or 2) rows, sums to acc
 * (`lanes` per row); a last partial block reads its missing rows as copies of its last
 * row, so that every load stays inside the filter. */
static void run_blocks(void (*kernel)(rows_loop *), int32_t per, int32_t lanes,
                       const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                       int32_t *acc) {
    const int32_t groups = k >> 2, full = rows / per, n = rows % per;
    int32_t last[4], i;
    rows_loop l;
    l.xq = xq;
    l.end = xq + 2 * lanes * groups;
    l.w = w;
    for (i = 0; i < 3; i++)
        l.off[i] = (i + 1) * k - 4;
    l.step = per * k - 4 * groups;
    if (full) {
        l.acc = acc;
        l.blocks = full;
        kernel(&l);
    }
    if (n) {
        l.w = w + full * per * k;
        for (i = 0; i < 3; i++)
            l.off[i] = (i + 1 < n ? i + 1 : n - 1) * k - 4;
        l.acc = last;
        l.blocks = 1;
        kernel(&l);
        for (i = 0; i < n * lanes; i++)
            acc[full * per * lanes + i] = last[i];
    }
}

/* Adds the last k % 4 elements of every row (xq's trailing words, `lanes` interleaved). */
static void add_tails(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                      int32_t lanes, int32_t *acc) {
    const int32_t groups = k >> 2, *xt = xq + 2 * lanes * groups;
    int32_t r, lane, t;
    for (r = 0; r < rows; r++)
        for (lane = 0; lane < lanes; lane++)
            for (t = 0; t < (k & 3); t++)
                acc[r * lanes + lane] += xt[t * lanes + lane] * w[r * k + 4 * groups + t];
}

void flex__dsp_dot_rows(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                        int32_t *acc) {
    run_blocks(groups4, 4, 1, xq, k, w, rows, acc);
    if (k & 3)
        add_tails(xq, k, w, rows, 1, acc);
}

void flex__dsp_dot_rows2(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                         int32_t *acc) {
    run_blocks(groups2x2, 2, 2, xq, k, w, rows, acc);
    if (k & 3)
        add_tails(xq, k, w, rows, 2, acc);
}

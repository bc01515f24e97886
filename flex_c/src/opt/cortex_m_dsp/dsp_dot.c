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
        dst[0] = flex__dsp_sxtab16(offsets, v);
        dst[1] = flex__dsp_sxtab16_ror8(offsets, v);
    }
    for (t = 0; t < (k & 3); t++, tail += lanes)
        *tail = x[t] + offset;
}

/* The state of a loop over blocks of rows (field offsets are read by the assembly). */
typedef struct {
    const void *xq, *end;    /* 0, 4: the vector's groups (widened, or int8) */
    const int8_t *w;         /* 8: row 0 of the first block */
    int32_t off[2];          /* 12, 16: the kernel's row offsets (block_offsets) */
    int32_t *acc;            /* 20: where the next block's four sums go */
    int32_t blocks;          /* 24: blocks left (GROUPS4 takes 0, else at least one) */
    int32_t step;            /* 28: from row 0's end in one block to row 0 of the next */
    int32_t tail;            /* 32: rows (0-2) that GROUPS4 runs after the blocks */
} rows_loop;

/* Block loop of the kernels below: reload xq, run HEADER, clear r4-r7, run the groups
 * (BODY, unrolled four times; a count that is not a multiple of four enters at the copy
 * that leaves the rest; GROUP, a power of two, is the bytes of xq one group takes), store
 * r4-r7 at acc, step to the next block. The inner loop holds every register but sp, so the
 * loop state stays in l (at [sp], pushed by BLOCKS_ENTER, popped by BLOCKS_EXIT). */
#define BLOCKS_ENTER                 \
    ".syntax unified\n"              \
    "push {r4-r11, lr}\n"            \
    "push {r0}\n"                    \
    "ldr r1, [r0, #4]\n"             \
    "ldr r2, [r0, #8]\n"             \
    "ldr r3, [r0, #12]\n"            \
    "mov r12, r0\n"
/* Entered with r12 = l, which it leaves there. */
#define BLOCKS_LOOP(GROUP, HEADER, BODY) \
    "5:\n"                           \
    "ldr r0, [r12]\n" HEADER         \
    "movs r4, #0\n"                  \
    "movs r5, #0\n"                  \
    "movs r6, #0\n"                  \
    "movs r7, #0\n"                  \
    "subs r12, r1, r0\n"             \
    "beq 2f\n"                       \
    "ands r12, r12, #3*" GROUP "\n"  \
    "beq 1f\n"                       \
    "cmp r12, #2*" GROUP "\n"        \
    "bhi 6f\n"                       \
    "beq 7f\n"                       \
    "b 8f\n"                         \
    "1:\n" BODY                      \
    "6:\n" BODY                      \
    "7:\n" BODY                      \
    "8:\n" BODY                      \
    "cmp r0, r1\n"                   \
    "bne 1b\n"                       \
    "2:\n"                           \
    "ldr r12, [sp]\n"                \
    "ldr lr, [r12, #20]\n"           \
    "stm lr!, {r4-r7}\n"             \
    "str lr, [r12, #20]\n"           \
    "ldr lr, [r12, #28]\n"           \
    "add r2, lr\n"                   \
    "ldr lr, [r12, #24]\n"           \
    "subs lr, #1\n"                  \
    "str lr, [r12, #24]\n"           \
    "bne 5b\n"
#define BLOCKS_EXIT                  \
    "pop {r0}\n"                     \
    "pop {r4-r11, pc}\n"
#define BLOCKS(GROUP, HEADER, BODY) \
    BLOCKS_ENTER BLOCKS_LOOP(GROUP, HEADER, BODY) BLOCKS_EXIT

/* One weight word (at ADDR) split into r12 (bytes 0, 2) and lr (bytes 1, 3). */
#define SPLIT(ADDR)                  \
    "ldr lr, " ADDR "\n"             \
    "sxtb16 r12, lr\n"               \
    "sxtb16 lr, lr, ror #8\n"

/* Word REG (bytes 0-3 of a row) into lr (bytes 0, 2) and REG (bytes 1, 3), then its two
 * SMLADs with the widened pair r8, r9 into SUM. */
#define MAC_WORD(REG, SUM)                          \
    "sxtb16 lr, " REG "\n"                          \
    "sxtb16 " REG ", " REG ", ror #8\n"             \
    "smlad " SUM ", lr, r8, " SUM "\n"              \
    "smlad " SUM ", " REG ", r9, " SUM "\n"

/* A group of the vector into the pair r8 (elements 0, 2), r9 (1, 3): two words of the
 * widened vector, or one word of int8 elements split by two SXTB16. */
#define X_WIDENED                    \
    "ldr r8, [r0], #4\n"             \
    "ldr r9, [r0], #4\n"
#define X_S8                         \
    "ldr r9, [r0], #4\n"             \
    "sxtb16 r8, r9\n"                \
    "sxtb16 r9, r9, ror #8\n"

/* Rows 0 and 1 over one lane: per group of four elements two weight LDR (back to back,
 * so that the second load pipelines, then X's), four SXTB16 and four SMLAD (sums r4, r5).
 * Row 1 is read at r2 + r3. */
#define ROWS01(X)                    \
    "ldr r11, [r2, r3]\n"            \
    "ldr r12, [r2], #4\n"            \
    X                                \
    MAC_WORD("r12", "r4")            \
    MAC_WORD("r11", "r5")

/* Four rows over one lane: ROWS01, then rows 2 and 3 at r10 (row 0 plus off[1], set per
 * block) and r10 + r3: per group four weight LDR, eight SXTB16 and eight SMLAD besides
 * X's (sums r4-r7: rows 0-3). Then, in the same call, a last block of l->tail rows (one:
 * row 1 reads row 0; two) runs the groups of ROWS01 alone (r6, r7 stay 0). */
#define GROUPS4(GROUP, X)            \
    BLOCKS_ENTER                     \
    "ldr lr, [r12, #24]\n"           \
    "cmp lr, #0\n"                   \
    "beq 3f\n"                       \
    BLOCKS_LOOP(GROUP,               \
        "ldr r10, [r12, #16]\n"      \
        "add r10, r2\n",             \
        ROWS01(X)                    \
        "ldr r11, [r10, r3]\n"       \
        "ldr r12, [r10], #4\n"       \
        MAC_WORD("r12", "r6")        \
        MAC_WORD("r11", "r7"))       \
    "3:\n"                           \
    "ldr lr, [r12, #32]\n"           \
    "cmp lr, #1\n"                   \
    "blo 4f\n"                       \
    "it eq\n"                        \
    "moveq r3, #0\n"                 \
    "movs lr, #1\n"                  \
    "str lr, [r12, #24]\n"           \
    BLOCKS_LOOP(GROUP, "", ROWS01(X)) \
    "4:\n" BLOCKS_EXIT

/* Four rows over the widened vector, and over an int8 vector (one more instruction per
 * group). */
FLEX_HOT
__attribute__((naked)) static void groups4(rows_loop *l) {
    __asm__ volatile(GROUPS4("8", X_WIDENED));
}

FLEX_HOT
__attribute__((naked)) static void groups4_s8(rows_loop *l) {
    __asm__ volatile(GROUPS4("4", X_S8));
}

/* Two rows over two lanes: per group LDM of four words, two LDR, four SXTB16 and eight
 * SMLAD (sums r4-r7: row 0 lanes 0 and 1, row 1 lanes 0 and 1). */
FLEX_HOT
__attribute__((naked)) static void groups2x2(rows_loop *l) {
    __asm__ volatile(BLOCKS("16", "",
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

/* A kind of block loop: `blocks` over blocks of 1 << `shift` rows (4: GROUPS4, 2:
 * groups2x2); `group` bytes of the vector per group of four elements. */
typedef struct {
    void (*blocks)(rows_loop *);
    int8_t shift, group;
} blocks_kind;

static const blocks_kind widened4 = {groups4, 2, 8};
static const blocks_kind s8_4 = {groups4_s8, 2, 4};
static const blocks_kind widened2x2 = {groups2x2, 1, 16};

/* Sets l's row offsets for a block of m rows of k elements: GROUPS4's rows 1-3 at off[0],
 * off[1] and both (a block of three sums rows 0, 1, 1, 2, so that every load stays inside
 * the filter); groups2x2's row 1 at off[0] + 4 (row 0 post-increments first). */
FLEX_INLINE void block_offsets(rows_loop *l, int32_t per, int32_t m, int32_t k) {
    if (per == 4) {
        l->off[0] = k;
        l->off[1] = (m == 3 ? 1 : 2) * k;
    } else {
        l->off[0] = (m > 1 ? k : 0) - 4;
    }
}

/* Runs kind d over the rows of w (k each) against the vector x, sums to acc; the last
 * block, short or not, stores a whole block's sums. */
FLEX_INLINE void run_blocks(const blocks_kind *d, const void *x, int32_t k, const int8_t *w,
                            int32_t rows, int32_t *acc) {
    const int32_t groups = k >> 2, per = 1 << d->shift, full = rows >> d->shift,
                  n = rows & (per - 1);
    rows_loop l;
    l.xq = x;
    l.end = (const int8_t *)x + groups * d->group;
    l.step = per * k - 4 * groups;
    l.w = w;
    l.acc = acc;
    block_offsets(&l, per, per, k);
    l.blocks = full;
    l.tail = per == 4 && n < 3 ? n : 0;
    if (full || l.tail)
        d->blocks(&l);
    if (n && !l.tail) { /* three rows of a block of four, or one of two */
        l.w = w + full * per * k;
        block_offsets(&l, per, n, k);
        l.blocks = 1;
        d->blocks(&l);
        if (n == 3)
            acc[4 * full + 2] = acc[4 * full + 3];
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
    run_blocks(&widened4, xq, k, w, rows, acc);
    if (k & 3)
        add_tails(xq, k, w, rows, 1, acc);
}

void flex__dsp_dot_rows2(const int32_t *xq, int32_t k, const int8_t *w, int32_t rows,
                         int32_t *acc) {
    run_blocks(&widened2x2, xq, k, w, rows, acc);
    if (k & 3)
        add_tails(xq, k, w, rows, 2, acc);
}

void flex__dsp_dot_rows_s8(const int8_t *x, int32_t k, const int8_t *w, int32_t rows,
                           int32_t *acc) {
    run_blocks(&s8_4, x, k, w, rows, acc);
}

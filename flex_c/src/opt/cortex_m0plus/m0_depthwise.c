/* Cortex-M0+ 3x3 depthwise convolution (see flex__m0_depthwise_3x3 below): a tile of four
 * channels, strips of four outputs in assembly, then m0_requant.h per line. Stack: about
 * 2.3 KB (tile and line sums).
 *
 * A strip keeps its four accumulators in r8-r11 and one pass's three weights in r4-r6; each
 * tile byte is loaded once per pass and multiplied into every window of the strip that
 * covers it, so a MAC costs a MULS, an ADD and mostly a MOV. */
#include "m0_asm.h"
#include "m0_depthwise.h"
#include "m0_requant.h"

typedef int32_t word_t __attribute__((may_alias));
typedef uint16_t half_t __attribute__((may_alias));

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

/* Sums of `strips` strips of four consecutive 3x3 windows of one channel of a tile of
 * unsigned bytes, one tile pixel every 4 bytes: window t of strip s starts at
 * p + 16 s + 4 t (stride 1; p + 32 s + 8 t with stride 2), its three passes (kernel lines)
 * lie pass_stride bytes apart, and pass k multiplies taps 0, 1, 2 along the strip by
 * wk[3k], wk[3k + 1], wk[3k + 2]. acc[4 s + t] = base + sum of the window's nine products.
 * The strips loop around three passes; `step` bytes from one strip to the next. */
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
static __attribute__((naked)) void dw3_strips(const uint8_t *p, int32_t pass_stride,
                                              int32_t strips, int32_t *acc, const int32_t *wk,
                                              int32_t base) {
    __asm__ volatile(STRIPS(PASS1, "16"));
}

FLEX_HOT
static __attribute__((naked)) void dw3_strips2(const uint8_t *p, int32_t pass_stride,
                                               int32_t strips, int32_t *acc, const int32_t *wk,
                                               int32_t base) {
    __asm__ volatile(STRIPS(PASS2, "32"));
}

#define DW_TILE_WORDS 256 /* padded window rows x columns, one word per pixel (4 channels) */
#define DW_LINE_MAX 128   /* outputs per line */

/* Where the tile of flex__m0_depthwise_3x3 keeps pixel (ty, tx):
 * byte 4 (ty * ys + tx * xs) + lane. */
typedef struct {
    int32_t ys, xs;
} tile_layout;

/* One channel in C, one output at a time, over oh x ow outputs whose windows start at the
 * tile's origin: strides other than 1 and 2 and channels whose accumulators may leave the
 * fast range of their requantization. wk in kernel order. Not inlined: a rare path, kept
 * out of the registers of the tile loops. */
__attribute__((noinline)) static void dw3x3_channel_c(const uint8_t *tile, tile_layout t,
                                                      const int32_t *wk, const flex__m0_rq *rq,
                                                      const flex_window *win,
                                                      const flex_s8_quant *q, int32_t oh,
                                                      int32_t ow, int32_t C, int8_t *output) {
    const int32_t ys = t.ys * 4, xs = t.xs * 4;
    int32_t oy, ox, k;
    for (oy = 0; oy < oh; oy++)
        for (ox = 0; ox < ow; ox++) {
            const uint8_t *r = tile + oy * win->stride_h * ys + ox * win->stride_w * xs;
            int32_t acc = 0;
            for (k = 0; k < 9; k++)
                acc += wk[k] * r[(k / 3) * ys + (k % 3) * xs];
            flex__m0_requant_each(&acc, rq, 1, output + (oy * ow + ox) * C, q);
        }
}

/* Tile row at `iy` of the image: pw words xs apart from `dst`, each four channels (c0..c0+3)
 * of one pixel offset by +128, or `pad` outside the image. */
static void fill_tile_row(uint32_t *dst, int32_t xs, int32_t pw, const int8_t *image,
                          const flex_dims4 *in, int32_t c0, int32_t iy, int32_t pad_left,
                          uint32_t pad) {
    const int inside = iy >= 0 && iy < in->h;
    const int32_t left = !inside ? pw : (pad_left < pw ? pad_left : pw);
    const int32_t end = !inside ? pw : (pad_left + in->w < pw ? pad_left + in->w : pw);
    int32_t tx;
    for (tx = 0; tx < left; tx++, dst += xs)
        *dst = pad;
    if (tx < end) { /* the arena may place an int8 tensor at any byte */
        const int8_t *src = image + (iy * in->w + tx - pad_left) * in->c + c0;
        if (((uintptr_t)src & 3) == 0) {
            for (; tx < end; tx++, dst += xs, src += in->c)
                *dst = (uint32_t) * (const word_t *)src ^ 0x80808080u;
        } else if (((uintptr_t)src & 1) == 0) {
            for (; tx < end; tx++, dst += xs, src += in->c)
                *dst = ((uint32_t)((const half_t *)src)[0] |
                        (uint32_t)((const half_t *)src)[1] << 16) ^ 0x80808080u;
        } else {
            for (; tx < end; tx++, dst += xs, src += in->c)
                *dst = ((uint32_t)(uint8_t)src[0] | (uint32_t)(uint8_t)src[1] << 8 |
                        (uint32_t)(uint8_t)src[2] << 16 | (uint32_t)(uint8_t)src[3] << 24) ^
                       0x80808080u;
        }
    }
    for (; tx < pw; tx++, dst += xs)
        *dst = pad;
}

/* How flex__m0_depthwise_3x3 walks an image: the tile's layout and size, and its bands of output
 * rows. */
typedef struct {
    tile_layout t;
    int tall;                 /* lines run down the columns (the whole image in one tile) */
    int32_t rows, cols;       /* tile rows filled per band (at most), columns per row */
    int32_t band;             /* output rows per band */
    int32_t lines, n;         /* lines per band (all of them when tall), outputs per line */
} dw_plan;

/* The tile plan of a 3x3 window over out; 0 when no tile of 3 rows fits. With strips (of
 * four outputs, stride s) every line spans at least the 3 s + 3 pixels a strip reads. */
static int dw_plan_for(const flex_dims4 *out, const flex_window *win, int strips,
                       dw_plan *pl) {
    const int32_t s = win->stride_w, sh = win->stride_h;
    const int32_t span = strips ? 3 * s + 3 : 3;
    const int32_t ph = (out->h - 1) * sh + 3, pw = (out->w - 1) * s + 3;
    const int32_t pitch_h = ph > span ? ph : span, pitch_w = pw > span ? pw : span;
    int32_t cap;
    if (out->h > out->w && pw * pitch_h <= DW_TILE_WORDS) {
        pl->tall = 1;
        pl->t.ys = 1;
        pl->t.xs = pitch_h;
        pl->rows = pitch_h;
        pl->cols = pw;
        pl->band = out->h;
        pl->lines = out->w;
        pl->n = out->h;
    } else {
        cap = DW_TILE_WORDS / pitch_w;
        if (cap < 3)
            return 0;
        pl->tall = 0;
        pl->t.ys = pitch_w;
        pl->t.xs = 1;
        pl->band = (cap - 3) / sh + 1;
        if (pl->band > out->h)
            pl->band = out->h;
        pl->rows = (pl->band - 1) * sh + 3;
        pl->cols = pitch_w;
        pl->lines = pl->band;
        pl->n = out->w;
    }
    return pl->n <= DW_LINE_MAX;
}

/* One 3x3 channel's constants: weights in pass order (taps along the line inner), the
 * base (bias and folded offsets), the requantization for the strips' lines, and whether
 * strips may run. */
typedef struct {
    int32_t wk[9];
    int32_t base;
    flex__m0_line_rq line;
    int fast;
} dw_channel;

static void dw_channel_init(const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
                            const int32_t *shift, const flex_s8_quant *q, int32_t C, int32_t c,
                            int tall, int32_t out_step, dw_channel *d) {
    const int32_t e = flex__m0_fast_range(multiplier[c], shift[c]);
    const int8_t *f = filter + c;
    uint32_t sum = 0, mag = 0, bound = bias ? (uint32_t)(bias[c] < 0 ? -bias[c] : bias[c]) : 0u;
    int32_t ky, kx;
    for (ky = 0; ky < 3; ky++) {
        int32_t *dst = d->wk + (tall ? ky : 3 * ky);
        for (kx = 0; kx < 3; kx++, f += C, dst += tall ? 3 : 1) {
            const int32_t w = *f;
            *dst = w;
            sum += (uint32_t)w;
            mag += (uint32_t)(w < 0 ? -w : w);
        }
    }
    d->base = (int32_t)((uint32_t)(bias ? bias[c] : 0) + sum * (uint32_t)(q->input_offset - 128));
    /* every true accumulator (bias + sum of w * (x - zp)) within the fast range */
    bound += mag * 255u;
    d->fast = e != FLEX_M0_RQ_NONE && bound < (uint32_t)1 << e;
    if (d->fast)
        flex__m0_line_rq_init(&d->line, multiplier[c], shift[c], q, out_step);
}

/* Strips of four outputs (assembly) over the n >= 1 outputs of a run of windows s pixels
 * apart from `lane` into acc[0:n] (the last strip overlapping its neighbour, or reading past
 * a run shorter than four). */
FLEX_INLINE void dw_run(const uint8_t *lane, int32_t pass, int32_t n, int32_t s,
                        const int32_t *wk, int32_t base, int32_t *acc) {
    void (*strips)(const uint8_t *, int32_t, int32_t, int32_t *, const int32_t *, int32_t) =
        s == 1 ? dw3_strips : dw3_strips2;
    strips(lane, pass, n < 4 ? 1 : n / 4, acc, wk, base);
    if (n > 4 && n % 4)
        strips(lane + (n - 4) * s * 4, pass, 1, acc + n - 4, wk, base);
}

/* Strips (and calls, of about a quarter of a strip's cost) of dw_run over n outputs, in
 * strip units times 4. */
static int32_t dw_run_cost(int32_t n) {
    return n <= 4 ? 5 : 4 * (n / 4) + (n % 4 ? 5 : 1);
}

/* One channel (lane of the tile) over `lines` lines of the band whose outputs start at
 * `output`: dw_run line by line, or over all lines at once as one run through the tile
 * when that costs less (line l's outputs then start at run position l * pitch; the
 * positions between lines are windows across the tile's edge, computed and dropped), then
 * flex__m0_requant_line per line. */
static void dw_channel_strips(const uint8_t *lane, const dw_plan *pl, int32_t lines,
                              int32_t s, const dw_channel *d, int32_t line_step,
                              int8_t *output) {
    int32_t acc[DW_LINE_MAX];
    const int32_t pass = (pl->tall ? pl->t.xs : pl->t.ys) * 4, n = pl->n;
    const int32_t pitch = pass / 4, whole = (lines - 1) * pitch + n;
    const int flat = whole <= DW_LINE_MAX && dw_run_cost(whole) < lines * dw_run_cost(n);
    int32_t line;
    if (flat)
        dw_run(lane, pass, whole, s, d->wk, d->base, acc);
    for (line = 0; line < lines; line++) {
        if (!flat)
            dw_run(lane + line * s * pass, pass, n, s, d->wk, d->base, acc);
        flex__m0_requant_line(acc + (flat ? line * pitch : 0), n, output + line * line_step,
                              &d->line);
    }
}

/* 3x3 depthwise convolution (depth multiplier 1, no dilation) four channels at a time: the
 * padded window region of the four channels is copied into a word-per-pixel tile, offset
 * by +128 (so that taps are unsigned byte loads; -128 * sum(weights) joins the bias) with
 * padding holding the input zero point; an image whose tile does not fit runs in bands of
 * output rows, each band's tile keeping the window rows it shares with the last one. With
 * strides 1 or 2 each channel runs line by line (along the longer output side when the whole
 * image fits) in strips of four outputs (dw_channel_strips). Returns 0 for shapes it does
 * not cover. */
int flex__m0_depthwise_3x3(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                            const int32_t *bias, const int32_t *multiplier,
                            const int32_t *shift, const flex_window *win,
                            int32_t depth_multiplier, const flex_s8_quant *q,
                            const flex_dims4 *out, int8_t *output) {
    uint32_t tile[DW_TILE_WORDS];
    dw_channel ch[4];
    dw_plan pl;
    const int32_t C = in->c, s = win->stride_w, sh = win->stride_h;
    const int strips = s == sh && (s == 1 || s == 2);
    const int32_t keep = sh < 3 ? 3 - sh : 0; /* window rows one band shares with the next */
    const uint32_t pad = (uint32_t)(128 - q->input_offset) * 0x01010101u;
    int32_t b, c0, j, k, ty, oy0, nb, rows, out_step, line_step;
    if (depth_multiplier != 1 || win->kernel_h != 3 || win->kernel_w != 3 ||
        win->dilation_h != 1 || win->dilation_w != 1 || C % 4 != 0 ||
        !dw_plan_for(out, win, strips, &pl))
        return 0;
    /* An output over its input overwrites, channel group by channel group, input bytes of
     * the same channels only when the distance is whole pixels: in one tile those are
     * already read; in bands, below the input they are pixels of rows earlier bands read. */
    if (flex__s8_overlap(input, (size_t)in->n * in->h * in->w * C, output,
                         (size_t)out->n * out->h * out->w * C) &&
        (((intptr_t)input - (intptr_t)output) % C != 0 ||
         (pl.band < out->h && ((uintptr_t)output > (uintptr_t)input || win->pad_top > keep ||
                               sh * in->w < out->w))))
        return 0;
    out_step = (pl.tall ? out->w : 1) * C;
    line_step = (pl.tall ? 1 : out->w) * C;
    for (b = 0; b < out->n; b++) {
        const int8_t *image = input + b * in->h * in->w * C;
        int8_t *out_image = output + b * out->h * out->w * C;
        for (c0 = 0; c0 < C; c0 += 4) {
            for (j = 0; j < 4; j++)
                dw_channel_init(filter, bias, multiplier, shift, q, C, c0 + j, pl.tall,
                                out_step, &ch[j]);
            for (oy0 = 0; oy0 < out->h; oy0 += nb) {
                nb = out->h - oy0 < pl.band ? out->h - oy0 : pl.band;
                rows = pl.tall ? pl.rows : (nb - 1) * sh + 3;
                ty = 0;
                if (oy0 > 0) /* the rows this band shares with the last one */
                    for (; ty < keep; ty++)
                        for (k = 0; k < pl.cols; k++)
                            tile[ty * pl.t.ys + k] = tile[(pl.band * sh + ty) * pl.t.ys + k];
                for (; ty < rows; ty++)
                    fill_tile_row(tile + ty * pl.t.ys, pl.t.xs, pl.cols, image, in, c0,
                                  oy0 * sh + ty - win->pad_top, win->pad_left, pad);
                for (j = 0; j < 4; j++) {
                    const uint8_t *lane = (const uint8_t *)tile + j;
                    int8_t *o = out_image + oy0 * out->w * C + c0 + j;
                    int32_t wk[9];
                    flex__m0_rq rq;
                    if (strips && ch[j].fast) {
                        dw_channel_strips(lane, &pl, pl.tall ? pl.lines : nb, s, &ch[j],
                                          line_step, o);
                        continue;
                    }
                    for (k = 0; k < 9; k++)
                        wk[k] = filter[k * C + c0 + j];
                    flex__m0_rq_init(&rq, ch[j].base, multiplier[c0 + j], shift[c0 + j]);
                    dw3x3_channel_c(lane, pl.t, wk, &rq, win, q, nb, out->w, C, o);
                }
            }
        }
    }
    return 1;
}


/* Internal helpers shared by the kernels: validation, TFLM fixed-point, float math. */
#ifndef FLEX_INTERNAL_H
#define FLEX_INTERNAL_H

#include "flex.h"

/* Window limits keep every index computation inside int32 (see flex__check_window). */
#define FLEX_MAX_SPATIAL (1 << 24)
#define FLEX_MAX_KERNEL 4096
#define FLEX_MAX_STEP 65536

/* Placement of the hot int8 code: the innermost loops that run per multiply-accumulate (the
 * Cortex-M0+ dot products, packing, per-output requantization loops), not the entry points
 * or per-call set-up, so that little RAM is taken. Empty by default. A firmware may set it
 * to a section attribute that its startup code copies to RAM, so those loops do not wait on
 * flash (the rp2 port's micropython/micropython.cmake puts them in pico-sdk's
 * `.time_critical` sections). */
#ifndef FLEX_HOT
#define FLEX_HOT
#endif

#define FLEX_TRY(expr)                 \
    do {                               \
        flex_status flex__st = (expr); \
        if (flex__st != FLEX_OK)       \
            return flex__st;           \
    } while (0)

/* Wrapping int32 arithmetic (two's complement, no signed-overflow UB). */
#define FLEX_WADD(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define FLEX_WSUB(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)))
#define FLEX_WMUL(a, b) ((int32_t)((uint32_t)(a) * (uint32_t)(b)))

/* ---- validation (common/validate.c) ---- */
flex_status flex__count(const flex_dims4 *d, int32_t *count);
flex_status flex__product(int32_t a, int32_t b, int32_t *out);
flex_status flex__check_len(size_t len, int32_t count);
flex_status flex__check_window(const flex_window *w);
/* out must be the floor size; allow_ceil also accepts the ceil-mode size. */
flex_status flex__check_extent(int32_t in, int32_t out, int32_t kernel, int32_t stride,
                               int32_t dilation, int32_t pad_before, int32_t pad_after,
                               int allow_ceil);
flex_status flex__check_spatial(const flex_dims4 *in, const flex_window *w,
                                const flex_dims4 *out, int allow_ceil);
flex_status flex__check_shifts(const int32_t *shift, int32_t n);
flex_status flex__check_shift(int32_t shift);
flex_status flex__check_act(int32_t act_min, int32_t act_max);
flex_status flex__check_s8_quant(const flex_s8_quant *q);
flex_status flex__check_zero_point(int32_t zp);
flex_status flex__check_bias(const void *bias, size_t bias_len, int32_t channels);
/* Non-NULL x and y holding in_dims / out_dims elements, and the window geometry. */
flex_status flex__check_io(const flex_dims4 *in_dims, const void *x, size_t x_len,
                           const flex_window *win, const flex_dims4 *out_dims, const void *y,
                           size_t y_len, int allow_ceil);
/* A fully connected layer's pointers, extents and buffer lengths (elements). */
flex_status flex__check_fc(int32_t batches, int32_t in_features, int32_t out_features,
                           const void *input, size_t input_len, const void *filter,
                           size_t filter_len, const void *output, size_t output_len);

/* ---- float32 GEMM engine (ref/f32_gemm.c) ---- */
/* Block sizes: B is packed [KB x NB] at a time (on the stack), in panels NR columns wide. */
#ifndef FLEX_GEMM_KB
#if defined(__x86_64__) || defined(__aarch64__)
#define FLEX_GEMM_KB 256
#define FLEX_GEMM_NB 128
#define FLEX_GEMM_NR 16
#else
#define FLEX_GEMM_KB 16
#define FLEX_GEMM_NB 16
#define FLEX_GEMM_NR 4
#endif
#endif
/* GCC / Clang vector types on 64-bit hosts: eight floats (one AVX register, two SSE / NEON
 * registers); v8u for unaligned access. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define FLEX_VECTOR 1
typedef float flex__v8 __attribute__((vector_size(32)));
typedef float flex__v8u __attribute__((vector_size(32), aligned(4)));
typedef int32_t flex__v8i __attribute__((vector_size(32)));
#endif
/* Hot float32 loops are multi-versioned on x86-64 Linux GCC builds (x86-64-v3, i.e. AVX2
 * and FMA, where the CPU has them, else the baseline) and may contract a * b + c into one
 * FMA. FLEX_INLINE helpers are inlined into each version, so every version vectorizes them
 * its own way. FLEX_PORTABLE turns that dispatch off, for code loaded where ifuncs are not
 * resolved (a MicroPython native module). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(FLEX_PORTABLE)
#define FLEX_CLONES \
    __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("fp-contract=fast")))
#if __GNUC__ >= 12
/* The hottest loops also have an x86-64-v4 (AVX-512) version with 16-float vectors, taken
 * when flex__wide() says the CPU has it. */
#define FLEX_WIDE __attribute__((target("arch=x86-64-v4"), optimize("fp-contract=fast")))
int flex__wide(void);
typedef float flex__v16 __attribute__((vector_size(64)));
typedef float flex__v16u __attribute__((vector_size(64), aligned(4)));
#endif
#else
#define FLEX_CLONES
#endif
/* The host int8 kernels' x86-64 vector paths (AVX2, AVX-512 VNNI), chosen at run time by
 * flex__s8_simd() (common/vector_width.c); FLEX_PORTABLE leaves only the portable loops. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(FLEX_PORTABLE)
#define FLEX_S8_SIMD 1
int32_t flex__s8_simd(void);
#endif
#ifdef __GNUC__
#define FLEX_INLINE static inline __attribute__((always_inline))
#define FLEX_ALIGNED __attribute__((aligned(32)))
#define FLEX_NOINLINE __attribute__((noinline)) /* keeps its stack buffers in its own frame */
#else
#define FLEX_INLINE static inline
#define FLEX_ALIGNED
#define FLEX_NOINLINE
#endif
#ifdef FLEX_VECTOR
/* *v clamped to [lo, hi], NaN kept (both comparisons are false). Two selects in a row, each
 * of which GCC makes one blend. Pointers, not values: a vector argument's ABI depends on
 * the target. */
FLEX_INLINE void flex__clamp8(flex__v8 *v, const flex__v8 *lo, const flex__v8 *hi) {
    flex__v8i m = *v < *lo;
    const flex__v8i x = ((flex__v8i)*lo & m) | ((flex__v8i)*v & ~m);
    m = (flex__v8)x > *hi;
    *v = (flex__v8)(((flex__v8i)*hi & m) | (x & ~m));
}
#endif
#ifdef FLEX_WIDE
/* The same for 16 floats, as two halves: GCC would split 16-float comparisons into scalar
 * ones. */
FLEX_INLINE void flex__clamp16(flex__v16 *v, const flex__v16 *lo, const flex__v16 *hi) {
    const flex__v8 lo8 = __builtin_shufflevector(*lo, *lo, 0, 1, 2, 3, 4, 5, 6, 7);
    const flex__v8 hi8 = __builtin_shufflevector(*hi, *hi, 0, 1, 2, 3, 4, 5, 6, 7);
    flex__v8 a = __builtin_shufflevector(*v, *v, 0, 1, 2, 3, 4, 5, 6, 7);
    flex__v8 b = __builtin_shufflevector(*v, *v, 8, 9, 10, 11, 12, 13, 14, 15);
    flex__clamp8(&a, &lo8, &hi8);
    flex__clamp8(&b, &lo8, &hi8);
    *v = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
#endif
/* v clamped to [lo, hi] (lo, hi not NaN); a NaN passes, as both comparisons are false. On
 * the RP2040 (FLEX_ROM_FLOAT) by the order of the float32 bits, read as sign and magnitude
 * (the same answers as the float comparisons, without two soft-float calls). */
#ifdef FLEX_ROM_FLOAT
static inline int32_t flex__fkey(float f) {
    union {
        float f;
        int32_t i;
    } u;
    u.f = f;
    return u.i < 0 ? -(u.i & 0x7fffffff) : u.i;
}
static inline float flex__clampf(float v, float lo, float hi) {
    union {
        float f;
        uint32_t u;
    } b;
    b.f = v;
    if ((b.u << 1) > 0xff000000u)
        return v;
    return flex__fkey(v) < flex__fkey(lo) ? lo : (flex__fkey(v) > flex__fkey(hi) ? hi : v);
}
#else
static inline float flex__clampf(float v, float lo, float hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}
#endif
/* A dot product in runs: run r pairs len[r] floats of x from x + xoff[r], step xs, with as
 * many of w from w + woff[r], step ws (a window's rows, a gathered row's segments); then
 * *tail, where not NULL, is added to the sum (a bias, a partial sum). */
typedef struct {
    int32_t xs, ws, runs;
    const int32_t *xoff, *woff, *len;
    const float *tail;
} flex__fruns;
/* acc plus the products of the runs' pairs, added left to right with every product and sum
 * rounded to float32: `acc += x * w` in a loop. A build for the RP2040 (FLEX_ROM_FLOAT, set
 * by micropython/micropython.cmake) calls the bootrom's float routines straight from a
 * Thumb-1 loop, the same bits as the loop through the pico-sdk's checked wrappers of them
 * (opt/cortex_m0plus/f32_rom_dot.c); elsewhere it is that loop, flex__fdot_loop. */
static inline float flex__fdot_loop(float acc, const float *x, const float *w,
                                    const flex__fruns *d) {
    int32_t r, i;
    for (r = 0; r < d->runs; r++) {
        const float *xr = x + d->xoff[r], *wr = w + d->woff[r];
        for (i = 0; i < d->len[r]; i++)
            acc += xr[i * d->xs] * wr[i * d->ws];
    }
    return d->tail ? acc + *d->tail : acc;
}
/* out[r] = flex__fdot_loop(acc, x, w + r * wrow, d) for each of `rows` rows, d's tail (where
 * not NULL) moving on tstep floats from one row to the next: a fully connected layer's
 * outputs, biases added. On the RP2040 flex__fdots is one call of the ROM loop for them all
 * (the set-up and the call once, not per output); elsewhere this loop. */
static inline void flex__fdots_loop(float acc, const float *x, const float *w, int32_t wrow,
                                    const flex__fruns *d, int32_t tstep, int32_t rows,
                                    float *out) {
    flex__fruns row = *d;
    int32_t r;
    for (r = 0; r < rows; r++, w += wrow) {
        out[r] = flex__fdot_loop(acc, x, w, &row);
        if (row.tail)
            row.tail += tstep;
    }
}
#ifdef FLEX_ROM_FLOAT
float flex__fdot(float acc, const float *x, const float *w, const flex__fruns *d);
void flex__fdots(float acc, const float *x, const float *w, int32_t wrow,
                 const flex__fruns *d, int32_t tstep, int32_t rows, float *out);
#else
#define flex__fdot flex__fdot_loop
#define flex__fdots flex__fdots_loop
#endif
/* Element (p, j) of a packed [kb x nb] block. */
#define FLEX_PANEL(dst, kb, p, j)                                                     \
    ((dst)[((j) / FLEX_GEMM_NR) * (kb) * FLEX_GEMM_NR + (p) * FLEX_GEMM_NR +          \
           (j) % FLEX_GEMM_NR])
/* Writes row p (nb contiguous floats) of a packed [kb x nb] block. */
static inline void flex__panel_row(float *dst, int32_t kb, int32_t p, const float *row,
                                   int32_t nb) {
    int32_t j, t;
    for (j = 0; j < nb; j += FLEX_GEMM_NR) {
        float *d = dst + (j / FLEX_GEMM_NR) * kb * FLEX_GEMM_NR + p * FLEX_GEMM_NR;
        if (nb - j >= FLEX_GEMM_NR) /* a fixed-size copy: vector moves, not a memcpy call */
            for (t = 0; t < FLEX_GEMM_NR; t++)
                d[t] = row[j + t];
        else
            for (t = 0; t < nb - j; t++)
                d[t] = row[j + t];
    }
}
/* Writes B[p0:p0+kb, j0:j0+nb] of a virtual matrix B into dst with FLEX_PANEL. */
typedef void (*flex__pack_fn)(const void *ctx, int32_t p0, int32_t kb, int32_t j0,
                              int32_t nb, float *dst);
/* c[m, n] (row stride ldc) += A[m, k] @ B[k, n]; A[i, p] is a[i * a_rs + p * a_cs]. */
void flex__gemm_acc(int32_t m, int32_t n, int32_t k, const float *a, int32_t a_rs,
                    int32_t a_cs, flex__pack_fn pack, const void *ctx, float *c, int32_t ldc);
/* The same with B read in place: row p of B is base[off[p] : off[p] + n]; A's rows are
 * contiguous (a_cs 1). With `slack` the rows may be read up to FLEX_GEMM_NR - 1 floats
 * past their end (those columns' results are dropped); without, never. */
void flex__gemm_rows(int32_t m, int32_t n, int32_t k, const float *a, int32_t a_rs,
                     const float *base, const int32_t *off, int32_t slack, float *c,
                     int32_t ldc);
/* B[p, j] = b[p * rs + j * cs]: a strided matrix, packed by flex__pack_strided (a filter of
 * output-channel rows is rs 1, cs its row length). */
typedef struct {
    const float *b;
    int32_t rs, cs;
} flex__strided;
void flex__pack_strided(const void *ctx, int32_t p0, int32_t kb, int32_t j0, int32_t nb,
                        float *dst);
/* pack(ctx, p0, kb, j0, nb, dst), then zeros in the last panel's unused columns. */
void flex__pack_block(flex__pack_fn pack, const void *ctx, int32_t p0, int32_t kb, int32_t j0,
                      int32_t nb, float *dst);
/* The rows of a gathered GEMM (a convolution's output pixels, read in place): row q's
 * inputs are `segs` contiguous segments, segment s holding len[s] floats at
 * src + (q / width) * ystep + (q % width) * xstep + off[s]; A[q, :] is their concatenation. */
typedef struct {
    const float *src;
    int32_t width, ystep, xstep;
    const int32_t *off, *len;
    int32_t segs, k; /* k: the sum of len */
} flex__rows;
/* c[q - q0, 0:n] (row stride ldc) = A[q, :] @ B, for rows q in [q0, q1), B [k x n] packed
 * as one block (flex__pack_block), plus bias[0:n] (NULL: none) when `first`, else plus c;
 * then, when `last`, clamped to [lo, hi] (NaN passes). */
void flex__gemm_gather(const flex__rows *rows, int32_t q0, int32_t q1, int32_t n,
                       const float *packed, const float *bias, int32_t first, int32_t last,
                       float lo, float hi, float *c, int32_t ldc);
/* Whether flex__gemm_gather with n columns computes every column of a tile of rows before
 * storing any of it, the tiles in increasing row order: then, in one call with first and
 * last set, row q is written only after rows q0 .. q have read all their inputs (the order
 * the .bst arena's in-place plan asks for). */
int flex__gemm_gather_whole(int32_t n);

/* ---- float32 Winograd F(4, 3) along the rows (ref/f32_winograd.c) ---- */
#define FLEX_WINOGRAD_TILE 4 /* output columns per tile */
/* dst[0:p1-p0, 0:out.c] = clamp(bias + the NHWC convolution) at output pixels [p0, p1) when
 * it is one that the Winograd path takes (three filter columns, column stride 1, no groups,
 * suitable channel counts, a host with vector types, p0 at a tile): then returns 1; else 0,
 * with nothing written. */
int flex__winograd_conv(const flex_dims4 *in, const float *x, const float *w, const float *bias,
                        const flex_window *win, int32_t groups, float lo, float hi,
                        const flex_dims4 *out, int32_t p0, int32_t p1, float *dst);

/* ---- TFLM / gemmlowp fixed point (common/fixedpoint.c) ---- */
int32_t flex__srdhm(int32_t a, int32_t b);
int32_t flex__rdbpot(int32_t x, int32_t exponent);
int32_t flex__mbqm(int32_t x, int32_t multiplier, int32_t shift);
int32_t flex__exp_on_negative_values(int32_t a, int32_t integer_bits);
int32_t flex__one_over_one_plus_x(int32_t a);
int32_t flex__logistic_q4(int32_t a);
int32_t flex__tanh_q4(int32_t a);
int32_t flex__clz(uint32_t x);

/* SaturatingRoundingMultiplyByPOT with a positive exponent: saturating left shift. */
static inline int32_t flex__sat_shl(int32_t x, int32_t exponent) {
    int32_t threshold = (int32_t)(((uint32_t)1 << (31 - exponent)) - 1u);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return (int32_t)((uint32_t)x << exponent);
}

static inline int32_t flex__clamp(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

/* ---- float math without libc (common/fmath.c) ---- */
float flex__expf(float x);
float flex__expm1f(float x);
float flex__logf(float x);
float flex__sqrtf(float x);
float flex__sinf(float x);
float flex__cosf(float x);
float flex__tanhf(float x);
float flex__sigmoidf(float x);
float flex__erff(float x);
float flex__powf(float a, float b);
float flex__truncf(float x);
float flex__floorf(float x);
float flex__ceilf(float x);
float flex__rintf(float x);  /* half to even */
float flex__roundf(float x); /* half away from zero */
float flex__inff(void);
float flex__nanf(void);
/* The clamp [lo, hi] of a fused activation code (FLEX_ACT_*); FLEX_E_PARAM for another. */
flex_status flex__f32_act_range(int32_t act, float *lo, float *hi);

typedef struct {
    int32_t y0, x0;     /* top-left corner in input coordinates (may be negative) */
    int32_t clip_h, clip_w; /* window rows / cols inside the padded input (avg divisor) */
    int32_t ys, ye, xs, xe; /* real rows / cols (no dilation), empty when ye <= ys */
    int32_t real;           /* number of real elements (no dilation) */
} flex__window_at;

/* Where the window of output (oy, ox) lies in the input (pooling: no dilation). */
static inline flex__window_at flex__locate(const flex_window *win, const flex_dims4 *in,
                                           int32_t oy, int32_t ox) {
    flex__window_at a;
    int32_t end;
    a.y0 = oy * win->stride_h - win->pad_top;
    a.x0 = ox * win->stride_w - win->pad_left;
    end = a.y0 + win->kernel_h;
    a.clip_h = (end < in->h + win->pad_bottom ? end : in->h + win->pad_bottom) - a.y0;
    end = a.x0 + win->kernel_w;
    a.clip_w = (end < in->w + win->pad_right ? end : in->w + win->pad_right) - a.x0;
    a.ys = a.y0 < 0 ? 0 : a.y0;
    a.xs = a.x0 < 0 ? 0 : a.x0;
    a.ye = a.y0 + win->kernel_h < in->h ? a.y0 + win->kernel_h : in->h;
    a.xe = a.x0 + win->kernel_w < in->w ? a.x0 + win->kernel_w : in->w;
    a.real = (a.ye > a.ys && a.xe > a.xs) ? (a.ye - a.ys) * (a.xe - a.xs) : 0;
    return a;
}

/* Runs the statements that follow the variable names, for each tap (ky, kx) of the window of
 * output pixel (oy, ox), row by row, whose input pixel (iy, ix) lies inside rows [0, h) and
 * columns [0, w): the taps that fall in the zero padding add nothing to a convolution. ky,
 * kx, iy and ix name the caller's int32_t variables, which the statements read. */
#define FLEX__FOR_TAPS(win, h, w, oy, ox, ky, kx, iy, ix, ...)                           \
    for (ky = 0; ky < (win)->kernel_h; ky++) {                                           \
        iy = (oy) * (win)->stride_h - (win)->pad_top + ky * (win)->dilation_h;           \
        if (iy < 0 || iy >= (h))                                                         \
            continue;                                                                    \
        for (kx = 0; kx < (win)->kernel_w; kx++) {                                       \
            ix = (ox) * (win)->stride_w - (win)->pad_left + kx * (win)->dilation_w;      \
            if (ix >= 0 && ix < (w)) {                                                   \
                __VA_ARGS__                                                              \
            }                                                                            \
        }                                                                                \
    }

/* s / count rounded half away from zero (average pooling). */
static inline int32_t flex__round_div(int32_t s, int32_t count) {
    return s > 0 ? (s + count / 2) / count : (s - count / 2) / count;
}

/* The reductions' shape check (extra/s8_reduce_axes.c): dims of [outer, reduce, mid,
 * reduce2, inner] against the buffers; *count is reduce * reduce2. */
flex_status flex__reduce_check(const int32_t dims[5], const void *input, size_t input_len,
                               const void *output, size_t output_len, int32_t *count);

/* The resizes' check (extra/s8_resize.c): shapes, buffers and sampling tables; weights in
 * [-512, 1024] when `weights` is set. */
flex_status flex__resize_check(const flex_dims4 *in_dims, const void *input, size_t input_len,
                               const int32_t *ys, size_t ys_len, const int32_t *xs,
                               size_t xs_len, int weights, const flex_dims4 *out_dims,
                               const void *output, size_t output_len);

/* The arg ops' check (extra/s8_arg.c), and their output: *out = (float)index, for
 * 0 <= index < 2**24, made with integer arithmetic (no soft-float call on a CPU without an
 * FPU), or, when op has bit 2, the int32 index in the same word. */
flex_status flex__arg_check(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                            const void *input, size_t input_len, const float *output,
                            size_t output_len);
void flex__store_index(float *out, int32_t index, int32_t op);
/* The body of an arg op (flex_s8_arg, flex_f32_arg), by their parameters' names, for input
 * elements of type T compared as V: the check, then for each (outer, inner) position the
 * first index along `reduce` of the largest value, or of the smallest when op has bit 0,
 * stored by flex__store_index at output++; then the return. */
#define FLEX__ARG_BODY(T, V)                                                             \
    do {                                                                                 \
        int32_t a_, k_, r_;                                                              \
        FLEX_TRY(flex__arg_check(outer, reduce, inner, op, input, input_len, output,     \
                                 output_len));                                           \
        for (a_ = 0; a_ < outer; a_++)                                                   \
            for (k_ = 0; k_ < inner; k_++) {                                             \
                const T *x_ = input + a_ * reduce * inner + k_;                          \
                V best_ = x_[0];                                                         \
                int32_t index_ = 0;                                                      \
                for (r_ = 1; r_ < reduce; r_++) {                                        \
                    const V v_ = x_[r_ * inner];                                         \
                    if (op & 1 ? v_ < best_ : v_ > best_) {                              \
                        best_ = v_;                                                      \
                        index_ = r_;                                                     \
                    }                                                                    \
                }                                                                        \
                flex__store_index(output++, index_, op);                                 \
            }                                                                            \
    } while (0);                                                                         \
    return FLEX_OK

/* BATCH_MATMUL's check (extra/s8_batch_matmul.c); strides: a's per row and per k, b's per
 * k and per column. */
flex_status flex__matmul_check(const flex_matmul_dims *d, const void *a, size_t a_len,
                               const void *b, size_t b_len, const void *out, size_t out_len,
                               int32_t *strides);

/* The row ops' check (softmax, L2 norm): non-NULL input and output of rows x depth elements
 * each, 1 <= rows and 1 <= depth <= max_depth. */
FLEX_INLINE flex_status flex__check_rows(int32_t rows, int32_t depth, int32_t max_depth,
                                         const void *input, size_t input_len,
                                         const void *output, size_t output_len) {
    int32_t count;
    if (!input || !output)
        return FLEX_E_NULL;
    if (rows < 1 || depth < 1 || depth > max_depth)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(rows, depth, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    return flex__check_len(output_len, count);
}

/* The elementwise binary ops' check: non-NULL a, b and output, with b's b_len elements
 * repeated along a's n (the innermost-dims broadcast), n a non-zero multiple of b_len. */
FLEX_INLINE flex_status flex__check_tiled(size_t n, const void *a, const void *b, size_t b_len,
                                          const void *output) {
    if (!a || !b || !output)
        return FLEX_E_NULL;
    if (n < 1 || b_len < 1 || n % b_len)
        return FLEX_E_SHAPE;
    return FLEX_OK;
}

/* The body of flex_s8_arith and flex_s16_arith, whose stored values (of type T) it compares:
 * output[i] = the larger (op FLEX_ARITH_MAXIMUM) or the smaller (FLEX_ARITH_MINIMUM) of
 * a[i] and b[i % b_len]; any other op is refused. */
#define FLEX__EXTREME_BODY(T)                                                              \
    size_t i, j;                                                                           \
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));                                   \
    if (op != FLEX_ARITH_MAXIMUM && op != FLEX_ARITH_MINIMUM)                              \
        return FLEX_E_PARAM;                                                               \
    for (i = 0; i < n; i += b_len)                                                         \
        for (j = 0; j < b_len; j++) {                                                      \
            const T x = a[i + j], y = b[j];                                                \
            output[i + j] = (op == FLEX_ARITH_MINIMUM ? x < y : x > y) ? x : y;            \
        }                                                                                  \
    return FLEX_OK

/* Comparison `op` (FLEX_COMPARE_*, checked: any other is GREATER_EQUAL) of two values, from
 * whether x < y, x == y and x > y (none of them for a float NaN), whatever their type. */
FLEX_INLINE int flex__compare(int32_t op, int lt, int eq, int gt) {
    switch (op) {
    case FLEX_COMPARE_EQUAL: return eq;
    case FLEX_COMPARE_NOT_EQUAL: return !eq;
    case FLEX_COMPARE_LESS: return lt;
    case FLEX_COMPARE_LESS_EQUAL: return lt || eq;
    case FLEX_COMPARE_GREATER: return gt;
    default: return gt || eq;
    }
}

/* The body of flex_f32_compare and flex_s32_compare, whose values (of type T) it compares:
 * output[i] = 1 where a[i] op b[i % b_len] holds, else 0; an op outside FLEX_COMPARE_* is
 * refused. */
#define FLEX__COMPARE_BODY(T)                                                              \
    size_t i, j;                                                                           \
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, output));                                   \
    if (op < FLEX_COMPARE_EQUAL || op > FLEX_COMPARE_GREATER_EQUAL)                        \
        return FLEX_E_PARAM;                                                               \
    for (i = 0; i < n; i += b_len)                                                         \
        for (j = 0; j < b_len; j++) {                                                      \
            const T x = a[i + j], y = b[j];                                                \
            output[i + j] = (int8_t)flex__compare(op, x < y, x == y, x > y);               \
        }                                                                                  \
    return FLEX_OK

#endif

/* burnflex: flex_c's kernels as a MicroPython module, built two ways from the same files:
 * a user C module compiled into the firmware, or a dynamic native module (.mpy; the
 * natmod build defines MICROPY_ENABLE_DYNRUNTIME). This header holds what the binding files
 * share: the MicroPython API of the build, buffers taken through the buffer protocol, int
 * arguments, and the status -> exception rule.
 *
 * Every kernel has exactly the positional signature of its pure-Python twin in burn.graph
 * (see core/graph/__init__.py) and allocates nothing on the heap: parameter blocks live on
 * the C stack, buffers are borrowed. */
#ifndef BURNFLEX_H
#define BURNFLEX_H

#ifdef MICROPY_ENABLE_DYNRUNTIME
#include "py/dynruntime.h"
#else
#include "py/binary.h"
#include "py/runtime.h"
#endif

/* 1 when plan() and run_plan() are compiled in (burnflex_plan.c, flex_c's common/plan.c);
 * the armv6m native module leaves them out to stay within its size budget. */
#ifndef BURNFLEX_PLAN
#define BURNFLEX_PLAN 1
#endif

/* With plans, the bindings call the recorders of burnflex_plan.c, which run the kernel or
 * record its call; renamed here, before flex.h declares them, so the signatures are the
 * kernels' own. */
#if BURNFLEX_PLAN && !defined(BF_PLAN_IMPL)
#define flex_s8_conv2d bf_s8_conv2d
#define flex_s8_depthwise_conv2d bf_s8_depthwise_conv2d
#define flex_s8_fully_connected bf_s8_fully_connected
#define flex_s8_add bf_s8_add
#define flex_s8_mul bf_s8_mul
#define flex_s8_avg_pool2d bf_s8_avg_pool2d
#define flex_s8_max_pool2d bf_s8_max_pool2d
#define flex_s8_mean bf_s8_mean
#define flex_s8_softmax bf_s8_softmax
#define flex_s8_logistic bf_s8_logistic
#define flex_s8_tanh bf_s8_tanh
#define flex_s8_requantize bf_s8_requantize
#define flex_pad bf_pad
#define flex_concat bf_concat
#endif

#include "flex.h"

/* 1 when the float kernels are compiled in (CPUs with an FPU); set by the build. */
#ifndef BURNFLEX_FLOAT
#define BURNFLEX_FLOAT 0
#endif

/* At most this many inputs to one concat (their pointers live on the C stack). */
#define BF_MAX_CONCAT 32

/* Element kinds of a buffer argument. */
enum { BF_S8, BF_I32, BF_F32, BF_ANY };

/* A borrowed buffer: its data, its length in elements and its element size in bytes. */
typedef struct {
    void *data;
    size_t len;
    size_t itemsize;
    int is_float;
} bf_buf;

/* Raise ValueError("<op>: <what>"). */
MP_NORETURN void bf_raise(const char *op, const char *what);
/* Raise ValueError("<op>: <flex_status_str(status)>") when status is not FLEX_OK. */
void bf_check(const char *op, flex_status status);
/* args[index] as a buffer of `kind` (writable when `write`), or TypeError naming the op
 * and the argument's position. */
bf_buf bf_buffer(const char *op, const mp_obj_t *args, size_t index, int kind, int write);
/* The same, but None gives an empty buffer (data NULL, len 0): optional biases. */
bf_buf bf_optional(const char *op, const mp_obj_t *args, size_t index, int kind);
/* args[first .. first + count) as int32 values, or ValueError when one does not fit. */
void bf_ints(const char *op, const mp_obj_t *args, size_t first, size_t count, int32_t *out);
/* The length to pass to a kernel that checks lengths against its shape: `need` when the
 * buffer holds at least that many elements (a longer buffer is fine: only its leading
 * elements are used), else the buffer's own length, which the kernel then rejects. */
size_t bf_len(const bf_buf *b, int64_t need);
/* For kernels that take no length: ValueError unless the buffer holds `need` elements. */
void bf_need(const char *op, const bf_buf *b, int64_t need);

/* The trailing padding that makes `out` the floor-mode output size (the kernels check the
 * whole window geometry). */
static inline int32_t bf_pad_after(int32_t in, int32_t out, int32_t k, int32_t stride,
                                   int32_t dilation, int32_t pad_before) {
    const int64_t pad = (int64_t)(out - 1) * stride + (int64_t)dilation * (k - 1) + 1 - in -
                        pad_before;
    return pad < 0 ? 0 : (pad > INT32_MAX ? INT32_MAX : (int32_t)pad);
}

/* A flex_window from burn.graph's geometry arguments. */
static inline flex_window bf_window(int32_t ih, int32_t iw, int32_t oh, int32_t ow, int32_t kh,
                                    int32_t kw, int32_t sh, int32_t sw, int32_t dh, int32_t dw,
                                    int32_t pad_top, int32_t pad_left) {
    flex_window w;
    w.kernel_h = kh;
    w.kernel_w = kw;
    w.stride_h = sh;
    w.stride_w = sw;
    w.dilation_h = dh;
    w.dilation_w = dw;
    w.pad_top = pad_top;
    w.pad_bottom = bf_pad_after(ih, oh, kh, sh, dh, pad_top);
    w.pad_left = pad_left;
    w.pad_right = bf_pad_after(iw, ow, kw, sw, dw, pad_left);
    return w;
}

static inline flex_dims4 bf_dims(int32_t n, int32_t h, int32_t w, int32_t c) {
    flex_dims4 d;
    d.n = n;
    d.h = h;
    d.w = w;
    d.c = c;
    return d;
}

/* The element count n * h * w * c in 64 bits (no overflow for int32 dims). */
static inline int64_t bf_count4(int32_t n, int32_t h, int32_t w, int32_t c) {
    return (int64_t)n * h * w * c;
}

/* A convolution's geometry from burn.graph's arguments. */
typedef struct {
    flex_dims4 in, out;
    flex_window win;
    int32_t param; /* groups (conv) or depth multiplier (depthwise) */
    int64_t in_count, out_count, w_count;
} bf_conv;

/* args[first ...]: n, ih, iw, ic, oh, ow, oc (depthwise: depth_mult), kh, kw, groups (not
 * for depthwise), stride_h, stride_w, dil_h, dil_w, pad_top, pad_left. Returns the index of
 * the argument after them. */
size_t bf_conv_args(const char *op, const mp_obj_t *args, size_t first, int depthwise,
                    bf_conv *g);

/* A pool's geometry. */
typedef struct {
    flex_dims4 in, out;
    flex_window win;
    int64_t in_count, out_count;
} bf_pool;

/* args[first ...]: n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left.
 * Returns the index of the argument after them. */
size_t bf_pool_args(const char *op, const mp_obj_t *args, size_t first, bf_pool *p);

/* The quant_len of a per-channel multiplier/shift pair: `channels` when both hold that many,
 * else a length the kernel rejects. */
static inline size_t bf_quant_len(const bf_buf *mult, const bf_buf *shift, int64_t channels) {
    const size_t m = bf_len(mult, channels), s = bf_len(shift, channels);
    return m < s ? m : s;
}

/* -zp without signed overflow (the kernels check the zero point's range). */
static inline int32_t bf_neg(int32_t zp) {
    return (int32_t)(0u - (uint32_t)zp);
}

/* The offsets and clamp of a quantized conv-like kernel from burn.graph's zero points. */
static inline flex_s8_quant bf_quant(int32_t in_zp, int32_t out_zp, int32_t act_min,
                                     int32_t act_max) {
    flex_s8_quant q;
    q.input_offset = bf_neg(in_zp);
    q.output_offset = out_zp;
    q.act_min = act_min;
    q.act_max = act_max;
    return q;
}

/* flex_s8_add and the kernels that take its arguments (flex_s8_sub,
 * flex_s8_squared_difference). */
typedef flex_status (*bf_add_like_fn)(const flex_dims4 *, const int8_t *, size_t,
                                      const flex_dims4 *, const int8_t *, size_t,
                                      const flex_s8_add_params *, const flex_dims4 *, int8_t *,
                                      size_t);

/* (a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift, out_zp, out_mult,
 *  out_shift, left_shift, act_min, act_max[, swap when has_swap]) onto `kernel`, b broadcast
 *  along the innermost dims; a swap (SUB's b - a) passes b as flex's first input
 *  (burnflex_s8.c). */
mp_obj_t bf_add_like(const char *op, const mp_obj_t *args, int has_swap, bf_add_like_fn kernel);

/* burnflex.aligned(buffer): whether its first byte is word aligned (a table used in place
 * as int32 words must be). */
extern const mp_obj_fun_builtin_fixed_t bf_aligned_obj;

/* burnflex.plan(steps) and burnflex.run_plan(words, pointers) (burnflex_plan.c). */
extern const mp_obj_fun_builtin_fixed_t bf_plan_obj;
extern const mp_obj_fun_builtin_var_t bf_run_plan_obj;
extern const mp_obj_fun_builtin_fixed_t bf_cores_obj;

/* One int32 argument. */
static inline int32_t bf_int(const char *op, mp_obj_t arg) {
    int32_t v;
    bf_ints(op, &arg, 0, 1, &v);
    return v;
}

#endif

/*
 * flex.h - the whole C API of the Flex kernel library.
 *
 * Freestanding C99: no malloc, no libc beyond <stdint.h>/<stddef.h>. Every kernel is a
 * plain function over caller-owned buffers that returns a flex_status. Every buffer comes
 * with its length in elements; a bad shape, stride, size or parameter gives a status and
 * leaves the output untouched, never undefined behaviour.
 *
 * Shapes are flex_dims4 {n, h, w, c}. int8 kernels use NHWC memory order and OHWI filters
 * (the exported-graph layout); float32 kernels use NCHW memory order and OIHW filters (the
 * training layout). All counts are limited to INT32_MAX elements.
 *
 * int8 arithmetic is bit-identical to TensorFlow Lite Micro's reference kernels: per-channel
 * requantization with an int32 multiplier and shift (TFLM MultiplyByQuantizedMultiplier:
 * saturating rounding doubling high multiply, then rounding divide by a power of two,
 * rounding half away from zero), int32 accumulation, fused activation clamps.
 */
#ifndef FLEX_H
#define FLEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ---------------------------------------------------------------- */
typedef int32_t flex_status;
#define FLEX_OK 0
#define FLEX_E_NULL (-1)     /* a required pointer is NULL */
#define FLEX_E_SHAPE (-2)    /* a dimension is < 1, or shapes disagree */
#define FLEX_E_STRIDE (-3)   /* a stride, dilation, kernel size or padding is invalid */
#define FLEX_E_SIZE (-4)     /* a buffer length does not match its shape */
#define FLEX_E_PARAM (-5)    /* a quantization parameter or op code is out of range */
#define FLEX_E_OVERFLOW (-6) /* an element count exceeds INT32_MAX */
#define FLEX_E_CORE (-7)     /* the other core did not finish its part in time */
#define FLEX_E_STOPPED (-8)  /* the caller asked the plan to stop (an interrupt) */

/* Short English name of a status ("ok", "null pointer", ...). */
const char *flex_status_str(flex_status status);

/* Library version, 0xMMmmpp: FLEX_VERSION, which flex_version() returns. */
#define FLEX_VERSION 0x000100
int32_t flex_version(void);

/* The widest vectors, in floats, that the float32 kernels use: 16 on x86-64 hosts with
 * AVX-512 (x86-64-v4) in builds that have that path, else 8 where the build has vector
 * types, else 1. A `limit` > 0 below 16 makes an AVX-512 host take the 8-float path from then
 * on, and a later 16 lifts that; 0 changes nothing. Returns the width in effect. Both paths
 * sum each output's terms in the same order, so they give the same results. */
int32_t flex_f32_vector_width(int32_t limit);

/* ---- shared parameter blocks ----------------------------------------------------- */
typedef struct {
    int32_t n, h, w, c;
} flex_dims4;

/* A 2-D sliding window: conv filters and pools. Output sizes are given by the caller's
 * output dims and must equal floor((in + pad_before + pad_after - dilation*(kernel-1) - 1)
 * / stride) + 1 (pools also accept the ceil-mode size, see flex_f32_*_pool2d). */
typedef struct {
    int32_t kernel_h, kernel_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_top, pad_bottom, pad_left, pad_right;
} flex_window;

/* Offsets and clamps of a quantized conv / fully connected layer. */
typedef struct {
    int32_t input_offset;  /* minus the input zero point */
    int32_t output_offset; /* the output zero point */
    int32_t act_min;       /* fused activation clamp, within [-128, 127] */
    int32_t act_max;
} flex_s8_quant;

/* TFLM ADD parameters (left_shift is 20 for int8). Shifts are <= 0. */
typedef struct {
    int32_t input1_offset, input1_multiplier, input1_shift;
    int32_t input2_offset, input2_multiplier, input2_shift;
    int32_t left_shift;
    int32_t output_offset, output_multiplier, output_shift;
    int32_t act_min, act_max;
} flex_s8_add_params;

/* TFLM MUL parameters. */
typedef struct {
    int32_t input1_offset, input2_offset;
    int32_t output_offset, output_multiplier, output_shift;
    int32_t act_min, act_max;
} flex_s8_mul_params;

/* The window of a transposed convolution: input pixel (y, x) adds into the kernel_h x
 * kernel_w output window whose corner is (y * stride_h - pad_top, x * stride_w - pad_left);
 * what falls outside the output is dropped (TFLite TRANSPOSE_CONV). */
typedef struct {
    int32_t kernel_h, kernel_w;
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left;
} flex_transpose_window;

/* ---- int8 kernels (NHWC) --------------------------------------------------------- */

/* Convolution with groups. filter: OHWI [out.c, kh, kw, in.c / groups]; bias: int32
 * [out.c] or NULL with bias_len 0; multiplier/shift: per output channel [out.c]. */
flex_status flex_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int8_t *filter, size_t filter_len,
                           const int32_t *bias, size_t bias_len,
                           const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                           const flex_window *win, int32_t groups, const flex_s8_quant *q,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* Depthwise convolution: out.c = in.c * depth_multiplier; filter [1, kh, kw, out.c]. */
flex_status flex_s8_depthwise_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, const flex_s8_quant *q,
    const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* Transposed convolution (an optional op, src/extra): filter OHWI [out.c, kh, kw, in.c];
 * bias: int32 [out.c] or NULL with bias_len 0; multiplier/shift per output channel. Any
 * input and output sizes; no scratch memory. */
flex_status flex_s8_transpose_conv2d(
    const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_transpose_window *win, const flex_s8_quant *q, const flex_dims4 *out_dims,
    int8_t *output, size_t output_len);

/* Fully connected: input [batches, in_features], filter [out_features, in_features],
 * output [batches, out_features]. quant_len is 1 (per-tensor) or out_features. */
flex_status flex_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                    const int8_t *input, size_t input_len,
                                    const int8_t *filter, size_t filter_len,
                                    int32_t filter_offset,
                                    const int32_t *bias, size_t bias_len,
                                    const int32_t *multiplier, const int32_t *shift,
                                    size_t quant_len, const flex_s8_quant *q,
                                    int8_t *output, size_t output_len);

/* Broadcasting add / mul: every dim of in1/in2 equals out's or is 1. */
flex_status flex_s8_add(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_add_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_s8_mul(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_mul_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* Pools (same scale in and out, out.c == in.c); windows count only real elements. */
flex_status flex_s8_avg_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                               size_t input_len, const flex_window *win,
                               int32_t act_min, int32_t act_max,
                               const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_s8_max_pool2d(const flex_dims4 *in_dims, const int8_t *input,
                               size_t input_len, const flex_window *win,
                               int32_t act_min, int32_t act_max,
                               const flex_dims4 *out_dims, int8_t *output, size_t output_len);

/* MEAN over the middle axis of [outer, reduce, inner] -> [outer, inner], as TFLM's
 * QuantizedMeanOrSum: MBQM(sum - input_zero_point * reduce, multiplier, shift) + output
 * zero point, where multiplier/shift quantize input_scale / output_scale / reduce. */
flex_status flex_s8_mean(int32_t outer, int32_t reduce, int32_t inner, const int8_t *input,
                         size_t input_len, int32_t input_zero_point, int32_t multiplier,
                         int32_t shift, int32_t output_zero_point, int8_t *output,
                         size_t output_len);

/* Softmax over the last axis of [outer, depth]; output scale 1/256, zero point -128.
 * input_multiplier / input_left_shift / diff_min as TFLM's PreprocessSoftmaxScaling. */
flex_status flex_s8_softmax(int32_t outer, int32_t depth, const int8_t *input,
                            size_t input_len, int32_t input_multiplier,
                            int32_t input_left_shift, int32_t diff_min,
                            int8_t *output, size_t output_len);

/* Logistic (output scale 1/256, zero point -128) and tanh (scale 1/128, zero point 0)
 * with TFLM's 4-integer-bit input rescaling. */
flex_status flex_s8_logistic(size_t n, const int8_t *input, int32_t input_zero_point,
                             int32_t input_range_radius, int32_t input_multiplier,
                             int32_t input_left_shift, int8_t *output);
flex_status flex_s8_tanh(size_t n, const int8_t *input, int32_t input_zero_point,
                         int32_t input_range_radius, int32_t input_multiplier,
                         int32_t input_left_shift, int8_t *output);

/* float32 -> int8: round(x / scale) + zero_point (half away from zero), clamped. */
flex_status flex_s8_quantize(size_t n, const float *input, float scale, int32_t zero_point,
                             int8_t *output);
/* int8 -> float32: scale * (q - zero_point). */
flex_status flex_s8_dequantize(size_t n, const int8_t *input, float scale, int32_t zero_point,
                               float *output);
/* int8 -> int8 with a new scale: MBQM(q - in_zp, multiplier, shift) + out_zp, clamped. */
flex_status flex_s8_requantize(size_t n, const int8_t *input, int32_t input_zero_point,
                               int32_t multiplier, int32_t shift, int32_t output_zero_point,
                               int8_t *output);

/* ---- layout kernels (any element size: 1, 2 or 4 bytes) --------------------------- */

/* Constant pad of a 4-D tensor; pads = {before, after} for n, h, w, c (8 values >= 0);
 * pad_value points at one element. */
flex_status flex_pad(int32_t elem_size, const flex_dims4 *in_dims, const void *input,
                     size_t input_len, const int32_t *pads, const void *pad_value,
                     void *output, size_t output_len);

/* Concatenate along an axis: tensors viewed as [outer, axis_i, inner]; lengths in
 * elements; inputs is an array of n_inputs pointers. */
flex_status flex_concat(int32_t elem_size, int32_t n_inputs, const void *const *inputs,
                        const int32_t *axis_sizes, int32_t outer, int32_t inner,
                        void *output, size_t output_len);

/* Strided copy (the optional op `strided`): output element k, in row-major order over the
 * box dims[0] x ... x dims[5], is input[offset + i0 * strides[0] + ... + i5 * strides[5]];
 * strides count elements and may be negative. A read outside the input (input_len
 * elements) gives FLEX_E_STRIDE; output_len must be the box's element count. */
#define FLEX_STRIDED_DIMS 6
flex_status flex_strided(int32_t elem_size, const void *input, size_t input_len, int32_t offset,
                         const int32_t *dims, const int32_t *strides, void *output,
                         size_t output_len);

/* ---- plans: a whole int8 model in one call ---------------------------------------- */

/* Op codes of plan steps: the int8 kernels, the layout kernels and a plain copy. */
#define FLEX_OP_S8_CONV2D 1
#define FLEX_OP_S8_DEPTHWISE_CONV2D 2
#define FLEX_OP_S8_FULLY_CONNECTED 3
#define FLEX_OP_S8_ADD 4
#define FLEX_OP_S8_MUL 5
#define FLEX_OP_S8_AVG_POOL2D 6
#define FLEX_OP_S8_MAX_POOL2D 7
#define FLEX_OP_S8_MEAN 8
#define FLEX_OP_S8_SOFTMAX 9
#define FLEX_OP_S8_LOGISTIC 10
#define FLEX_OP_S8_TANH 11
#define FLEX_OP_S8_REQUANTIZE 12
#define FLEX_OP_PAD 13
#define FLEX_OP_CONCAT 14
#define FLEX_OP_COPY 15 /* bytes; pointers src, dst (they may overlap) */
#define FLEX_OP_COUNT 16

/* Runs the steps of `plan` in order, stopping at the first that fails. A step is int32
 * words: op, word count w, pointer count p, then w argument words and p pointer indices.
 * The words are the kernel's non-pointer parameters in its order: an integer (int32_t or
 * size_t) one word, a parameter block its int32 fields; the pointer indices select, in
 * parameter order, entries of `buffers` (-1 for NULL). concat's `inputs` is a word: the
 * index of the first of n_inputs consecutive entries of `buffers`. Returns FLEX_OK, or the
 * failing step's status with its index in *failed (when failed is not NULL); a malformed
 * step (unknown op, wrong counts, an index outside `buffers`) gives FLEX_E_PARAM. */
flex_status flex_plan_run(const int32_t *plan, size_t plan_len, void *const *buffers,
                          size_t n_buffers, int32_t *failed);

/* ---- two cores (common/split.c) ---------------------------------------------------
 * flex_plan_run_on runs a plan as flex_plan_run does, with a second core taking part of
 * each large convolution, depthwise convolution and fully connected step. A step splits
 * into two smaller calls of the same kernel: output rows (convolutions; all pixels as one
 * column for a 1x1 stride-1 unpadded convolution, "pixels"), or output features (fully
 * connected). Each output byte is computed by the same arithmetic as in the whole call, so
 * results are identical. A step whose parts would overwrite what the other core still
 * reads (an output laid over its input in the arena) gives the other core's first output
 * rows to `spare` when they fit there (copied into place once both parts are done), else
 * runs whole. */
#define FLEX_JOB_WORDS 28
#define FLEX_JOB_PTRS 6

/* The other core's part of a step: one or two calls (its rows that go to the spare buffer
 * first, then the rest) of kernel `op`, with their words and pointers. */
typedef struct {
    int32_t op, n_calls;
    int32_t words[2][28]; /* [2][FLEX_JOB_WORDS], spelled out for the cffi header parser */
    void *ptrs[2][6];     /* [2][FLEX_JOB_PTRS] */
} flex_job;

/* Runs the calls of `job` in order; returns the first failing status, or FLEX_OK. */
flex_status flex_job_run(const flex_job *job);

/* The second core. start(ctx, job) begins flex_job_run(job) there and returns 1, or 0 when
 * that core cannot take it (the step then runs whole here); finish(ctx) returns the job's
 * status once it is done, or a negative status (FLEX_E_CORE) when the core did not finish
 * within the bound the caller chose. stop (or NULL) is asked before each step: non-zero
 * ends the run with FLEX_E_STOPPED. Steps of fewer than min_macs multiply-accumulates run
 * whole. record (or NULL) gets FLEX_SPLIT_WORDS words per step, record_len in all. */
typedef struct {
    int (*start)(void *ctx, const flex_job *job);
    flex_status (*finish)(void *ctx);
    int (*stop)(void *ctx);
    void *ctx;
    int32_t min_macs;
    int8_t *spare;
    size_t spare_len;
    int32_t *record;
    size_t record_len;
} flex_cores;

/* How a step ran (record[0]): whole, or split by rows, pixels or features, the other core
 * taking units [record[1], record[2]) of record[2] (record[3]: of those, how many went
 * through the spare buffer). A whole step's record[1] says why: */
#define FLEX_SPLIT_WORDS 4
#define FLEX_SPLIT_NONE 0
#define FLEX_SPLIT_ROWS 1
#define FLEX_SPLIT_PIXELS 2
#define FLEX_SPLIT_FEATURES 3
#define FLEX_WHOLE_OP 0       /* an op that does not split (pools, adds, copies...) */
#define FLEX_WHOLE_SMALL 1    /* fewer than min_macs multiply-accumulates */
#define FLEX_WHOLE_SHAPE 2    /* one output row or feature, or several batches */
#define FLEX_WHOLE_IN_PLACE 3 /* the parts would overwrite each other's input */
#define FLEX_WHOLE_BUSY 4     /* the other core did not take it */

flex_status flex_plan_run_on(const int32_t *plan, size_t plan_len, void *const *buffers,
                             size_t n_buffers, int32_t *failed, const flex_cores *cores);
/* flex_plan_run with its arguments in one block, for a caller that pays for each argument
 * it passes (the host's cffi binding converts one pointer instead of five). Host builds
 * only (opt/host/plan_call.c). */
typedef struct {
    const int32_t *plan;
    size_t plan_len;
    void *const *buffers;
    size_t n_buffers;
    int32_t *failed;
} flex_plan_args;
flex_status flex_plan_call(const flex_plan_args *args);
/* Validated plans, host builds only (opt/host/plan_fast.c). flex_fast_plan_new checks the
 * plan of `args` once, as flex_plan_run checks it on every run, and copies it into memory
 * of its own: the fully connected steps' arguments, pre-decoded, and the other steps' words
 * and the pointer table (the caller's plan and table may change or go afterwards; the
 * buffers they point into must stay). `input` (input_len bytes) is where a run puts the
 * bound input. It returns NULL with the status in *status (NULL with FLEX_OK: out of
 * memory); a failing step's index is then in args->failed.
 * flex_fast_bind sets the buffer a run copies into `input` first (NULL: none; src_len must
 * equal input_len, else FLEX_E_SIZE); it must stay valid while bound. flex_fast_run runs
 * the fully connected and copy steps without re-checking them, the others through
 * flex_plan_run; a failing step's index is then flex_fast_failed's. */
typedef struct flex_fast_plan flex_fast_plan;
flex_fast_plan *flex_fast_plan_new(const flex_plan_args *args, void *input, size_t input_len,
                                   flex_status *status);
flex_status flex_fast_bind(flex_fast_plan *plan, const void *src, size_t src_len);
flex_status flex_fast_run(flex_fast_plan *plan);
int32_t flex_fast_failed(const flex_fast_plan *plan);
void flex_fast_plan_free(flex_fast_plan *plan);

/* ---- float32 kernels (NCHW) ------------------------------------------------------ */

/* c[m, n] = op(a) @ op(b) + beta * c; row-major; op transposes when trans_* is 1. */
flex_status flex_f32_gemm(int32_t trans_a, int32_t trans_b, int32_t m, int32_t n, int32_t k,
                          const float *a, size_t a_len, const float *b, size_t b_len,
                          float beta, float *c, size_t c_len);

/* Convolution with groups; weight OIHW [out.c, in.c / groups, kh, kw]; bias or NULL. */
flex_status flex_f32_conv2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                            const float *weight, size_t weight_len,
                            const float *bias, size_t bias_len,
                            const flex_window *win, int32_t groups,
                            const flex_dims4 *out_dims, float *y, size_t y_len);
/* dx = d(conv)/dx applied to dy (dx is overwritten). */
flex_status flex_f32_conv2d_input_grad(const flex_dims4 *in_dims, float *dx, size_t dx_len,
                                       const float *weight, size_t weight_len,
                                       const flex_window *win, int32_t groups,
                                       const flex_dims4 *out_dims, const float *dy,
                                       size_t dy_len);
/* dw (and db when not NULL) from x and dy (both overwritten). */
flex_status flex_f32_conv2d_weight_grad(const flex_dims4 *in_dims, const float *x,
                                        size_t x_len, const flex_window *win, int32_t groups,
                                        const flex_dims4 *out_dims, const float *dy,
                                        size_t dy_len, float *dw, size_t dw_len,
                                        float *db, size_t db_len);

/* Pools over NCHW windows. Output H/W may be the floor size or, for ceil mode, one more
 * when that last window starts inside the input or its leading padding. Max ignores
 * padding; avg divides by the window clipped to the padded input when count_include_pad,
 * else by the number of real elements. */
flex_status flex_f32_max_pool2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                const flex_window *win,
                                const flex_dims4 *out_dims, float *y, size_t y_len);
flex_status flex_f32_avg_pool2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                const flex_window *win, int32_t count_include_pad,
                                const flex_dims4 *out_dims, float *y, size_t y_len);
/* Gradients: dx overwritten; max routes dy to the first maximum of each window. */
flex_status flex_f32_max_pool2d_grad(const flex_dims4 *in_dims, const float *x, size_t x_len,
                                     const flex_window *win, const flex_dims4 *out_dims,
                                     const float *dy, size_t dy_len,
                                     float *dx, size_t dx_len);
flex_status flex_f32_avg_pool2d_grad(const flex_dims4 *in_dims, const flex_window *win,
                                     int32_t count_include_pad, const flex_dims4 *out_dims,
                                     const float *dy, size_t dy_len,
                                     float *dx, size_t dx_len);

/* Unary ops, y may alias x. */
#define FLEX_UNARY_NEG 0
#define FLEX_UNARY_ABS 1
#define FLEX_UNARY_EXP 2
#define FLEX_UNARY_LOG 3
#define FLEX_UNARY_SQRT 4
#define FLEX_UNARY_RSQRT 5
#define FLEX_UNARY_SIN 6
#define FLEX_UNARY_COS 7
#define FLEX_UNARY_TANH 8
#define FLEX_UNARY_SIGMOID 9
#define FLEX_UNARY_RELU 10
#define FLEX_UNARY_FLOOR 11
#define FLEX_UNARY_CEIL 12
#define FLEX_UNARY_ROUND 13 /* half to even, like numpy and torch */
#define FLEX_UNARY_SIGN 14
#define FLEX_UNARY_ERF 15
#define FLEX_UNARY_RECIPROCAL 16
#define FLEX_UNARY_COUNT 17
flex_status flex_f32_unary(int32_t op, size_t n, const float *x, float *y);

/* Broadcasting binary ops over up to 6 axes: element strides per axis (0 broadcasts). */
#define FLEX_BINARY_ADD 0
#define FLEX_BINARY_SUB 1
#define FLEX_BINARY_MUL 2
#define FLEX_BINARY_DIV 3
#define FLEX_BINARY_MAXIMUM 4
#define FLEX_BINARY_MINIMUM 5
#define FLEX_BINARY_POW 6
#define FLEX_BINARY_COUNT 7
#define FLEX_MAX_RANK 6
flex_status flex_f32_binary(int32_t op, int32_t rank, const int32_t *out_dims,
                            const float *a, size_t a_len, const int32_t *a_strides,
                            const float *b, size_t b_len, const int32_t *b_strides,
                            float *y, size_t y_len);

/* y = min(max(x, lo), hi); y may alias x. */
flex_status flex_f32_clamp(size_t n, const float *x, float lo, float hi, float *y);

/* Reductions over the middle axis of [outer, axis, inner] -> [outer, inner]. */
#define FLEX_REDUCE_SUM 0
#define FLEX_REDUCE_MEAN 1
#define FLEX_REDUCE_MAX 2
#define FLEX_REDUCE_MIN 3
#define FLEX_REDUCE_COUNT 4
flex_status flex_f32_reduce(int32_t op, int32_t outer, int32_t axis, int32_t inner,
                            const float *x, size_t x_len, float *y, size_t y_len);

/* Softmax / log-softmax over the middle axis of [outer, axis, inner]. */
flex_status flex_f32_softmax(int32_t outer, int32_t axis, int32_t inner, const float *x,
                             size_t x_len, float *y, size_t y_len);
flex_status flex_f32_log_softmax(int32_t outer, int32_t axis, int32_t inner, const float *x,
                                 size_t x_len, float *y, size_t y_len);

/* Batch normalisation over the middle axis (channels) of [outer, c, inner]; the
 * per-channel vectors hold c floats. stats: each channel's mean and biased variance.
 * batch_norm: y = (x - mean) * invstd * weight + bias (weight, bias may be NULL; y may alias
 * x). batch_norm_grad: dweight = sum(dy * xhat), dbias = sum(dy) with xhat = (x - mean) *
 * invstd, and, when dx is not NULL, the input gradient: through the statistics too when
 * batch_stats is 1 (they are x's own), else with them held fixed. */
flex_status flex_f32_batch_norm_stats(int32_t outer, int32_t c, int32_t inner, const float *x,
                                      size_t x_len, float *mean, float *var);
flex_status flex_f32_batch_norm(int32_t outer, int32_t c, int32_t inner, const float *x,
                                size_t x_len, const float *mean, const float *invstd,
                                const float *weight, const float *bias, float *y,
                                size_t y_len);
flex_status flex_f32_batch_norm_grad(int32_t outer, int32_t c, int32_t inner, const float *x,
                                     size_t x_len, const float *dy, size_t dy_len,
                                     const float *mean, const float *invstd,
                                     const float *weight, int32_t batch_stats, float *dx,
                                     size_t dx_len, float *dweight, float *dbias);

/* One Adam step over n parameters (AdamW when decoupled is 1): the moments m and v are
 * updated in place and the new parameters written to out (which may alias param). bias1
 * and bias2 are step t's bias corrections 1 - beta1^t and 1 - beta2^t. */
flex_status flex_f32_adam(size_t n, const float *param, const float *grad, float *m, float *v,
                          float lr, float beta1, float beta2, float eps, float weight_decay,
                          int32_t decoupled, float bias1, float bias2, float *out);

/* ---- float32 graph kernels (NHWC, OHWI filters: the exported-graph layout) --------- */
/* The output may overlap an input as the .bst arena plans it (docs/bst-format.md: output
 * pixels are written in increasing order, each after the inputs it and those before it
 * read). Convolutions, pools and fully connected layers then compute in a stack scratch
 * (64 KiB on 64-bit hosts, 1 KiB elsewhere) and give FLEX_E_SIZE when one output pixel
 * does not fit it. */

/* Fused activations (TFLite codes), applied as a clamp after the bias. */
#define FLEX_ACT_NONE 0
#define FLEX_ACT_RELU 1
#define FLEX_ACT_RELU_N1_TO_1 2
#define FLEX_ACT_RELU6 3

/* Convolution with groups; filter OHWI [out.c, kh, kw, in.c / groups]; bias [out.c] or NULL
 * with bias_len 0; act a FLEX_ACT_* code. */
flex_status flex_f32_nhwc_conv2d(const flex_dims4 *in_dims, const float *input,
                                 size_t input_len, const float *filter, size_t filter_len,
                                 const float *bias, size_t bias_len, const flex_window *win,
                                 int32_t groups, int32_t act, const flex_dims4 *out_dims,
                                 float *output, size_t output_len);
/* Depthwise convolution: out.c = in.c * depth_multiplier; filter [1, kh, kw, out.c]. */
flex_status flex_f32_nhwc_depthwise_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_window *win,
                                           int32_t depth_multiplier, int32_t act,
                                           const flex_dims4 *out_dims, float *output,
                                           size_t output_len);
/* Transposed convolution (src/extra): filter OHWI [out.c, kh, kw, in.c]; bias [out.c] or
 * NULL with bias_len 0; act a FLEX_ACT_* code. Sums in TFLM's order. */
flex_status flex_f32_nhwc_transpose_conv2d(const flex_dims4 *in_dims, const float *input,
                                           size_t input_len, const float *filter,
                                           size_t filter_len, const float *bias,
                                           size_t bias_len, const flex_transpose_window *win,
                                           int32_t act, const flex_dims4 *out_dims,
                                           float *output, size_t output_len);
/* Fully connected: input [batches, in_features], filter [out_features, in_features]. */
flex_status flex_f32_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const float *input,
                                     size_t input_len, const float *filter, size_t filter_len,
                                     const float *bias, size_t bias_len, int32_t act,
                                     float *output, size_t output_len);
/* Pools over the in-bounds cells of each window (average divides by their count); no
 * dilation, out.c == in.c, floor-mode output size. */
flex_status flex_f32_nhwc_avg_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len);
flex_status flex_f32_nhwc_max_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len);
/* output[i] = act(a[i] + b[i % b_len]) (b broadcast along the innermost dims); b_len
 * divides n. */
flex_status flex_f32_add_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output);
flex_status flex_f32_mul_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output);
/* output[i] = act(input[i]): a lone RELU / RELU6 / RELU_N1_TO_1; output may alias input. */
flex_status flex_f32_act(size_t n, const float *input, int32_t act, float *output);
/* MEAN over the middle axis of [outer, reduce, inner] -> [outer, inner]. */
flex_status flex_f32_mean(int32_t outer, int32_t reduce, int32_t inner, const float *input,
                          size_t input_len, float *output, size_t output_len);
/* Softmax over the last axis of [rows, depth]: exp(beta * (x - max)) / row sum. */
flex_status flex_f32_softmax_beta(int32_t rows, int32_t depth, const float *input,
                                  size_t input_len, float beta, float *output,
                                  size_t output_len);

/* ---- optional ops (flex_c/src/extra; burn.graph.ops.OPTIONAL) --------------------- */

/* output[i] = table[(uint8_t)input[i]]: any int8 elementwise op whose output depends on
 * one input value, its 256 results made ahead (indexed by the input's raw byte); output
 * may alias input. */
flex_status flex_s8_lookup(size_t n, const int8_t *input, const int8_t *table,
                           int8_t *output);

/* The float32 activations of TFLite's unary ops: the flex_f32_unary codes, and ELU
 * (x < 0 ? expm1(x) : x), HARD_SWISH (x * min(max(x + 3, 0), 6) / 6), LEAKY_RELU
 * (x > 0 ? x : alpha * x) and HARD_SIGMOID (min(max(alpha * x + 0.5, 0), 1), ONNX's
 * HardSigmoid with beta 0.5); alpha is read by LEAKY_RELU and HARD_SIGMOID only. output
 * may alias input. */
#define FLEX_ACTIVATION_ELU 32
#define FLEX_ACTIVATION_HARD_SWISH 33
#define FLEX_ACTIVATION_LEAKY_RELU 34
#define FLEX_ACTIVATION_HARD_SIGMOID 35
flex_status flex_f32_activation(int32_t op, size_t n, const float *input, float alpha,
                                float *output);

/* PRELU: output[i] = x >= 0 ? x : alpha * x, x = input[i], alpha = alpha[i % alpha_len]
 * (alpha broadcast along the innermost dims; alpha_len divides n); output may alias input.
 * int8 as TFLM's BroadcastPrelu4DSlow: the positive side requantized by pos_mult/pos_shift,
 * the negative side's product (x - input zero point) * (alpha - alpha zero point) by
 * neg_mult/neg_shift; shifts at most 15, so no product overflows. */
typedef struct {
    int32_t input_offset, alpha_offset, output_offset;
    int32_t pos_mult, pos_shift, neg_mult, neg_shift;
} flex_s8_prelu_params;
flex_status flex_s8_prelu(size_t n, const int8_t *input, const int8_t *alpha, size_t alpha_len,
                          const flex_s8_prelu_params *p, int8_t *output);
flex_status flex_f32_prelu(size_t n, const float *input, const float *alpha, size_t alpha_len,
                           float *output);

/* LOG_SOFTMAX over the last axis of [rows, depth] (depth at most 4095), int8 as TFLM's
 * LogSoftmaxQuantized: output scale 16/256, zero point 127; input scaling as softmax's
 * (multiplier, left shift, diff_min) and its reverse (multiplier, shift <= 0). float32 is
 * flex_f32_log_softmax. */
flex_status flex_s8_log_softmax(int32_t rows, int32_t depth, const int8_t *input,
                                size_t input_len, int32_t input_multiplier,
                                int32_t input_left_shift, int32_t reverse_multiplier,
                                int32_t reverse_shift, int32_t diff_min, int8_t *output,
                                size_t output_len);
/* SVDF (an optional op): input [batch, input_size], weights_feature [filters,
 * input_size], weights_time [filters, memory], bias [filters / rank], output [batch,
 * filters / rank]. `state` [batch, filters, memory] persists between calls (TFLM starts
 * it at 0, an int8 state at its zero point): each call shifts it left by one element and writes each filter's new feature at
 * the end of its row, then output = bias + sum over each unit's `rank` filters of
 * weights_time . state. int8 as TFLM's integer SVDF, its weights_time and state values of
 * state_bits (16 or 8) bits held here in int32 elements: feature MBQM(sum wf * (x -
 * input_zero_point), multiplier1, shift1) clamped to that width, plus state_zero_point,
 * stored at that width; output MBQM(sum, multiplier2, shift2) + output_zero_point clamped
 * to int8 (sums wrap in int32, no fused activation, as TFLM). input_size <= 32768. */
typedef struct {
    int32_t batch, input_size, filters, memory, rank;
} flex_svdf_dims;
typedef struct {
    int32_t input_zero_point, state_zero_point, output_zero_point, multiplier1, shift1,
        multiplier2, shift2, state_bits;
} flex_svdf_quant;
flex_status flex_s8_svdf(const flex_svdf_dims *d, const int8_t *input, size_t input_len,
                         const int8_t *weights_feature, size_t weights_feature_len,
                         const int32_t *weights_time, size_t weights_time_len,
                         const int32_t *bias, size_t bias_len, int32_t *state,
                         size_t state_len, const flex_svdf_quant *q, int8_t *output,
                         size_t output_len);
flex_status flex_f32_svdf(const flex_svdf_dims *d, const float *input, size_t input_len,
                          const float *weights_feature, size_t weights_feature_len,
                          const float *weights_time, size_t weights_time_len,
                          const float *bias, size_t bias_len, float *state, size_t state_len,
                          int32_t act, float *output, size_t output_len);
/* ---- int16x8 kernels (flex_c/src/extra: int16 activations, int8 weights) ----------- */
/* TFLM's int16 kernels: a conv or fully connected sums int16 x int8 products in int32 and
 * requantizes with the int32 MultiplyByQuantizedMultiplier when the TFLite bias was int32
 * (`wide` 0), or sums in int64 and uses TFLM's int64 form (the multiplier rounded to 16
 * bits, shifts up to 7) when it was int64 (`wide` 1; the bias values passed as int32). */

/* Offsets and clamps of an int16 fully connected layer. */
typedef struct {
    int32_t input_offset;  /* minus the input zero point */
    int32_t output_offset; /* the output zero point */
    int32_t act_min;       /* fused activation clamp, within [-32768, 32767] */
    int32_t act_max;
} flex_s16_quant;

/* float32 -> int16: round(x / scale) + zero_point (half away from zero), clamped. */
flex_status flex_s16_quantize(size_t n, const float *input, float scale, int32_t zero_point,
                              int16_t *output);
/* int16 -> float32: scale * (q - zero_point). */
flex_status flex_s16_dequantize(size_t n, const int16_t *input, float scale,
                                int32_t zero_point, float *output);
/* int8 or int16 -> int8 or int16 (input_bits, output_bits: 8 or 16) with a new scale:
 * MBQM(q - in_zp, multiplier, shift) + out_zp, clamped to the output type. */
flex_status flex_s16_requantize(size_t n, const void *input, int32_t input_bits,
                                int32_t input_zero_point, int32_t multiplier, int32_t shift,
                                int32_t output_zero_point, int32_t output_bits,
                                void *output);
/* Fully connected: input [batches, in_features], filter [out_features, in_features],
 * per-output-channel multiplier / shift [out_features]; bias [out_features] or NULL. */
flex_status flex_s16_fully_connected(int32_t batches, int32_t in_features,
                                     int32_t out_features, const int16_t *input,
                                     size_t input_len, const int8_t *filter, size_t filter_len,
                                     const int32_t *bias, size_t bias_len,
                                     const int32_t *multiplier, const int32_t *shift,
                                     size_t quant_len, int32_t wide, const flex_s16_quant *q,
                                     int16_t *output, size_t output_len);
/* Convolution with groups; filter OHWI [out.c, kh, kw, in.c / groups]; zero padding and
 * no zero points, as TFLM's int16 kernel. */
flex_status flex_s16_conv2d(const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
                            const int8_t *filter, size_t filter_len,
                            const int32_t *bias, size_t bias_len,
                            const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                            const flex_window *win, int32_t groups, int32_t wide,
                            int32_t act_min, int32_t act_max, const flex_dims4 *out_dims,
                            int16_t *output, size_t output_len);
/* Depthwise convolution: out.c = in.c * depth_multiplier; filter [1, kh, kw, out.c]; always
 * TFLM's int64 arithmetic (its int16 kernel reads the bias as int64). */
flex_status flex_s16_depthwise_conv2d(
    const flex_dims4 *in_dims, const int16_t *input, size_t input_len,
    const int8_t *filter, size_t filter_len, const int32_t *bias, size_t bias_len,
    const int32_t *multiplier, const int32_t *shift, size_t quant_len,
    const flex_window *win, int32_t depth_multiplier, int32_t act_min, int32_t act_max,
    const flex_dims4 *out_dims, int16_t *output, size_t output_len);
/* output[i] = a[i] (+ or *) b[i % b_len] (b broadcast along the innermost dims; b_len
 * divides n), with TFLM's ADD (left_shift 15) and MUL parameters; int32 overflow wraps. */
flex_status flex_s16_add(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_add_params *p, int16_t *output);
flex_status flex_s16_mul(size_t n, const int16_t *a, const int16_t *b, size_t b_len,
                         const flex_s8_mul_params *p, int16_t *output);
/* Pools over the in-bounds cells of each window (same scale in and out, out.c == in.c). */
flex_status flex_s16_avg_pool2d(const flex_dims4 *in_dims, const int16_t *input,
                                size_t input_len, const flex_window *win,
                                int32_t act_min, int32_t act_max,
                                const flex_dims4 *out_dims, int16_t *output,
                                size_t output_len);
flex_status flex_s16_max_pool2d(const flex_dims4 *in_dims, const int16_t *input,
                                size_t input_len, const flex_window *win,
                                int32_t act_min, int32_t act_max,
                                const flex_dims4 *out_dims, int16_t *output,
                                size_t output_len);
/* Softmax over the last axis of [outer, depth] (depth <= 65536), output scale 1/32768: TFLM's
 * SoftmaxInt16, with its two 513-entry tables (exp on [-10, 0], 1 / (1 + x) on [0, 1]) and
 * input_multiplier / input_left_shift quantizing input_scale * beta / (10 / 65535). */
flex_status flex_s16_softmax(int32_t outer, int32_t depth, const int16_t *input,
                             size_t input_len, int32_t input_multiplier,
                             int32_t input_left_shift, const int16_t *exp_lut,
                             size_t exp_lut_len, const int16_t *inv_lut, size_t inv_lut_len,
                             int16_t *output, size_t output_len);
/* int16 LOGISTIC and TANH of n values (output scale 1/32768, zero point 0): TFLM's reference
 * integer Logistic and Tanh. Each input is rescaled to steps of 1 / (3 * 4096),
 * (x * input_multiplier + rounding) >> input_left_shift, or x * (3 << input_left_shift) when
 * input_multiplier is 0 (TFLM's power-of-two scales), then looked up with linear
 * interpolation in `table`: the 256 entries of sigmoid(i / 24) in Q0.16, uint16 values in
 * int16 storage (TANH reads it at twice the input). input_multiplier in [0, 65535],
 * input_left_shift in [0, 31], with 32768 times the multiplier plus the rounding within
 * int32. `output` may be `input`. */
flex_status flex_s16_logistic(size_t n, const int16_t *input, int32_t input_multiplier,
                              int32_t input_left_shift, const int16_t *table, size_t table_len,
                              int16_t *output);
flex_status flex_s16_tanh(size_t n, const int16_t *input, int32_t input_multiplier,
                          int32_t input_left_shift, const int16_t *table, size_t table_len,
                          int16_t *output);
/* Reductions over axes 1 and 3 of [outer, reduce, mid, reduce2, inner] -> [outer, mid, inner]
 * (TFLite SUM, REDUCE_MAX, REDUCE_MIN and MEAN over any axes, folded so; an optional op).
 * op: FLEX_REDUCE_SUM (int8: MBQM(sum - input_zero_point * count, multiplier, shift) +
 * output zero point, clamped, as TFLM's QuantizedMeanOrSum), _MAX, _MIN or _MEAN (float32
 * only). int8 max and min ignore the quantization arguments. */
flex_status flex_s8_reduce_axes(const int32_t dims[5], int32_t op, const int8_t *input,
                                size_t input_len, int32_t input_zero_point,
                                int32_t multiplier, int32_t shift, int32_t output_zero_point,
                                int8_t *output, size_t output_len);
flex_status flex_f32_reduce_axes(const int32_t dims[5], int32_t op, const float *input,
                                 size_t input_len, float *output, size_t output_len);

/* Image resizes (TFLite RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR; an optional op) through
 * sampling tables made once from TFLM's arithmetic: ys holds (y0, y1, wy) for each of the
 * out_dims->h rows, xs (x0, x1, wx) for each of the out_dims->w columns (ys_len, xs_len: 3
 * per position); in_dims and out_dims share n and c. int8: wy, wx in 1/1024 steps, in
 * [-512, 1024] (TFLM's ResizeBilinearInteger: the weighted sum rounded half away from zero
 * by 2**20, then cast). float32: fy, fx hold the out_dims->h and ->w fractions (TFLM's
 * ResizeBilinear); the tables' weights are not read. A nearest-neighbour resize has
 * y1 = y0 and zero weights. */
flex_status flex_s8_resize(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int32_t *ys, size_t ys_len, const int32_t *xs, size_t xs_len,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_f32_resize(const flex_dims4 *in_dims, const float *input, size_t input_len,
                            const int32_t *ys, size_t ys_len, const int32_t *xs,
                            size_t xs_len, const float *fy, const float *fx,
                            const flex_dims4 *out_dims, float *output, size_t output_len);

/* Index of the largest (op 0) or smallest (op 1) element along the middle axis of
 * [outer, reduce, inner] -> [outer, inner] (TFLite ARG_MAX, ARG_MIN, as TFLM picks it: the
 * first on ties, a strict comparison with the best so far; an optional op). The indices
 * are written as float32 values, exactly (reduce <= 2**24), with integer arithmetic only;
 * op + 2 writes them as int32 values into the same 4-byte words instead. */
flex_status flex_s8_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                        const int8_t *input, size_t input_len, float *output,
                        size_t output_len);
flex_status flex_f32_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                         const float *input, size_t input_len, float *output,
                         size_t output_len);

/* L2_NORMALIZATION over the last axis of [rows, depth] (an optional op), as TFLM: int8 out in
 * 1/128 steps, zero point 0 (the inverse square root of each row's sum of squares in
 * fixed point; depth <= 32768); float32 x / max(sqrt(sum of squares), 1e-6). */
flex_status flex_s8_l2norm(int32_t rows, int32_t depth, const int8_t *input, size_t input_len,
                           int32_t input_zero_point, int8_t *output, size_t output_len);
flex_status flex_f32_l2norm(int32_t rows, int32_t depth, const float *input, size_t input_len,
                            float *output, size_t output_len);

/* BATCH_MATMUL (an optional op): `batches` products of an [m, k] by a [k, n] matrix, out
 * [batches, m, n]. adj_x: a is stored [k, m]; adj_y: b is stored [n, k]. a_step / b_step:
 * elements from one product's operand to the next, 0 (broadcast) or the whole matrix. int8
 * as TFLM's reference BatchMatMul: MBQM(sum (a - a_zero_point) * (b - b_zero_point),
 * multiplier, shift) + output zero point, clamped to int8 (k <= 32768: the int32 sum stays
 * exact). */
typedef struct {
    int32_t batches, m, k, n, a_step, b_step, adj_x, adj_y;
} flex_matmul_dims;
flex_status flex_s8_batch_matmul(const flex_matmul_dims *d, const int8_t *a, size_t a_len,
                                 const int8_t *b, size_t b_len, int32_t a_zero_point,
                                 int32_t b_zero_point, int32_t output_zero_point,
                                 int32_t multiplier, int32_t shift, int8_t *output,
                                 size_t output_len);
flex_status flex_f32_batch_matmul(const flex_matmul_dims *d, const float *a, size_t a_len,
                                  const float *b, size_t b_len, float *output,
                                  size_t output_len);

/* ---- optional ops: elementwise arithmetic (flex_c/src/extra) ---------------------- */

/* int8 SUB (in1 - in2) and SQUARED_DIFFERENCE ((in1 - in2)^2) as TFLM's reference kernels:
 * ADD's scaling of each input (left_shift 20 for SUB, 7 for SQUARED_DIFFERENCE, whose
 * output multiplier and shift come from QuantizeMultiplier). Broadcasting as flex_s8_add. */
flex_status flex_s8_sub(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_add_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_s8_squared_difference(const flex_dims4 *in1_dims, const int8_t *in1,
                                       size_t in1_len, const flex_dims4 *in2_dims,
                                       const int8_t *in2, size_t in2_len,
                                       const flex_s8_add_params *p, const flex_dims4 *out_dims,
                                       int8_t *output, size_t output_len);
/* output[i] = op(a[i], b[i % b_len]) (b broadcast along the innermost dims; b_len divides
 * n), TFLM's MAXIMUM / MINIMUM (el1 > el2 ? el1 : el2), SUB, SUB with the operands swapped
 * (b - a) and SQUARED_DIFFERENCE. The int8 kernel compares the stored values (TFLM does the
 * same, whatever the scales) and takes the MAXIMUM and MINIMUM codes only; the float32
 * kernel then applies a fused activation `act` (FLEX_ACT_*). */
#define FLEX_ARITH_MAXIMUM 0
#define FLEX_ARITH_MINIMUM 1
#define FLEX_ARITH_SUB 2
#define FLEX_ARITH_SUB_SWAPPED 3
#define FLEX_ARITH_SQUARED_DIFFERENCE 4
/* float32 only: TFLM's DIV (a / b), FLOOR_DIV (floor of the float32 quotient) and FLOOR_MOD
 * (fmod moved to the divisor's sign), each followed by its code with the operands swapped
 * (b op a). */
#define FLEX_ARITH_DIV 5
#define FLEX_ARITH_DIV_SWAPPED 6
#define FLEX_ARITH_FLOOR_DIV 7
#define FLEX_ARITH_FLOOR_DIV_SWAPPED 8
#define FLEX_ARITH_FLOOR_MOD 9
#define FLEX_ARITH_FLOOR_MOD_SWAPPED 10
flex_status flex_s8_arith(int32_t op, size_t n, const int8_t *a, const int8_t *b,
                          size_t b_len, int8_t *output);
flex_status flex_f32_arith(int32_t op, size_t n, const float *a, const float *b, size_t b_len,
                           int32_t act, float *output);

/* ---- optional ops: comparisons and selection (flex_c/src/extra) ------------------- */

/* output[i] = 1 where a[i] op b[i % b_len] holds, else 0 (b broadcast along the innermost
 * dims; b_len divides n), op a FLEX_COMPARE_* code: TFLM's comparisons, whose BOOL output
 * is int8 0/1 here. The int8 kernel compares the operands rescaled as TFLM does, whatever
 * the scales: ((x + offset) << 8) times the operand's multiplier and shift (at most 0). */
#define FLEX_COMPARE_EQUAL 0
#define FLEX_COMPARE_NOT_EQUAL 1
#define FLEX_COMPARE_LESS 2
#define FLEX_COMPARE_LESS_EQUAL 3
#define FLEX_COMPARE_GREATER 4
#define FLEX_COMPARE_GREATER_EQUAL 5
typedef struct {
    int32_t input1_offset, input1_multiplier, input1_shift;
    int32_t input2_offset, input2_multiplier, input2_shift;
} flex_s8_compare_params;
flex_status flex_s8_compare(int32_t op, size_t n, const int8_t *a, const int8_t *b,
                            size_t b_len, const flex_s8_compare_params *p, int8_t *output);
flex_status flex_f32_compare(int32_t op, size_t n, const float *a, const float *b,
                             size_t b_len, int8_t *output);
/* TFLM's SELECT_V2 with operands that repeat along the innermost dims: output[i] =
 * x[i % x_len] where cond[i % cond_len] is nonzero, else y[i % y_len]; elements of
 * elem_size bytes (1 or 4); each length divides n. */
flex_status flex_select(int32_t elem_size, size_t n, const int8_t *cond, size_t cond_len,
                        const void *x, size_t x_len, const void *y, size_t y_len,
                        void *output);
/* Rows of params [outer, size, inner] at the run-time positions [count] into output
 * [outer, count, inner] (TFLite GATHER, EMBEDDING_LOOKUP; an optional op), elements of
 * elem_size bytes (1 or 4); a position outside [0, size) gives FLEX_E_PARAM before anything
 * is written. */
flex_status flex_gather(int32_t elem_size, int32_t outer, int32_t size, int32_t inner,
                        int32_t count, const void *params, size_t params_len,
                        const int32_t *positions, size_t positions_len, void *output,
                        size_t output_len);

/* ---- optional ops: int8 division (flex_c/src/extra) -------------------------------- */

/* TFLM's int8 DIV: output[i] = a[i] / b[i % b_len] in real values (b / a when swap is 1;
 * b_len divides n), with output_multiplier and output_shift from in1_scale / (in2_scale *
 * out_scale), where in1 is the dividend. A zero divisor gives what TFLM computes on
 * x86-64. output_shift in [FLEX_DIV_SHIFT_MIN, FLEX_DIV_SHIFT_MAX]. */
#define FLEX_DIV_SHIFT_MIN (-25)
#define FLEX_DIV_SHIFT_MAX 22
typedef struct {
    int32_t swap;
    int32_t input1_offset, input2_offset, output_offset;
    int32_t output_multiplier, output_shift;
    int32_t act_min, act_max;
} flex_s8_div_params;
flex_status flex_s8_div(size_t n, const int8_t *a, const int8_t *b, size_t b_len,
                        const flex_s8_div_params *p, int8_t *output);

/* ---- optional op: LSTM (flex_c/src/extra) ------------------------------------------ */

/* TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's micro kernel: input [batch, steps,
 * input_size] ([steps, batch, input_size] when time_major is 1), output laid out alike with
 * `units` values per step (the hidden state). w [4 * units, input_size], r [4 * units,
 * units] and bias [4 * units] stack the gates input, forget, cell, output. `state` persists
 * between calls: the hidden states [batch, units], the cell states [batch, units], then
 * room for 4 * units gate values (state_len >= (2 * batch + 4) * units). Per step: gate =
 * act(w . x + bias + r . h) (sigmoid; tanh for the cell gate), c = forget * c + input *
 * cell (clipped to +-cell_clip when cell_clip > 0), h = output * tanh(c). */
typedef struct {
    int32_t batch, steps, input_size, units, time_major;
} flex_lstm_dims;
flex_status flex_f32_lstm(const flex_lstm_dims *d, const float *input, size_t input_len,
                          const float *w, size_t w_len, const float *r, size_t r_len,
                          const float *bias, size_t bias_len, float *state, size_t state_len,
                          float cell_clip, float *output, size_t output_len);
/* int8 as TFLM's integer LSTM: int8 input, weights and hidden state, int32 biases, int16
 * gates and cell state; `state` holds int16 values, each hidden one less the hidden zero
 * point. Per gate g (TFLite's order) gate_q[4g..4g+4) are the multipliers and shifts of its
 * input part MBQM(w . (x - input_zero_point) + bias) and its recurrent part MBQM(r . (h -
 * output_zero_point)), each clamped to int16, summed with int16 saturation, then TFLM's
 * int16 sigmoid or tanh (flex_s16_logistic, flex_s16_tanh: `table`). c = sat16(MBQM(forget
 * * c, forget_*) + MBQM(input * cell, input_*)), clamped to +-cell_clip when cell_clip >= 0;
 * h = MBQM(tanh(c) * output, hidden_*) + output_zero_point clamped to int8, the tanh reading
 * c at scale 2**cell_power (-43..2). */
typedef struct {
    int32_t input_zero_point, output_zero_point, cell_clip, cell_power, forget_multiplier,
        forget_shift, input_multiplier, input_shift, hidden_multiplier, hidden_shift;
} flex_lstm_quant;
flex_status flex_s8_lstm(const flex_lstm_dims *d, const int8_t *input, size_t input_len,
                         const int8_t *w, size_t w_len, const int8_t *r, size_t r_len,
                         const int32_t *bias, size_t bias_len, const int32_t *gate_q,
                         size_t gate_q_len, const int16_t *table, size_t table_len,
                         int16_t *state, size_t state_len, const flex_lstm_quant *q,
                         int8_t *output, size_t output_len);

#ifdef __cplusplus
}
#endif
#endif /* FLEX_H */

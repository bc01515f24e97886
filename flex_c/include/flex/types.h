/* flex/types.h - part of flex.h, which includes it (include flex.h, not this file):
 * status codes, the library version and vector width, and the parameter blocks that
 * the kernels share. */
#ifndef FLEX_API_TYPES_H
#define FLEX_API_TYPES_H

#include <stddef.h>
#include <stdint.h>

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

/* The widest vectors, in bytes, that the host int8 kernels use: 64 on x86-64 hosts with
 * AVX-512 VNNI, 32 with AVX2, else 0 (the portable loops, and every other build). A `limit`
 * > 0 caps it from then on (1: the portable loops), a later 64 lifts the cap; 0 changes
 * nothing. Returns the width in effect. Every path gives the same results bit for bit. */
int32_t flex_s8_vector_width(int32_t limit);

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

#endif /* FLEX_API_TYPES_H */

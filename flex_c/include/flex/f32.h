/* flex/f32.h - part of flex.h, which includes it (include flex.h, not this file):
 * the float32 kernels of training (NCHW memory order, OIHW filters). */
#ifndef FLEX_API_F32_H
#define FLEX_API_F32_H

#include "types.h"

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

#endif /* FLEX_API_F32_H */

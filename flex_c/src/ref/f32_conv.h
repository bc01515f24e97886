/* What the float32 convolution (f32_conv.c, im2col GEMMs of any stride) shares with its
 * stride-1 paths (f32_conv_wide.c): the per-group sizes, the wide grids and their kernels. */
#ifndef FLEX_F32_CONV_H
#define FLEX_F32_CONV_H

#include "../common/internal.h"

/* p[0:n] = 0. */
FLEX_INLINE void flex__zero(float *p, int32_t n) {
    int32_t i;
    for (i = 0; i < n; i++)
        p[i] = 0.0f;
}

/* Per-group sizes of a convolution. */
typedef struct {
    int32_t cg, og, taps;
} flex__conv_sizes;

/* The depthwise fast path: a stride-1 depthwise convolution (groups == in.c == out.c), one
 * channel plane at a time on its wide grid. */
typedef struct {
    int32_t hp, wp; /* padded plane */
    int32_t len;    /* wide-grid positions that hold an output: (out_h - 1) * wp + out_w */
} flex__conv_grid;

/* 1, with g filled, when the depthwise fast path takes the convolution (its padded plane
 * fits the scratch); else 0. */
int flex__conv_dw_fits(const flex_dims4 *in, const flex_window *win, int32_t groups,
                       const flex_dims4 *out, flex__conv_grid *g);
/* y = the convolution (bias or NULL). */
void flex__conv_dw_forward(const flex_dims4 *in, const float *x, const float *weight,
                           const float *bias, const flex_window *win,
                           const flex_dims4 *out, const flex__conv_grid *g, float *y);
/* dx = the input gradient of dy (dx is overwritten). */
void flex__conv_dw_input_grad(const flex_dims4 *in, float *dx, const float *weight,
                              const flex_window *win, const flex_dims4 *out,
                              const float *dy, const flex__conv_grid *g);
/* dw += the weight gradient of dy. */
void flex__conv_dw_weight_grad(const flex_dims4 *in, const float *x, const flex_window *win,
                               const flex_dims4 *out, const float *dy, const flex__conv_grid *g,
                               float *dw);

/* The stride-1 forward pass as GEMMs that read the rows of the im2col matrix in place from
 * the (padded) input. */
typedef struct {
    int32_t hp, wp, len; /* padded input plane; wide-grid positions holding an output */
    int32_t copy;        /* whether the input needs a padded copy */
    int32_t rows;        /* output channels per GEMM (their wide rows fit the scratch) */
} flex__conv_wide;

/* 1, with w filled, when the stride-1 forward pass takes the convolution; else 0. */
int flex__conv_wide_fits(const flex_dims4 *in, const flex_window *win,
                         const flex__conv_sizes *s, const flex_dims4 *out, flex__conv_wide *w);
/* y += the convolution (y holds the bias already). */
void flex__conv_wide_forward(const flex_dims4 *in, const float *x, const float *weight,
                             const flex_window *win, int32_t groups, const flex_dims4 *out,
                             const flex__conv_sizes *s, const flex__conv_wide *w, float *y);

#endif

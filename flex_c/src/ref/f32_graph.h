/* What the float32 graph kernels (f32_graph.c, f32_graph_conv.c, f32_graph_depthwise.c)
 * share: one windowed op's parameters, its checks and the span runner that keeps to the
 * in-place rule of the .bst arena. */
#ifndef FLEX_F32_GRAPH_H
#define FLEX_F32_GRAPH_H

#include "../common/internal.h"

/* y[i] = clamp(y[i]); NaN passes through, as burn.graph's apply_act leaves it. */
FLEX_INLINE void flex__clamp_all(float *y, int32_t n, int32_t act, float lo, float hi) {
    int32_t i;
    if (act == FLEX_ACT_NONE)
        return;
    for (i = 0; i < n; i++) {
        const float v = y[i];
        y[i] = flex__clampf(v, lo, hi);
    }
}

/* Whether the a_len floats at a and the b_len floats at b share memory. */
FLEX_INLINE int flex__graph_overlaps(const float *a, size_t a_len, const float *b,
                                     size_t b_len) {
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + b_len * sizeof(float) && pb < pa + a_len * sizeof(float);
}

/* Computes output units (pixels, or rows of a fully connected layer) [p0, p1), each
 * `channels` floats, into dst, the fused activation included. */
typedef void (*flex__span_fn)(const void *ctx, int32_t p0, int32_t p1, float *dst);

/* Runs `fn` over all `units` output units, `row` of them to an output row, through a
 * scratch buffer when the output overlaps an input (`in_place`; see f32_graph.c). */
flex_status flex__by_spans(flex__span_fn fn, const void *ctx, int32_t units, int32_t row,
                           int32_t channels, int in_place, float *output);

/* A windowed op: convolution, depthwise convolution or pool. */
typedef struct {
    const flex_dims4 *in, *out;
    const flex_window *win;
    const float *x, *w, *bias;
    float lo, hi;
    int32_t act, groups, depth_multiplier, is_max;
    int32_t ic, oc, gic, goc, wstride, a_rs;
    int32_t buffered; /* a depthwise convolution's output lies over its input: each tile of
                         pixels is made in a buffer and then copied out (no scratch) */
} flex__graph_op;

/* Checks and fills what every windowed op shares. */
flex_status flex__graph_op_init(flex__graph_op *g, const flex_dims4 *in_dims,
                                const float *input, size_t input_len, const float *filter,
                                const float *bias, size_t bias_len, const flex_window *win,
                                int32_t act, const flex_dims4 *out_dims, float *output,
                                size_t output_len);
/* A filter of out.c * kh * kw * per_tap floats; g->wstride = kh * kw * per_tap (the length
 * of a convolution's filter row). */
flex_status flex__graph_check_filter(flex__graph_op *g, const float *filter, size_t filter_len,
                                     int32_t per_tap);

#endif

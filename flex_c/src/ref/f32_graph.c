/* float32 kernels of the exported graph (NHWC memory order, OHWI filters) with TFLite's fused
 * activation codes: what the windowed ops share (their checks and the in-place rule of the
 * .bst arena), the pools, which walk the channels of each pixel (contiguous in NHWC), and
 * the elementwise ops. The convolutions and fully connected layers are in
 * f32_graph_conv.c, the depthwise convolutions in f32_graph_depthwise.c. */
#include "f32_graph.h"

/* Stack scratch, in floats, for the output spans of in-place execution (see flex__by_spans). */
#if defined(__x86_64__) || defined(__aarch64__)
#define CHUNK_MAX 16384
#else
#define CHUNK_MAX 256
#endif

/* Runs `fn` over all `units` output units, `row` of them to an output row. The .bst arena
 * may place the output a little below an input that dies at this op (docs/bst-format.md):
 * unit p may be written once every input of the units up to p has been read. Then each span
 * is computed in a scratch buffer and copied out once complete, in increasing address
 * order. A span is whole rows where a row fits the scratch, else a multiple of
 * FLEX_WINOGRAD_TILE units within a row: it starts at a Winograd tile, so an op takes the
 * same path (and gives the same bits) in place or not. */
FLEX_NOINLINE
flex_status flex__by_spans(flex__span_fn fn, const void *ctx, int32_t units, int32_t row,
                           int32_t channels, int in_place, float *output) {
    FLEX_ALIGNED float scratch[CHUNK_MAX];
    int32_t per_span = CHUNK_MAX / channels, p0, p1, i;
    if (!in_place) {
        fn(ctx, 0, units, output);
        return FLEX_OK;
    }
    if (per_span < 1)
        return FLEX_E_SIZE; /* a unit larger than the scratch cannot run in place */
    if (per_span >= row)
        per_span = per_span / row * row;
    else if (per_span >= FLEX_WINOGRAD_TILE)
        per_span = per_span / FLEX_WINOGRAD_TILE * FLEX_WINOGRAD_TILE;
    for (p0 = 0; p0 < units; p0 = p1) {
        float *out = output + p0 * channels;
        p1 = units - p0 < per_span ? units : p0 + per_span;
        if (per_span < row && p1 / row > p0 / row)
            p1 = (p0 / row + 1) * row; /* the rest of the row */
        fn(ctx, p0, p1, scratch);
        for (i = 0; i < (p1 - p0) * channels; i++)
            out[i] = scratch[i];
    }
    return FLEX_OK;
}

/* Checks and fills what every windowed op shares. */
flex_status flex__graph_op_init(flex__graph_op *g, const flex_dims4 *in_dims, const float *input,
                                size_t input_len, const float *filter, const float *bias,
                                size_t bias_len, const flex_window *win, int32_t act,
                                const flex_dims4 *out_dims, float *output,
                                size_t output_len) {
    FLEX_TRY(flex__check_io(in_dims, input, input_len, win, out_dims, output, output_len,
                            0));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_dims->c));
    FLEX_TRY(flex__f32_act_range(act, &g->lo, &g->hi));
    g->in = in_dims;
    g->out = out_dims;
    g->win = win;
    g->x = input;
    g->w = filter;
    g->bias = bias;
    g->act = act;
    g->ic = in_dims->c;
    g->oc = out_dims->c;
    g->buffered = 0;
    return FLEX_OK;
}

/* A filter of out.c * kh * kw * per_tap floats; g->wstride = kh * kw * per_tap (the length
 * of a convolution's filter row). */
flex_status flex__graph_check_filter(flex__graph_op *g, const float *filter, size_t filter_len,
                                     int32_t per_tap) {
    int32_t count;
    if (!filter)
        return FLEX_E_NULL;
    FLEX_TRY(flex__product(g->win->kernel_h * g->win->kernel_w, per_tap, &g->wstride));
    FLEX_TRY(flex__product(g->wstride, g->oc, &count));
    return flex__check_len(filter_len, count);
}

/* Average (over the in-bounds cells) or max of each pixel's window: the first cell copied,
 * then one pass over the channels per further cell. */
FLEX_CLONES
static void pool_span(const void *ctx, int32_t p0, int32_t p1, float *dst) {
    const flex__graph_op *g = (const flex__graph_op *)ctx;
    const flex_window *win = g->win;
    const int32_t ch = g->oc, in_h = g->in->h, in_w = g->in->w;
    int32_t p, fy, fx, c;
    for (p = p0; p < p1; p++) {
        const int32_t ox = p % g->out->w, row = p / g->out->w;
        const int32_t oy = row % g->out->h, b = row / g->out->h;
        const int32_t y0 = oy * win->stride_h - win->pad_top;
        const int32_t x0 = ox * win->stride_w - win->pad_left;
        const int32_t fy0 = y0 < 0 ? -y0 : 0, fx0 = x0 < 0 ? -x0 : 0;
        const int32_t fy1 = in_h - y0 < win->kernel_h ? in_h - y0 : win->kernel_h;
        const int32_t fx1 = in_w - x0 < win->kernel_w ? in_w - x0 : win->kernel_w;
        const int32_t corner = ((b * in_h + y0) * in_w + x0) * ch; /* may lie outside */
        float *o = dst + (p - p0) * ch;
        if (fy0 >= fy1 || fx0 >= fx1) { /* a window in the padding only */
            for (c = 0; c < ch; c++)
                o[c] = 0.0f;
        } else {
            for (c = 0; c < ch; c++)
                o[c] = g->x[corner + (fy0 * in_w + fx0) * ch + c];
            for (fy = fy0; fy < fy1; fy++)
                for (fx = fy == fy0 ? fx0 + 1 : fx0; fx < fx1; fx++) {
                    const float *xi = g->x + corner + (fy * in_w + fx) * ch;
                    if (g->is_max)
                        for (c = 0; c < ch; c++)
                            o[c] = xi[c] > o[c] ? xi[c] : o[c];
                    else
                        for (c = 0; c < ch; c++)
                            o[c] += xi[c];
                }
            if (!g->is_max)
                for (c = 0; c < ch; c++)
                    o[c] /= (float)((fy1 - fy0) * (fx1 - fx0));
        }
        flex__clamp_all(o, ch, g->act, g->lo, g->hi);
    }
}

static flex_status pool(const flex_dims4 *in_dims, const float *x, size_t x_len,
                        const flex_window *win, int32_t act, const flex_dims4 *out_dims,
                        float *y, size_t y_len, int32_t is_max) {
    flex__graph_op g;
    FLEX_TRY(flex__graph_op_init(&g, in_dims, x, x_len, 0, 0, 0, win, act, out_dims, y, y_len));
    if (in_dims->c != out_dims->c || win->dilation_h != 1 || win->dilation_w != 1)
        return FLEX_E_SHAPE;
    g.is_max = is_max;
    return flex__by_spans(pool_span, &g, out_dims->n * out_dims->h * out_dims->w, out_dims->w, g.oc,
                          flex__graph_overlaps(x, x_len, y, y_len), y);
}

flex_status flex_f32_nhwc_avg_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len) {
    return pool(in_dims, input, input_len, win, act, out_dims, output, output_len, 0);
}

flex_status flex_f32_nhwc_max_pool2d(const flex_dims4 *in_dims, const float *input,
                                     size_t input_len, const flex_window *win, int32_t act,
                                     const flex_dims4 *out_dims, float *output,
                                     size_t output_len) {
    return pool(in_dims, input, input_len, win, act, out_dims, output, output_len, 1);
}

/* MEAN over the middle axis of [outer, reduce, inner], each output element written after
 * its inputs are read, in increasing order (the arena's in-place rule). */
flex_status flex_f32_mean(int32_t outer, int32_t reduce, int32_t inner, const float *input,
                          size_t input_len, float *output, size_t output_len) {
    int32_t count, a, k, r;
    if (!input || !output)
        return FLEX_E_NULL;
    if (outer < 1 || reduce < 1 || inner < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(outer, inner, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(flex__product(count, reduce, &count));
    FLEX_TRY(flex__check_len(input_len, count));
    for (a = 0; a < outer; a++)
        for (k = 0; k < inner; k++) {
            const float *x = input + a * reduce * inner + k;
            float acc = 0.0f;
            for (r = 0; r < reduce; r++)
                acc += x[r * inner];
            output[a * inner + k] = acc / (float)reduce;
        }
    return FLEX_OK;
}

/* y[i] = act(a[i] op b[i % b_len]), the innermost-dims broadcast of the graph's ADD / MUL. */
FLEX_CLONES
static flex_status binary(size_t n, const float *a, const float *b, size_t b_len,
                          int32_t act, float *y, int is_mul) {
    size_t i, j;
    float lo, hi;
    FLEX_TRY(flex__check_tiled(n, a, b, b_len, y));
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
    for (i = 0; i < n; i += b_len)
        for (j = 0; j < b_len; j++)
            y[i + j] = is_mul ? a[i + j] * b[j] : a[i + j] + b[j];
    for (i = 0; i < n; i += (size_t)INT32_MAX)
        flex__clamp_all(y + i, n - i < (size_t)INT32_MAX ? (int32_t)(n - i) : INT32_MAX, act, lo,
                        hi);
    return FLEX_OK;
}

flex_status flex_f32_add_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output) {
    return binary(n, a, b, b_len, act, output, 0);
}

flex_status flex_f32_mul_act(size_t n, const float *a, const float *b, size_t b_len,
                             int32_t act, float *output) {
    return binary(n, a, b, b_len, act, output, 1);
}

flex_status flex_f32_act(size_t n, const float *input, int32_t act, float *output) {
    size_t i;
    float lo, hi;
    if (!input || !output)
        return FLEX_E_NULL;
    FLEX_TRY(flex__f32_act_range(act, &lo, &hi));
    for (i = 0; i < n; i++) {
        const float v = input[i];
        output[i] = act == FLEX_ACT_NONE ? v : flex__clampf(v, lo, hi);
    }
    return FLEX_OK;
}

flex_status flex_f32_softmax_beta(int32_t rows, int32_t depth, const float *input,
                                  size_t input_len, float beta, float *output,
                                  size_t output_len) {
    int32_t r, c;
    FLEX_TRY(flex__check_rows(rows, depth, INT32_MAX, input, input_len, output, output_len));
    for (r = 0; r < rows; r++) {
        const float *x = input + r * depth;
        float *y = output + r * depth;
        float top = x[0], total = 0.0f;
        for (c = 1; c < depth; c++)
            if (x[c] > top)
                top = x[c];
        for (c = 0; c < depth; c++) {
            y[c] = flex__expf((x[c] - top) * beta);
            total += y[c];
        }
        for (c = 0; c < depth; c++)
            y[c] = y[c] / total;
    }
    return FLEX_OK;
}

/* The stride-1 paths of the float32 convolution (f32_conv.c), which need no im2col: both
 * compute on a "wide" output grid as wide as the zero-padded input rows (row oy at oy * wp;
 * its columns past out_w are computed and dropped), on which every tap of an output is one
 * offset into the padded input.
 */
#include "f32_conv.h"

/* ---- depthwise fast path ----------------------------------------------------------------
 * A depthwise convolution (groups == in.c == out.c) with stride 1 is a tiny GEMM per
 * channel (one row), so it runs directly instead: the plane is
 * copied into a zero-padded scratch of width wp; then every tap is one long contiguous
 * multiply-add over a "wide" output grid of the same width (row oy at oy * wp; its columns
 * past out_w are scratch and dropped), instead of short loops over each output row. */
#if defined(__x86_64__) || defined(__aarch64__)
#define DW_SCRATCH 8192
#else
#define DW_SCRATCH 256
#endif

int flex__conv_dw_fits(const flex_dims4 *in, const flex_window *win, int32_t groups,
                       const flex_dims4 *out, flex__conv_grid *g) {
    if (in->c != groups || out->c != groups || win->stride_h != 1 || win->stride_w != 1)
        return 0;
    g->hp = out->h + (win->kernel_h - 1) * win->dilation_h;
    g->wp = out->w + (win->kernel_w - 1) * win->dilation_w;
    g->len = (out->h - 1) * g->wp + out->w;
    return (int64_t)g->hp * g->wp <= DW_SCRATCH;
}

/* xp (hp x wp) = the plane x (h x w) shifted by the top / left padding, zeros elsewhere. */
static void pad_plane(const float *x, const flex_dims4 *in, const flex_window *win,
                      const flex__conv_grid *g, float *xp) {
    int32_t y, c;
    flex__zero(xp, g->hp * g->wp);
    for (y = 0; y < in->h; y++)
        for (c = 0; c < in->w; c++)
            xp[(y + win->pad_top) * g->wp + c + win->pad_left] = x[y * in->w + c];
}

static int32_t tap_offset(const flex_window *win, const flex__conv_grid *g, int32_t tap) {
    return (tap / win->kernel_w) * win->dilation_h * g->wp +
           (tap % win->kernel_w) * win->dilation_w;
}

FLEX_CLONES
static void axpy(int32_t n, float a, const float *x, float *y) {
    int32_t i;
    for (i = 0; i < n; i++)
        y[i] += a * x[i];
}

FLEX_CLONES
static float dot(int32_t n, const float *x, const float *y) {
    float acc[8];
    const int32_t n8 = n - n % 8;
    int32_t i, j;
    for (j = 0; j < 8; j++) /* a loop, not an initializer: that would call memset */
        acc[j] = 0.0f;
    for (i = 0; i < n8; i += 8) { /* eight lanes: one vector register */
        float t[8];
        for (j = 0; j < 8; j++)
            t[j] = x[i + j] * y[i + j];
        for (j = 0; j < 8; j++)
            acc[j] += t[j];
    }
    for (; i < n; i++)
        acc[0] += x[i] * y[i];
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* dy_w (wide grid) = the output plane dy, zeros in the dropped columns. */
static void widen(const float *dy, const flex_dims4 *out, const flex__conv_grid *g,
                  float *dy_w) {
    int32_t y, c;
    flex__zero(dy_w, g->len);
    for (y = 0; y < out->h; y++)
        for (c = 0; c < out->w; c++)
            dy_w[y * g->wp + c] = dy[y * out->w + c];
}

void flex__conv_dw_forward(const flex_dims4 *in, const float *x, const float *weight,
                           const float *bias, const flex_window *win,
                           const flex_dims4 *out, const flex__conv_grid *g, float *y) {
    float xp[DW_SCRATCH], acc[DW_SCRATCH];
    const int32_t taps = win->kernel_h * win->kernel_w;
    int32_t b, ch, t, r, c;
    for (b = 0; b < in->n; b++)
        for (ch = 0; ch < in->c; ch++) {
            float *yp = y + (b * out->c + ch) * out->h * out->w;
            pad_plane(x + (b * in->c + ch) * in->h * in->w, in, win, g, xp);
            flex__zero(acc, g->len);
            for (t = 0; t < taps; t++)
                axpy(g->len, weight[ch * taps + t], xp + tap_offset(win, g, t), acc);
            for (r = 0; r < out->h; r++)
                for (c = 0; c < out->w; c++)
                    yp[r * out->w + c] = acc[r * g->wp + c] + (bias ? bias[ch] : 0.0f);
        }
}

void flex__conv_dw_input_grad(const flex_dims4 *in, float *dx, const float *weight,
                              const flex_window *win, const flex_dims4 *out,
                              const float *dy, const flex__conv_grid *g) {
    float dxp[DW_SCRATCH], dy_w[DW_SCRATCH];
    const int32_t taps = win->kernel_h * win->kernel_w;
    int32_t b, ch, t, r, c;
    for (b = 0; b < in->n; b++)
        for (ch = 0; ch < in->c; ch++) {
            float *dxc = dx + (b * in->c + ch) * in->h * in->w;
            flex__zero(dxp, g->hp * g->wp);
            widen(dy + (b * out->c + ch) * out->h * out->w, out, g, dy_w);
            for (t = 0; t < taps; t++)
                axpy(g->len, weight[ch * taps + t], dy_w, dxp + tap_offset(win, g, t));
            /* with stride 1 the padded plane is exactly hp x wp: the input is inside it */
            for (r = 0; r < in->h; r++)
                for (c = 0; c < in->w; c++)
                    dxc[r * in->w + c] = dxp[(r + win->pad_top) * g->wp + c + win->pad_left];
        }
}

void flex__conv_dw_weight_grad(const flex_dims4 *in, const float *x, const flex_window *win,
                               const flex_dims4 *out, const float *dy, const flex__conv_grid *g,
                               float *dw) {
    float xp[DW_SCRATCH], dy_w[DW_SCRATCH];
    const int32_t taps = win->kernel_h * win->kernel_w;
    int32_t b, ch, t;
    for (b = 0; b < in->n; b++)
        for (ch = 0; ch < in->c; ch++) {
            pad_plane(x + (b * in->c + ch) * in->h * in->w, in, win, g, xp);
            widen(dy + (b * out->c + ch) * out->h * out->w, out, g, dy_w);
            for (t = 0; t < taps; t++)
                dw[ch * taps + t] += dot(g->len, dy_w, xp + tap_offset(win, g, t));
        }
}

/* ---- stride-1 convolution without im2col ----------------------------------------------
 * With stride 1, tap (ic, ky, kx) of output (oy, ox) reads element (ic, oy + ky * dh,
 * ox + kx * dw) of the zero-padded input. On a "wide" output grid with the padded rows'
 * width wp (position j = oy * wp + ox) that is xp[ic * hp * wp + ky * dh * wp + kx * dw + j],
 * so every row of the im2col matrix is one contiguous run of the padded input and the GEMM
 * reads it in place (flex__gemm_rows). The wide grid's columns ox >= out_w are computed and
 * dropped. Without padding the input itself is the padded input. */
#if defined(__x86_64__) || defined(__aarch64__)
#define WIDE_INPUT 32768 /* floats of padded input copy */
#define WIDE_OUTPUT 32768 /* floats of wide output rows */
#define WIDE_TAPS 4608
#else
#define WIDE_INPUT 1
#define WIDE_OUTPUT 1
#define WIDE_TAPS 1
#endif

int flex__conv_wide_fits(const flex_dims4 *in, const flex_window *win,
                         const flex__conv_sizes *s, const flex_dims4 *out, flex__conv_wide *w) {
    if (win->stride_h != 1 || win->stride_w != 1 || s->taps > WIDE_TAPS)
        return 0;
    w->hp = out->h + (win->kernel_h - 1) * win->dilation_h;
    w->wp = out->w + (win->kernel_w - 1) * win->dilation_w;
    w->len = (out->h - 1) * w->wp + out->w;
    w->copy = win->pad_top || win->pad_bottom || win->pad_left || win->pad_right;
    if (w->copy && (int64_t)s->cg * w->hp * w->wp + FLEX_GEMM_NR > WIDE_INPUT)
        return 0; /* the copy keeps FLEX_GEMM_NR floats of slack (flex__gemm_rows) */
    w->rows = s->og; /* without dropped columns the GEMM writes y itself */
    if (w->wp != out->w && (int64_t)s->og * w->len > WIDE_OUTPUT)
        w->rows = WIDE_OUTPUT / w->len / 4 * 4; /* whole tiles of four rows */
    return w->rows >= 1;
}

/* xp (cg planes of hp x wp, then FLEX_GEMM_NR floats of slack) = the group's input planes
 * at the padding's offset, zeros elsewhere. */
static void pad_planes(const float *x, int32_t cg, const flex_dims4 *in,
                       const flex_window *win, const flex__conv_wide *w, float *xp) {
    int32_t c, r, col;
    flex__zero(xp, cg * w->hp * w->wp + FLEX_GEMM_NR);
    for (c = 0; c < cg; c++)
        for (r = 0; r < in->h; r++)
            for (col = 0; col < in->w; col++)
                xp[(c * w->hp + r + win->pad_top) * w->wp + col + win->pad_left] =
                    x[(c * in->h + r) * in->w + col];
}

FLEX_NOINLINE void flex__conv_wide_forward(const flex_dims4 *in, const float *x,
                                           const float *weight, const flex_window *win,
                                           int32_t groups, const flex_dims4 *out,
                                           const flex__conv_sizes *s, const flex__conv_wide *w,
                                           float *y) {
    float xp[WIDE_INPUT], tmp[WIDE_OUTPUT];
    int32_t off[WIDE_TAPS];
    const int32_t pixels = out->h * out->w, kk = win->kernel_h * win->kernel_w;
    int32_t b, g, t, oc0, r, oy, ox;
    for (t = 0; t < s->taps; t++)
        off[t] = (t / kk) * w->hp * w->wp + (t % kk / win->kernel_w) * win->dilation_h * w->wp +
                 (t % win->kernel_w) * win->dilation_w;
    for (b = 0; b < in->n; b++)
        for (g = 0; g < groups; g++) {
            const float *xg = x + (b * in->c + g * s->cg) * in->h * in->w;
            if (w->copy)
                pad_planes(xg, s->cg, in, win, w, xp);
            for (oc0 = 0; oc0 < s->og; oc0 += w->rows) {
                const int32_t m = s->og - oc0 < w->rows ? s->og - oc0 : w->rows;
                const int32_t first = g * s->og + oc0;
                float *yb = y + (b * out->c + first) * pixels;
                if (w->wp == out->w) { /* the wide grid is the output grid */
                    flex__gemm_rows(m, w->len, s->taps, weight + first * s->taps, s->taps,
                                    w->copy ? xp : xg, off, w->copy, yb, pixels);
                    continue;
                }
                flex__zero(tmp, m * w->len);
                flex__gemm_rows(m, w->len, s->taps, weight + first * s->taps, s->taps,
                                w->copy ? xp : xg, off, w->copy, tmp, w->len);
                for (r = 0; r < m; r++)
                    for (oy = 0; oy < out->h; oy++)
                        for (ox = 0; ox < out->w; ox++)
                            yb[r * pixels + oy * out->w + ox] +=
                                tmp[r * w->len + oy * w->wp + ox];
            }
        }
}

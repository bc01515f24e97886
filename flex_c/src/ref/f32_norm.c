/* float32 batch normalisation over the middle axis of [outer, c, inner] (NCHW: outer = n,
 * inner = h * w) and its gradients. Per-channel vectors hold c floats. */
#include "../common/internal.h"

static flex_status check_norm(int32_t outer, int32_t c, int32_t inner, const float *x,
                              size_t x_len) {
    int32_t count;
    if (!x)
        return FLEX_E_NULL;
    if (outer < 1 || c < 1 || inner < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(outer, c, &count));
    FLEX_TRY(flex__product(count, inner, &count));
    return flex__check_len(x_len, count);
}

/* The body of a sum of TERM(i) over i < n in eight interleaved partial sums (vectorizable);
 * the row sums below differ only in their term. */
#define LANE_SUM(TERM)                                                                      \
    do {                                                                                    \
        float a[8];                                                                         \
        const int32_t n8 = n - n % 8;                                                       \
        int32_t i, j;                                                                       \
        for (j = 0; j < 8; j++) /* a loop, not an initializer: that would call memset */   \
            a[j] = 0.0f;                                                                    \
        for (i = 0; i < n8; i += 8)                                                         \
            for (j = 0; j < 8; j++)                                                         \
                a[j] += TERM(i + j);                                                        \
        for (; i < n; i++)                                                                  \
            a[0] += TERM(i);                                                                \
        return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));           \
    } while (0)
#define PLAIN(i) x[i]
#define SQUARE_DEV(i) ((x[i] - mean) * (x[i] - mean))
#define DEV_DOT(i) ((x[i] - mean) * w[i])

/* sum(x[0:n]) */
FLEX_CLONES
static float row_sum(const float *x, int32_t n) { LANE_SUM(PLAIN); }

/* sum((x[0:n] - mean)^2) */
FLEX_CLONES
static float row_square_dev(const float *x, float mean, int32_t n) { LANE_SUM(SQUARE_DEV); }

/* sum((x[0:n] - mean) * w[0:n]) */
FLEX_CLONES
static float row_dev_dot(const float *x, float mean, const float *w, int32_t n) {
    LANE_SUM(DEV_DOT);
}

/* y[0:n] = x[0:n] * scale + shift */
FLEX_CLONES
static void row_affine(const float *x, float scale, float shift, int32_t n, float *y) {
    int32_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] * scale + shift;
}

/* dx[0:n] = dy * a + (x - mean) * b + d  (the input gradient with batch statistics) */
FLEX_CLONES
static void row_grad(const float *x, const float *dy, float mean, float a, float b, float d,
                     int32_t n, float *dx) {
    int32_t i;
    for (i = 0; i < n; i++)
        dx[i] = dy[i] * a + (x[i] - mean) * b + d;
}

flex_status flex_f32_batch_norm_stats(int32_t outer, int32_t c, int32_t inner, const float *x,
                                      size_t x_len, float *mean, float *var) {
    int32_t o, ch;
    FLEX_TRY(check_norm(outer, c, inner, x, x_len));
    if (!mean || !var)
        return FLEX_E_NULL;
    /* two passes (mean, then squared deviations): no cancellation for large means */
    for (ch = 0; ch < c; ch++) {
        float s = 0.0f, q = 0.0f;
        for (o = 0; o < outer; o++)
            s += row_sum(x + (o * c + ch) * inner, inner);
        s /= (float)outer * (float)inner;
        for (o = 0; o < outer; o++)
            q += row_square_dev(x + (o * c + ch) * inner, s, inner);
        mean[ch] = s;
        var[ch] = q / ((float)outer * (float)inner);
    }
    return FLEX_OK;
}

flex_status flex_f32_batch_norm(int32_t outer, int32_t c, int32_t inner, const float *x,
                                size_t x_len, const float *mean, const float *invstd,
                                const float *weight, const float *bias, float *y,
                                size_t y_len) {
    int32_t o, ch;
    FLEX_TRY(check_norm(outer, c, inner, x, x_len));
    if (!mean || !invstd || !y)
        return FLEX_E_NULL;
    FLEX_TRY(flex__check_len(y_len, (int32_t)x_len));
    for (ch = 0; ch < c; ch++) {
        const float scale = invstd[ch] * (weight ? weight[ch] : 1.0f);
        const float shift = (bias ? bias[ch] : 0.0f) - mean[ch] * scale;
        for (o = 0; o < outer; o++)
            row_affine(x + (o * c + ch) * inner, scale, shift, inner, y + (o * c + ch) * inner);
    }
    return FLEX_OK;
}

flex_status flex_f32_batch_norm_grad(int32_t outer, int32_t c, int32_t inner, const float *x,
                                     size_t x_len, const float *dy, size_t dy_len,
                                     const float *mean, const float *invstd,
                                     const float *weight, int32_t batch_stats, float *dx,
                                     size_t dx_len, float *dweight, float *dbias) {
    int32_t o, ch;
    FLEX_TRY(check_norm(outer, c, inner, x, x_len));
    if (!dy || !mean || !invstd || !dweight || !dbias)
        return FLEX_E_NULL;
    if (batch_stats != 0 && batch_stats != 1)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_len(dy_len, (int32_t)x_len));
    if (dx)
        FLEX_TRY(flex__check_len(dx_len, (int32_t)x_len));
    for (ch = 0; ch < c; ch++) {
        const float m = (float)outer * (float)inner, r = invstd[ch];
        const float scale = r * (weight ? weight[ch] : 1.0f);
        float sg = 0.0f, sgx = 0.0f;
        for (o = 0; o < outer; o++) {
            const int32_t at = (o * c + ch) * inner;
            sg += row_sum(dy + at, inner);
            sgx += row_dev_dot(x + at, mean[ch], dy + at, inner);
        }
        dbias[ch] = sg; /* sum(dy) */
        dweight[ch] = sgx * r; /* sum(dy * xhat) */
        if (!dx)
            continue;
        /* dx = scale * (dy - sum(dy) / m - xhat * sum(dy * xhat) / m) */
        for (o = 0; o < outer; o++) {
            const int32_t at = (o * c + ch) * inner;
            if (batch_stats)
                row_grad(x + at, dy + at, mean[ch], scale, -scale * r * dweight[ch] / m,
                         -scale * sg / m, inner, dx + at);
            else
                row_affine(dy + at, scale, 0.0f, inner, dx + at);
        }
    }
    return FLEX_OK;
}

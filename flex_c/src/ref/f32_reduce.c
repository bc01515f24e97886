/* float32 reductions and (log-)softmax over the middle axis of [outer, axis, inner]. */
#include "../common/internal.h"

static flex_status check_3d(int32_t outer, int32_t axis, int32_t inner, const float *x,
                            size_t x_len, const float *y, size_t y_len, int keep_axis) {
    int32_t count;
    if (!x || !y)
        return FLEX_E_NULL;
    if (outer < 1 || axis < 1 || inner < 1)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(outer, inner, &count));
    if (!keep_axis)
        FLEX_TRY(flex__check_len(y_len, count));
    FLEX_TRY(flex__product(count, axis, &count));
    FLEX_TRY(flex__check_len(x_len, count));
    return keep_axis ? flex__check_len(y_len, count) : FLEX_OK;
}

/* Sum of n contiguous floats in eight interleaved partial sums (vectorizable). */
FLEX_CLONES
static float row_sum(const float *x, int32_t n) {
    float acc[8];
    const int32_t n8 = n - n % 8;
    int32_t i, j;
    for (j = 0; j < 8; j++) /* a loop, not an initializer: that would call memset */
        acc[j] = 0.0f;
    for (i = 0; i < n8; i += 8)
        for (j = 0; j < 8; j++)
            acc[j] += x[i + j];
    for (; i < n; i++)
        acc[0] += x[i];
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* yo[0:inner] op= xa[0:inner], one loop per op so that each vectorizes. */
FLEX_CLONES
static void fold_row(int32_t op, float *yo, const float *xa, int32_t inner) {
    int32_t i;
    if (op == FLEX_REDUCE_SUM || op == FLEX_REDUCE_MEAN) {
        for (i = 0; i < inner; i++)
            yo[i] += xa[i];
    } else if (op == FLEX_REDUCE_MAX) {
        for (i = 0; i < inner; i++) {
            const float v = xa[i], m = yo[i];
            yo[i] = (m != m || m >= v) ? m : v;
        }
    } else {
        for (i = 0; i < inner; i++) {
            const float v = xa[i], m = yo[i];
            yo[i] = (m != m || m <= v) ? m : v;
        }
    }
}

flex_status flex_f32_reduce(int32_t op, int32_t outer, int32_t axis, int32_t inner,
                            const float *x, size_t x_len, float *y, size_t y_len) {
    int32_t o, a, i;
    const int summing = op == FLEX_REDUCE_SUM || op == FLEX_REDUCE_MEAN;
    if (op < 0 || op >= FLEX_REDUCE_COUNT)
        return FLEX_E_PARAM;
    FLEX_TRY(check_3d(outer, axis, inner, x, x_len, y, y_len, 0));
    for (o = 0; o < outer; o++) {
        float *yo = y + o * inner;
        const float *xo = x + o * axis * inner;
        if (inner == 1 && summing) { /* a contiguous row: partial sums, not a chain */
            yo[0] = row_sum(xo, axis);
        } else if (inner == 1) {
            float m = xo[0];
            for (a = 1; a < axis; a++) {
                const float v = xo[a];
                if (op == FLEX_REDUCE_MAX ? !(m != m || m >= v) : !(m != m || m <= v))
                    m = v;
            }
            yo[0] = m;
        } else {
            for (i = 0; i < inner; i++)
                yo[i] = xo[i];
            for (a = 1; a < axis; a++)
                fold_row(op, yo, xo + a * inner, inner);
        }
        if (op == FLEX_REDUCE_MEAN)
            for (i = 0; i < inner; i++)
                yo[i] /= (float)axis;
    }
    return FLEX_OK;
}

/* Shared body: y = x - max - log(sum(exp(x - max))) when log_out, else the normalized exp. */
static flex_status softmax(int32_t outer, int32_t axis, int32_t inner, const float *x,
                           size_t x_len, float *y, size_t y_len, int log_out) {
    int32_t o, a, i;
    FLEX_TRY(check_3d(outer, axis, inner, x, x_len, y, y_len, 1));
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float *xo = x + o * axis * inner + i;
            float *yo = y + o * axis * inner + i;
            float m = xo[0], s = 0.0f;
            for (a = 1; a < axis; a++)
                m = xo[a * inner] > m ? xo[a * inner] : m;
            for (a = 0; a < axis; a++) {
                const float e = flex__expf(xo[a * inner] - m);
                s += e;
                if (!log_out)
                    yo[a * inner] = e;
            }
            if (log_out) {
                const float ls = flex__logf(s);
                for (a = 0; a < axis; a++)
                    yo[a * inner] = xo[a * inner] - m - ls;
            } else {
                const float inv = 1.0f / s;
                for (a = 0; a < axis; a++)
                    yo[a * inner] *= inv;
            }
        }
    return FLEX_OK;
}

flex_status flex_f32_softmax(int32_t outer, int32_t axis, int32_t inner, const float *x,
                             size_t x_len, float *y, size_t y_len) {
    return softmax(outer, axis, inner, x, x_len, y, y_len, 0);
}

flex_status flex_f32_log_softmax(int32_t outer, int32_t axis, int32_t inner, const float *x,
                                 size_t x_len, float *y, size_t y_len) {
    return softmax(outer, axis, inner, x, x_len, y, y_len, 1);
}

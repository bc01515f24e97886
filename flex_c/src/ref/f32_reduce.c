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

flex_status flex_f32_reduce(int32_t op, int32_t outer, int32_t axis, int32_t inner,
                            const float *x, size_t x_len, float *y, size_t y_len) {
    int32_t o, a, i;
    if (op < 0 || op >= FLEX_REDUCE_COUNT)
        return FLEX_E_PARAM;
    FLEX_TRY(check_3d(outer, axis, inner, x, x_len, y, y_len, 0));
    for (o = 0; o < outer; o++) {
        float *yo = y + o * inner;
        const float *xo = x + o * axis * inner;
        for (i = 0; i < inner; i++)
            yo[i] = xo[i];
        for (a = 1; a < axis; a++) {
            const float *xa = xo + a * inner;
            for (i = 0; i < inner; i++) {
                const float v = xa[i], m = yo[i];
                if (op == FLEX_REDUCE_SUM || op == FLEX_REDUCE_MEAN)
                    yo[i] = m + v;
                else if (op == FLEX_REDUCE_MAX)
                    yo[i] = (m != m || m >= v) ? m : v;
                else
                    yo[i] = (m != m || m <= v) ? m : v;
            }
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

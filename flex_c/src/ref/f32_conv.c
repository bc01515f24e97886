/* float32 convolution with groups (NCHW, OIHW) and its input / weight gradients. All three
 * walk the same (image, output channel, input channel, ky, kx) nest; for each tap the range
 * of output columns whose input column lies inside the image is computed once. */
#include "../common/internal.h"

typedef struct {
    int32_t ox_lo, ox_hi; /* output columns with a valid input column */
    int32_t x_off;        /* input column of output column 0 */
} tap_cols;

static tap_cols columns(const flex_window *win, int32_t kx, int32_t in_w, int32_t out_w) {
    tap_cols t;
    const int32_t first = win->pad_left - kx * win->dilation_w; /* ox*stride >= first */
    const int32_t last = in_w - 1 + first;                        /* ox*stride <= last */
    t.x_off = -first;
    t.ox_lo = first <= 0 ? 0 : (first + win->stride_w - 1) / win->stride_w;
    t.ox_hi = last < 0 ? 0 : last / win->stride_w + 1;
    if (t.ox_hi > out_w)
        t.ox_hi = out_w;
    if (t.ox_lo > t.ox_hi)
        t.ox_lo = t.ox_hi;
    return t;
}

static flex_status check_conv(const flex_dims4 *in_dims, const void *x, size_t x_len,
                              const void *weight, size_t weight_len, const flex_window *win,
                              int32_t groups, const flex_dims4 *out_dims, const void *y,
                              size_t y_len) {
    int32_t count;
    if (!x || !weight || !y)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(in_dims, &count));
    FLEX_TRY(flex__check_len(x_len, count));
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(y_len, count));
    FLEX_TRY(flex__check_spatial(in_dims, win, out_dims, 0));
    if (groups < 1 || in_dims->c % groups != 0 || out_dims->c % groups != 0)
        return FLEX_E_SHAPE;
    FLEX_TRY(flex__product(out_dims->c, in_dims->c / groups, &count));
    FLEX_TRY(flex__product(count, win->kernel_h, &count));
    FLEX_TRY(flex__product(count, win->kernel_w, &count));
    return flex__check_len(weight_len, count);
}

static void zero(float *p, int32_t n) {
    int32_t i;
    for (i = 0; i < n; i++)
        p[i] = 0.0f;
}

#define MODE_FORWARD 0
#define MODE_INPUT_GRAD 1
#define MODE_WEIGHT_GRAD 2

/* One pass of the shared loop nest; `mode` picks what each tap accumulates. */
static void conv_nest(const flex_dims4 *in, float *x, float *weight, const flex_window *win,
                      int32_t groups, const flex_dims4 *out, float *y, int mode) {
    const int32_t fic = in->c / groups, per_group = out->c / groups;
    const int32_t plane_in = in->h * in->w, plane_out = out->h * out->w;
    const int32_t sw = win->stride_w;
    int32_t b, oc, icg, ky, kx, oy, ox;
    for (b = 0; b < out->n; b++)
        for (oc = 0; oc < out->c; oc++) {
            float *yp = y + (b * out->c + oc) * plane_out;
            for (icg = 0; icg < fic; icg++) {
                const int32_t ic = (oc / per_group) * fic + icg;
                float *xp = x + (b * in->c + ic) * plane_in;
                for (ky = 0; ky < win->kernel_h; ky++)
                    for (kx = 0; kx < win->kernel_w; kx++) {
                        float *wp = weight + ((oc * fic + icg) * win->kernel_h + ky) *
                                                 win->kernel_w + kx;
                        const tap_cols t = columns(win, kx, in->w, out->w);
                        float acc = 0.0f;
                        for (oy = 0; oy < out->h; oy++) {
                            const int32_t iy =
                                oy * win->stride_h - win->pad_top + ky * win->dilation_h;
                            float *yr = yp + oy * out->w;
                            float *xr;
                            if (iy < 0 || iy >= in->h)
                                continue;
                            xr = xp + iy * in->w;
                            if (mode == MODE_FORWARD) {
                                const float wv = *wp;
                                for (ox = t.ox_lo; ox < t.ox_hi; ox++)
                                    yr[ox] += wv * xr[ox * sw + t.x_off];
                            } else if (mode == MODE_INPUT_GRAD) {
                                const float wv = *wp;
                                for (ox = t.ox_lo; ox < t.ox_hi; ox++)
                                    xr[ox * sw + t.x_off] += wv * yr[ox];
                            } else {
                                for (ox = t.ox_lo; ox < t.ox_hi; ox++)
                                    acc += yr[ox] * xr[ox * sw + t.x_off];
                            }
                        }
                        if (mode == MODE_WEIGHT_GRAD)
                            *wp += acc;
                    }
            }
        }
}

flex_status flex_f32_conv2d(const flex_dims4 *in_dims, const float *x, size_t x_len,
                            const float *weight, size_t weight_len,
                            const float *bias, size_t bias_len,
                            const flex_window *win, int32_t groups,
                            const flex_dims4 *out_dims, float *y, size_t y_len) {
    int32_t b, oc, i, plane;
    FLEX_TRY(check_conv(in_dims, x, x_len, weight, weight_len, win, groups, out_dims, y,
                        y_len));
    FLEX_TRY(flex__check_bias(bias, bias_len, out_dims->c));
    plane = out_dims->h * out_dims->w;
    for (b = 0; b < out_dims->n; b++)
        for (oc = 0; oc < out_dims->c; oc++) {
            float *yp = y + (b * out_dims->c + oc) * plane;
            for (i = 0; i < plane; i++)
                yp[i] = bias ? bias[oc] : 0.0f;
        }
    /* the nest only reads x and weight in this mode */
    conv_nest(in_dims, (float *)x, (float *)weight, win, groups, out_dims, y, MODE_FORWARD);
    return FLEX_OK;
}

flex_status flex_f32_conv2d_input_grad(const flex_dims4 *in_dims, float *dx, size_t dx_len,
                                       const float *weight, size_t weight_len,
                                       const flex_window *win, int32_t groups,
                                       const flex_dims4 *out_dims, const float *dy,
                                       size_t dy_len) {
    FLEX_TRY(check_conv(in_dims, dx, dx_len, weight, weight_len, win, groups, out_dims, dy,
                        dy_len));
    zero(dx, (int32_t)dx_len);
    conv_nest(in_dims, dx, (float *)weight, win, groups, out_dims, (float *)dy,
              MODE_INPUT_GRAD);
    return FLEX_OK;
}

flex_status flex_f32_conv2d_weight_grad(const flex_dims4 *in_dims, const float *x,
                                        size_t x_len, const flex_window *win, int32_t groups,
                                        const flex_dims4 *out_dims, const float *dy,
                                        size_t dy_len, float *dw, size_t dw_len,
                                        float *db, size_t db_len) {
    int32_t b, oc, i, plane;
    FLEX_TRY(check_conv(in_dims, x, x_len, dw, dw_len, win, groups, out_dims, dy, dy_len));
    FLEX_TRY(flex__check_bias(db, db_len, out_dims->c));
    zero(dw, (int32_t)dw_len);
    conv_nest(in_dims, (float *)x, dw, win, groups, out_dims, (float *)dy, MODE_WEIGHT_GRAD);
    if (db) {
        plane = out_dims->h * out_dims->w;
        zero(db, out_dims->c);
        for (b = 0; b < out_dims->n; b++)
            for (oc = 0; oc < out_dims->c; oc++) {
                const float *g = dy + (b * out_dims->c + oc) * plane;
                float acc = 0.0f;
                for (i = 0; i < plane; i++)
                    acc += g[i];
                db[oc] += acc;
            }
    }
    return FLEX_OK;
}

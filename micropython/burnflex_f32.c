/* The float kernels: burn.graph's f32_* graph kernels and the float <-> int8 conversions.
 * Compiled only where the CPU has an FPU (BURNFLEX_FLOAT). */
#include "burnflex.h"

#if BURNFLEX_FLOAT

/* (inp_f32, out, size, scale, zp) */
static mp_obj_t quantize_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "quantize_s8";
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    const int32_t size = bf_int(op, args[2]);
    const float scale = (float)mp_obj_get_float(args[3]);
    (void)n_args;
    bf_need(op, &x, size);
    bf_need(op, &y, size);
    bf_check(op, flex_s8_quantize((size_t)size, x.data, scale, bf_int(op, args[4]), y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_quantize_s8_obj, 5, 5, quantize_s8);

/* (inp, out_f32, size, scale, zp) */
static mp_obj_t dequantize_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "dequantize_s8";
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    const int32_t size = bf_int(op, args[2]);
    const float scale = (float)mp_obj_get_float(args[3]);
    (void)n_args;
    bf_need(op, &x, size);
    bf_need(op, &y, size);
    bf_check(op, flex_s8_dequantize((size_t)size, x.data, scale, bf_int(op, args[4]), y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_dequantize_s8_obj, 5, 5, dequantize_s8);

/* flex_f32_nhwc_conv2d and flex_f32_nhwc_depthwise_conv2d take the same arguments. */
typedef flex_status (*conv_fn)(const flex_dims4 *, const float *, size_t, const float *,
                               size_t, const float *, size_t, const flex_window *, int32_t,
                               int32_t, const flex_dims4 *, float *, size_t);

/* (inp, w, bias, out, <geometry>, act) */
static mp_obj_t conv(const char *op, const mp_obj_t *args, int depthwise, conv_fn kernel) {
    bf_conv g;
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), w = bf_buffer(op, args, 1, BF_F32, 0);
    const bf_buf bias = bf_optional(op, args, 2, BF_F32);
    const bf_buf y = bf_buffer(op, args, 3, BF_F32, 1);
    const int32_t act = bf_int(op, args[bf_conv_args(op, args, 4, depthwise, &g)]);
    bf_check(op, kernel(&g.in, x.data, bf_len(&x, g.in_count), w.data, bf_len(&w, g.w_count),
                        bias.data, bf_len(&bias, g.out.c), &g.win, g.param, act, &g.out,
                        y.data, bf_len(&y, g.out_count)));
    return mp_const_none;
}

static mp_obj_t conv_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return conv("conv_f32", args, 0, flex_f32_nhwc_conv2d);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_conv_f32_obj, 21, 21, conv_f32);

static mp_obj_t depthwise_conv_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return conv("depthwise_conv_f32", args, 1, flex_f32_nhwc_depthwise_conv2d);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_depthwise_conv_f32_obj, 20, 20, depthwise_conv_f32);

/* (inp, w, bias, out, batches, in_features, out_features, act) */
static mp_obj_t fully_connected_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "fully_connected_f32";
    enum { BATCHES, IN_F, OUT_F, ACT, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), w = bf_buffer(op, args, 1, BF_F32, 0);
    const bf_buf bias = bf_optional(op, args, 2, BF_F32);
    const bf_buf y = bf_buffer(op, args, 3, BF_F32, 1);
    (void)n_args;
    bf_ints(op, args, 4, COUNT, a);
    bf_check(op, flex_f32_fully_connected(
                     a[BATCHES], a[IN_F], a[OUT_F], x.data,
                     bf_len(&x, (int64_t)a[BATCHES] * a[IN_F]), w.data,
                     bf_len(&w, (int64_t)a[OUT_F] * a[IN_F]), bias.data,
                     bf_len(&bias, a[OUT_F]), a[ACT], y.data,
                     bf_len(&y, (int64_t)a[BATCHES] * a[OUT_F])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_fully_connected_f32_obj, 8, 8, fully_connected_f32);

typedef flex_status (*binary_fn)(size_t, const float *, const float *, size_t, int32_t,
                                 float *);

/* (a, b, out, size, b_size, act) */
static mp_obj_t binary(const char *op, const mp_obj_t *args, binary_fn kernel) {
    enum { SIZE, B_SIZE, ACT, COUNT };
    int32_t a[COUNT];
    const bf_buf x1 = bf_buffer(op, args, 0, BF_F32, 0), x2 = bf_buffer(op, args, 1, BF_F32, 0);
    const bf_buf y = bf_buffer(op, args, 2, BF_F32, 1);
    bf_ints(op, args, 3, COUNT, a);
    bf_need(op, &x1, a[SIZE]);
    bf_need(op, &x2, a[B_SIZE]);
    bf_need(op, &y, a[SIZE]);
    bf_check(op, kernel((size_t)a[SIZE], x1.data, x2.data, (size_t)a[B_SIZE], a[ACT], y.data));
    return mp_const_none;
}

static mp_obj_t add_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return binary("add_f32", args, flex_f32_add_act);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_add_f32_obj, 6, 6, add_f32);

static mp_obj_t mul_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return binary("mul_f32", args, flex_f32_mul_act);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_mul_f32_obj, 6, 6, mul_f32);

/* (inp, out, size): x and y as float32 buffers of `size` elements. */
static int32_t unary_args(const char *op, const mp_obj_t *args, bf_buf *x, bf_buf *y) {
    const int32_t size = bf_int(op, args[2]);
    *x = bf_buffer(op, args, 0, BF_F32, 0);
    *y = bf_buffer(op, args, 1, BF_F32, 1);
    bf_need(op, x, size);
    bf_need(op, y, size);
    return size;
}

/* (inp, out, size, act) */
static mp_obj_t clamp_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "clamp_f32";
    bf_buf x, y;
    const int32_t size = unary_args(op, args, &x, &y);
    (void)n_args;
    bf_check(op, flex_f32_act((size_t)size, x.data, bf_int(op, args[3]), y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_clamp_f32_obj, 4, 4, clamp_f32);

static mp_obj_t unary(const char *op, const mp_obj_t *args, int32_t code) {
    bf_buf x, y;
    const int32_t size = unary_args(op, args, &x, &y);
    bf_check(op, flex_f32_unary(code, (size_t)size, x.data, y.data));
    return mp_const_none;
}

static mp_obj_t logistic_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return unary("logistic_f32", args, FLEX_UNARY_SIGMOID);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_logistic_f32_obj, 3, 3, logistic_f32);

static mp_obj_t tanh_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return unary("tanh_f32", args, FLEX_UNARY_TANH);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_tanh_f32_obj, 3, 3, tanh_f32);

typedef flex_status (*pool_fn)(const flex_dims4 *, const float *, size_t, const flex_window *,
                               int32_t, const flex_dims4 *, float *, size_t);

/* (inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left, act) */
static mp_obj_t pool(const char *op, const mp_obj_t *args, pool_fn kernel) {
    bf_pool p;
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    const int32_t act = bf_int(op, args[bf_pool_args(op, args, 2, &p)]);
    bf_check(op, kernel(&p.in, x.data, bf_len(&x, p.in_count), &p.win, act, &p.out, y.data,
                        bf_len(&y, p.out_count)));
    return mp_const_none;
}

static mp_obj_t avg_pool_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return pool("avg_pool_f32", args, flex_f32_nhwc_avg_pool2d);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_avg_pool_f32_obj, 15, 15, avg_pool_f32);

static mp_obj_t max_pool_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return pool("max_pool_f32", args, flex_f32_nhwc_max_pool2d);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_max_pool_f32_obj, 15, 15, max_pool_f32);

/* (inp, out, outer, reduce, inner) */
static mp_obj_t mean_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "mean_f32";
    enum { OUTER, REDUCE, INNER, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    bf_check(op, flex_f32_mean(a[OUTER], a[REDUCE], a[INNER], x.data,
                               bf_len(&x, bf_count4(a[OUTER], a[REDUCE], a[INNER], 1)), y.data,
                               bf_len(&y, (int64_t)a[OUTER] * a[INNER])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_mean_f32_obj, 5, 5, mean_f32);

/* (inp, out, rows, depth, beta) */
static mp_obj_t softmax_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "softmax_f32";
    int32_t a[2];
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    const float beta = (float)mp_obj_get_float(args[4]);
    (void)n_args;
    bf_ints(op, args, 2, 2, a);
    bf_check(op, flex_f32_softmax_beta(a[0], a[1], x.data, bf_len(&x, (int64_t)a[0] * a[1]),
                                       beta, y.data, bf_len(&y, (int64_t)a[0] * a[1])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_softmax_f32_obj, 5, 5, softmax_f32);

#endif

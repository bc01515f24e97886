/* The int8 kernels of burn.graph (s8_*), each mapped onto one flex_c call as the host's
 * burn.host.flex.graph_kernels maps them. */
#include "burnflex.h"

/* flex_s8_conv2d and flex_s8_depthwise_conv2d take the same arguments. */
typedef flex_status (*conv_fn)(const flex_dims4 *, const int8_t *, size_t, const int8_t *,
                               size_t, const int32_t *, size_t, const int32_t *,
                               const int32_t *, size_t, const flex_window *, int32_t,
                               const flex_s8_quant *, const flex_dims4 *, int8_t *, size_t);

/* (inp, w, bias, mult, shift, out, <geometry>, in_zp, out_zp, act_min, act_max) */
static mp_obj_t conv(const char *op, const mp_obj_t *args, int depthwise, conv_fn kernel) {
    enum { IN_ZP, OUT_ZP, ACT_MIN, ACT_MAX, COUNT };
    bf_conv g;
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0);
    const bf_weights p = bf_weights_args(op, args);
    const bf_buf y = bf_buffer(op, args, 5, BF_S8, 1);
    flex_s8_quant q;
    bf_ints(op, args, bf_conv_args(op, args, 6, depthwise, &g), COUNT, a);
    q = bf_quant(a[IN_ZP], a[OUT_ZP], a[ACT_MIN], a[ACT_MAX]);
    bf_check(op, kernel(&g.in, x.data, bf_len(&x, g.in_count), p.w.data,
                        bf_len(&p.w, g.w_count), p.bias.data, bf_len(&p.bias, g.out.c),
                        p.mult.data, p.shift.data, bf_quant_len(&p.mult, &p.shift, g.out.c),
                        &g.win, g.param, &q, &g.out, y.data, bf_len(&y, g.out_count)));
    return mp_const_none;
}

BF_FORWARD(conv_s8, conv, 0, flex_s8_conv2d)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_conv_s8_obj, 26, 26, conv_s8);

BF_FORWARD(depthwise_conv_s8, conv, 1, flex_s8_depthwise_conv2d)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_depthwise_conv_s8_obj, 25, 25, depthwise_conv_s8);

/* (inp, w, bias, mult, shift, out, batches, in_features, out_features, in_zp, out_zp,
 *  act_min, act_max); the input zero point goes to the kernel as its input offset. */
static mp_obj_t fully_connected_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "fully_connected_s8";
    enum { BATCHES, IN_F, OUT_F, IN_ZP, OUT_ZP, ACT_MIN, ACT_MAX, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0);
    const bf_weights p = bf_weights_args(op, args);
    const bf_buf y = bf_buffer(op, args, 5, BF_S8, 1);
    flex_s8_quant q;
    (void)n_args;
    bf_ints(op, args, 6, COUNT, a);
    q = bf_quant(a[IN_ZP], a[OUT_ZP], a[ACT_MIN], a[ACT_MAX]);
    bf_check(op, flex_s8_fully_connected(
                     a[BATCHES], a[IN_F], a[OUT_F], x.data,
                     bf_len(&x, (int64_t)a[BATCHES] * a[IN_F]), p.w.data,
                     bf_len(&p.w, (int64_t)a[OUT_F] * a[IN_F]), 0, p.bias.data,
                     bf_len(&p.bias, a[OUT_F]), p.mult.data, p.shift.data,
                     bf_quant_len(&p.mult, &p.shift, a[OUT_F]), &q, y.data,
                     bf_len(&y, (int64_t)a[BATCHES] * a[OUT_F])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_fully_connected_s8_obj, 13, 13, fully_connected_s8);

/* Broadcast shapes of a, b, out: [size / b_size, b_size] and [1, b_size]. */
static void broadcast(const char *op, int32_t size, int32_t b_size, flex_dims4 *da,
                      flex_dims4 *db) {
    if (b_size < 1 || size < 0 || size % b_size)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    *da = bf_dims(1, 1, size / b_size, b_size);
    *db = bf_dims(1, 1, 1, b_size);
}

mp_obj_t bf_add_like(const char *op, const mp_obj_t *args, int has_swap, bf_add_like_fn kernel) {
    enum { SIZE, B_SIZE, A_ZP, A_MULT, A_SHIFT, B_ZP, B_MULT, B_SHIFT, OUT_ZP, OUT_MULT,
           OUT_SHIFT, LEFT_SHIFT, ACT_MIN, ACT_MAX, SWAP, COUNT };
    int32_t a[COUNT];
    const bf_buf y = bf_buffer(op, args, 2, BF_S8, 1);
    const bf_buf x[2] = {bf_buffer(op, args, 0, BF_S8, 0), bf_buffer(op, args, 1, BF_S8, 0)};
    flex_dims4 d[2];
    flex_s8_add_params p;
    int first; /* the argument (0: a, 1: b) that is flex's first input */
    const int32_t *q1, *q2; /* its zero point, multiplier and shift, and the other's */
    bf_ints(op, args, 3, COUNT - 1 + has_swap, a);
    broadcast(op, a[SIZE], a[B_SIZE], &d[0], &d[1]);
    first = has_swap && a[SWAP];
    q1 = a + (first ? B_ZP : A_ZP);
    q2 = a + (first ? A_ZP : B_ZP);
    p.input1_offset = bf_neg(q1[0]);
    p.input1_multiplier = q1[1];
    p.input1_shift = q1[2];
    p.input2_offset = bf_neg(q2[0]);
    p.input2_multiplier = q2[1];
    p.input2_shift = q2[2];
    p.left_shift = a[LEFT_SHIFT];
    p.output_offset = a[OUT_ZP];
    p.output_multiplier = a[OUT_MULT];
    p.output_shift = a[OUT_SHIFT];
    p.act_min = a[ACT_MIN];
    p.act_max = a[ACT_MAX];
    bf_check(op, kernel(&d[first], x[first].data, bf_len(&x[first], a[SIZE + first]),
                        &d[!first], x[!first].data, bf_len(&x[!first], a[SIZE + !first]), &p,
                        &d[0], y.data, bf_len(&y, a[SIZE])));
    return mp_const_none;
}

BF_FORWARD(add_s8, bf_add_like, 0, flex_s8_add)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_add_s8_obj, 17, 17, add_s8);

/* (a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min, act_max): the zero
 * points and the rest of flex_s8_mul_params in its order. */
static mp_obj_t mul_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "mul_s8";
    const bf_pair x = bf_pair_args(op, args, BF_S8, BF_S8);
    flex_dims4 da, db;
    flex_s8_mul_params p;
    (void)n_args;
    bf_block(op, args, 5, &p, sizeof p);
    broadcast(op, x.size, x.b_size, &da, &db);
    p.input1_offset = bf_neg(p.input1_offset);
    p.input2_offset = bf_neg(p.input2_offset);
    bf_check(op, flex_s8_mul(&da, x.a.data, bf_len(&x.a, x.size), &db, x.b.data,
                             bf_len(&x.b, x.b_size), &p, &da, x.out.data,
                             bf_len(&x.out, x.size)));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_mul_s8_obj, 12, 12, mul_s8);

typedef flex_status (*pool_fn)(const flex_dims4 *, const int8_t *, size_t, const flex_window *,
                               int32_t, int32_t, const flex_dims4 *, int8_t *, size_t);

/* (inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left, act_min,
 *  act_max) */
static mp_obj_t pool(const char *op, const mp_obj_t *args, pool_fn kernel) {
    int32_t act[2];
    bf_pool p;
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    bf_ints(op, args, bf_pool_args(op, args, 2, &p), 2, act);
    bf_check(op, kernel(&p.in, x.data, bf_len(&x, p.in_count), &p.win, act[0], act[1], &p.out,
                        y.data, bf_len(&y, p.out_count)));
    return mp_const_none;
}

BF_FORWARD(avg_pool_s8, pool, flex_s8_avg_pool2d)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_avg_pool_s8_obj, 16, 16, avg_pool_s8);

BF_FORWARD(max_pool_s8, pool, flex_s8_max_pool2d)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_max_pool_s8_obj, 16, 16, max_pool_s8);

/* (inp, out, outer, reduce, inner, in_zp, out_zp, mult, shift) */
static mp_obj_t mean_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "mean_s8";
    enum { OUTER, REDUCE, INNER, IN_ZP, OUT_ZP, MULT, SHIFT, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    bf_check(op, flex_s8_mean(a[OUTER], a[REDUCE], a[INNER], x.data,
                              bf_len(&x, bf_count4(a[OUTER], a[REDUCE], a[INNER], 1)), a[IN_ZP],
                              a[MULT], a[SHIFT], a[OUT_ZP], y.data,
                              bf_len(&y, (int64_t)a[OUTER] * a[INNER])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_mean_s8_obj, 9, 9, mean_s8);

/* (inp, out, rows, depth, in_mult, in_left_shift, diff_min) */
static mp_obj_t softmax_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "softmax_s8";
    enum { ROWS, DEPTH, MULT, LEFT_SHIFT, DIFF_MIN, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    bf_check(op, flex_s8_softmax(a[ROWS], a[DEPTH], x.data,
                                 bf_len(&x, (int64_t)a[ROWS] * a[DEPTH]), a[MULT],
                                 a[LEFT_SHIFT], a[DIFF_MIN], y.data,
                                 bf_len(&y, (int64_t)a[ROWS] * a[DEPTH])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_softmax_s8_obj, 7, 7, softmax_s8);

typedef flex_status (*q4_fn)(size_t, const int8_t *, int32_t, int32_t, int32_t, int32_t,
                             int8_t *);

/* (inp, out, size, in_zp, in_mult, in_left_shift, range_radius): logistic and tanh. */
static mp_obj_t q4_activation(const char *op, const mp_obj_t *args, q4_fn kernel) {
    enum { SIZE, IN_ZP, MULT, LEFT_SHIFT, RADIUS, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    bf_ints(op, args, 2, COUNT, a);
    bf_need(op, &x, a[SIZE]);
    bf_need(op, &y, a[SIZE]);
    bf_check(op, kernel((size_t)a[SIZE], x.data, a[IN_ZP], a[RADIUS], a[MULT], a[LEFT_SHIFT],
                        y.data));
    return mp_const_none;
}

BF_FORWARD(logistic_s8, q4_activation, flex_s8_logistic)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_logistic_s8_obj, 7, 7, logistic_s8);

BF_FORWARD(tanh_s8, q4_activation, flex_s8_tanh)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_tanh_s8_obj, 7, 7, tanh_s8);

/* (inp, out, size, in_zp, out_zp, mult, shift) */
static mp_obj_t requantize_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "requantize_s8";
    enum { SIZE, IN_ZP, OUT_ZP, MULT, SHIFT, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    bf_need(op, &x, a[SIZE]);
    bf_need(op, &y, a[SIZE]);
    bf_check(op, flex_s8_requantize((size_t)a[SIZE], x.data, a[IN_ZP], a[MULT], a[SHIFT],
                                    a[OUT_ZP], y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s8_obj, 7, 7, requantize_s8);

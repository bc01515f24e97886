/* The int16x8 kernels of burn.graph (s16_*: int16 activations, int8 weights), each mapped
 * onto one flex_c call as the host's burn.host.flex.graph_kernels maps them. Left out of a
 * default firmware and of the armv6m native module, like the optional ops' bindings. */
#include "burnflex.h"

/* The names burnflex.c registers these kernels under (burnflex_extra.h), spelt out for
 * a native module's qstr scan, which reads the .c files: MP_QSTR_requantize_s16
 * MP_QSTR_requantize_s8_s16 MP_QSTR_requantize_s16_s8 MP_QSTR_requantize_s8_s32
 * MP_QSTR_requantize_s16_s32 MP_QSTR_requantize_s32_s8 MP_QSTR_requantize_s32_s16
 * MP_QSTR_fully_connected_s16
 * MP_QSTR_conv_s16 MP_QSTR_depthwise_conv_s16 MP_QSTR_avg_pool_s16 MP_QSTR_max_pool_s16 */

/* burnflex.h */
bf_buf bf_s16(const char *op, const mp_obj_t *args, size_t index, int write) {
    const bf_buf b = bf_buffer(op, args, index, BF_ANY, write);
    if (b.itemsize != 2 || b.is_float)
        bf_raise(op, "expected a buffer of int16 values");
    return b;
}

/* args[index] as int8 (bits 8), int16 (bits 16) or int32 (bits 32) values. */
static bf_buf int_buffer(const char *op, const mp_obj_t *args, size_t index, int bits,
                         int write) {
    return bits == 8    ? bf_buffer(op, args, index, BF_S8, write)
           : bits == 16 ? bf_s16(op, args, index, write)
                        : bf_buffer(op, args, index, BF_I32, write);
}

/* (inp, out, size, in_zp, out_zp, mult, shift) between int8, int16 and int32 */
static mp_obj_t requantize(const char *op, const mp_obj_t *args, int in_bits, int out_bits) {
    enum { SIZE, IN_ZP, OUT_ZP, MULT, SHIFT, COUNT };
    int32_t a[COUNT];
    const bf_buf x = int_buffer(op, args, 0, in_bits, 0);
    const bf_buf y = int_buffer(op, args, 1, out_bits, 1);
    bf_ints(op, args, 2, COUNT, a);
    bf_need(op, &x, a[SIZE]);
    bf_need(op, &y, a[SIZE]);
    bf_check(op, flex_s16_requantize((size_t)a[SIZE], x.data, in_bits, a[IN_ZP], a[MULT],
                                     a[SHIFT], a[OUT_ZP], out_bits, y.data));
    return mp_const_none;
}

BF_FORWARD(requantize_s16, requantize, 16, 16)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s16_obj, 7, 7, requantize_s16);

BF_FORWARD(requantize_s8_s16, requantize, 8, 16)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s8_s16_obj, 7, 7, requantize_s8_s16);

BF_FORWARD(requantize_s16_s8, requantize, 16, 8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s16_s8_obj, 7, 7, requantize_s16_s8);

BF_FORWARD(requantize_s8_s32, requantize, 8, 32)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s8_s32_obj, 7, 7, requantize_s8_s32);

BF_FORWARD(requantize_s16_s32, requantize, 16, 32)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s16_s32_obj, 7, 7, requantize_s16_s32);

BF_FORWARD(requantize_s32_s8, requantize, 32, 8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s32_s8_obj, 7, 7, requantize_s32_s8);

BF_FORWARD(requantize_s32_s16, requantize, 32, 16)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_requantize_s32_s16_obj, 7, 7, requantize_s32_s16);

/* (inp, w, bias, mult, shift, out, batches, in_features, out_features, wide, in_zp, out_zp,
 *  act_min, act_max) */
static mp_obj_t fully_connected_s16(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "fully_connected_s16";
    enum { BATCHES, IN_F, OUT_F, WIDE, IN_ZP, OUT_ZP, ACT_MIN, ACT_MAX, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_s16(op, args, 0, 0);
    const bf_weights p = bf_weights_args(op, args);
    const bf_buf y = bf_s16(op, args, 5, 1);
    flex_s16_quant q;
    (void)n_args;
    bf_ints(op, args, 6, COUNT, a);
    q.input_offset = bf_neg(a[IN_ZP]);
    q.output_offset = a[OUT_ZP];
    q.act_min = a[ACT_MIN];
    q.act_max = a[ACT_MAX];
    bf_check(op, flex_s16_fully_connected(
                     a[BATCHES], a[IN_F], a[OUT_F], x.data,
                     bf_len(&x, (int64_t)a[BATCHES] * a[IN_F]), p.w.data,
                     bf_len(&p.w, (int64_t)a[OUT_F] * a[IN_F]), p.bias.data,
                     bf_len(&p.bias, a[OUT_F]), p.mult.data, p.shift.data,
                     bf_quant_len(&p.mult, &p.shift, a[OUT_F]), a[WIDE], &q, y.data,
                     bf_len(&y, (int64_t)a[BATCHES] * a[OUT_F])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_fully_connected_s16_obj, 14, 14, fully_connected_s16);

/* (inp, w, bias, mult, shift, out, <geometry>[, wide], act_min, act_max): flex_s16_conv2d,
 * or flex_s16_depthwise_conv2d when `depthwise` (no wide: it always sums in int64). */
static mp_obj_t conv(const char *op, const mp_obj_t *args, int depthwise) {
    enum { WIDE, ACT_MIN, ACT_MAX, COUNT };
    bf_conv g;
    int32_t a[COUNT];
    const bf_buf x = bf_s16(op, args, 0, 0);
    const bf_weights p = bf_weights_args(op, args);
    const bf_buf y = bf_s16(op, args, 5, 1);
    size_t x_len, w_len, bias_len, quant_len, y_len;
    bf_ints(op, args, bf_conv_args(op, args, 6, depthwise, &g), COUNT - depthwise,
            a + depthwise);
    x_len = bf_len(&x, g.in_count);
    w_len = bf_len(&p.w, g.w_count);
    bias_len = bf_len(&p.bias, g.out.c);
    quant_len = bf_quant_len(&p.mult, &p.shift, g.out.c);
    y_len = bf_len(&y, g.out_count);
    if (depthwise)
        bf_check(op, flex_s16_depthwise_conv2d(&g.in, x.data, x_len, p.w.data, w_len,
                                               p.bias.data, bias_len, p.mult.data,
                                               p.shift.data, quant_len, &g.win, g.param,
                                               a[ACT_MIN], a[ACT_MAX], &g.out, y.data, y_len));
    else
        bf_check(op, flex_s16_conv2d(&g.in, x.data, x_len, p.w.data, w_len, p.bias.data,
                                     bias_len, p.mult.data, p.shift.data, quant_len, &g.win,
                                     g.param, a[WIDE], a[ACT_MIN], a[ACT_MAX], &g.out, y.data,
                                     y_len));
    return mp_const_none;
}

BF_FORWARD(conv_s16, conv, 0)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_conv_s16_obj, 25, 25, conv_s16);

BF_FORWARD(depthwise_conv_s16, conv, 1)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_depthwise_conv_s16_obj, 23, 23, depthwise_conv_s16);

typedef flex_status (*pool_fn)(const flex_dims4 *, const int16_t *, size_t,
                               const flex_window *, int32_t, int32_t, const flex_dims4 *,
                               int16_t *, size_t);

/* (inp, out, <pool geometry>, act_min, act_max) */
static mp_obj_t pool(const char *op, const mp_obj_t *args, pool_fn kernel) {
    enum { ACT_MIN, ACT_MAX, COUNT };
    bf_pool g;
    int32_t a[COUNT];
    const bf_buf x = bf_s16(op, args, 0, 0), y = bf_s16(op, args, 1, 1);
    bf_ints(op, args, bf_pool_args(op, args, 2, &g), COUNT, a);
    bf_check(op, kernel(&g.in, x.data, bf_len(&x, g.in_count), &g.win, a[ACT_MIN],
                        a[ACT_MAX], &g.out, y.data, bf_len(&y, g.out_count)));
    return mp_const_none;
}

BF_FORWARD(avg_pool_s16, pool, flex_s16_avg_pool2d)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_avg_pool_s16_obj, 16, 16, avg_pool_s16);

BF_FORWARD(max_pool_s16, pool, flex_s16_max_pool2d)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_max_pool_s16_obj, 16, 16, max_pool_s16);

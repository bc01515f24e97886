/* The optional transposed convolution (burn.graph.transpose_conv; flex_c/src/extra), left
 * out of the builds that keep only the default ops. */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_transpose_conv_s8 MP_QSTR_transpose_conv_s16 MP_QSTR_transpose_conv_f32 */
#include "burnflex.h"

/* args[first ...]: n, ih, iw, ic, oh, ow, oc, kh, kw, stride_h, stride_w, pad_top,
 * pad_left, as burn.graph's transpose_conv kernels take them. */
enum { TC_N, TC_IH, TC_IW, TC_IC, TC_OH, TC_OW, TC_OC, TC_KH, TC_KW, TC_SH, TC_SW, TC_PT, TC_PL,
       TC_GEOMETRY };

static void geometry(const char *op, const mp_obj_t *args, size_t first, int32_t *a,
                     flex_dims4 *in, flex_dims4 *out, flex_transpose_window *win) {
    bf_ints(op, args, first, TC_GEOMETRY, a);
    *in = bf_dims(a[TC_N], a[TC_IH], a[TC_IW], a[TC_IC]);
    *out = bf_dims(a[TC_N], a[TC_OH], a[TC_OW], a[TC_OC]);
    win->kernel_h = a[TC_KH];
    win->kernel_w = a[TC_KW];
    win->stride_h = a[TC_SH];
    win->stride_w = a[TC_SW];
    win->pad_top = a[TC_PT];
    win->pad_left = a[TC_PL];
}

/* (inp, w, bias, mult, shift, out, <geometry>, in_zp, out_zp, act_min, act_max): int8, or
 * int16 input and output where `wide` */
static mp_obj_t quantized(const char *op, const mp_obj_t *args, int wide) {
    int32_t a[TC_GEOMETRY], q[4];
    flex_dims4 in, out;
    flex_transpose_window win;
    flex_s8_quant quant;
    const bf_buf x = wide ? bf_s16(op, args, 0, 0) : bf_buffer(op, args, 0, BF_S8, 0);
    const bf_weights p = bf_weights_args(op, args);
    const bf_buf y = wide ? bf_s16(op, args, 5, 1) : bf_buffer(op, args, 5, BF_S8, 1);
    size_t x_len, w_len, b_len, q_len, y_len;
    geometry(op, args, 6, a, &in, &out, &win);
    bf_ints(op, args, 6 + TC_GEOMETRY, 4, q);
    quant = bf_quant(q[0], q[1], q[2], q[3]);
    x_len = bf_len(&x, bf_count4(a[TC_N], a[TC_IH], a[TC_IW], a[TC_IC]));
    w_len = bf_len(&p.w, bf_count4(a[TC_OC], a[TC_KH], a[TC_KW], a[TC_IC]));
    b_len = bf_len(&p.bias, a[TC_OC]);
    q_len = bf_quant_len(&p.mult, &p.shift, a[TC_OC]);
    y_len = bf_len(&y, bf_count4(a[TC_N], a[TC_OH], a[TC_OW], a[TC_OC]));
    bf_check(op, wide ? flex_s16_transpose_conv2d(&in, x.data, x_len, p.w.data, w_len,
                                                  p.bias.data, b_len, p.mult.data,
                                                  p.shift.data, q_len, &win, &quant, &out,
                                                  y.data, y_len)
                      : flex_s8_transpose_conv2d(&in, x.data, x_len, p.w.data, w_len,
                                                 p.bias.data, b_len, p.mult.data,
                                                 p.shift.data, q_len, &win, &quant, &out,
                                                 y.data, y_len));
    return mp_const_none;
}

BF_FORWARD(transpose_conv_s8, quantized, 0)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_transpose_conv_s8_obj, 23, 23, transpose_conv_s8);

BF_FORWARD(transpose_conv_s16, quantized, 1)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_transpose_conv_s16_obj, 23, 23, transpose_conv_s16);

#if BURNFLEX_FLOAT
/* (inp, w, bias, out, <geometry>, act) */
static mp_obj_t transpose_conv_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "transpose_conv_f32";
    int32_t a[TC_GEOMETRY];
    flex_dims4 in, out;
    flex_transpose_window win;
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), w = bf_buffer(op, args, 1, BF_F32, 0);
    const bf_buf bias = bf_optional(op, args, 2, BF_F32);
    const bf_buf y = bf_buffer(op, args, 3, BF_F32, 1);
    (void)n_args;
    geometry(op, args, 4, a, &in, &out, &win);
    bf_check(op, flex_f32_nhwc_transpose_conv2d(
                     &in, x.data, bf_len(&x, bf_count4(a[TC_N], a[TC_IH], a[TC_IW], a[TC_IC])), w.data,
                     bf_len(&w, bf_count4(a[TC_OC], a[TC_KH], a[TC_KW], a[TC_IC])), bias.data,
                     bf_len(&bias, a[TC_OC]), &win, bf_int(op, args[4 + TC_GEOMETRY]), &out, y.data,
                     bf_len(&y, bf_count4(a[TC_N], a[TC_OH], a[TC_OW], a[TC_OC]))));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_transpose_conv_f32_obj, 18, 18, transpose_conv_f32);
#endif

/* Bindings of LSTM (burn.graph.lstm, an optional op; flex_c/src/extra). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_lstm_s8 MP_QSTR_lstm_s16 MP_QSTR_lstm_f32 */
#include "burnflex.h"

/* args[0..6): inp, w, r, bias, state, out; args[6..DIMS_END): the flex_lstm_dims fields. */
enum { DIMS_END = 6 + sizeof(flex_lstm_dims) / sizeof(int32_t) };

typedef struct {
    flex_lstm_dims d;
    int64_t in, w, r, bias, state, out; /* element counts; -1 past int32 range */
} lstm_sizes;

static lstm_sizes read_sizes(const char *op, const mp_obj_t *args) {
    lstm_sizes s;
    int64_t rows;
    bf_block(op, args, 6, &s.d, sizeof s.d);
    rows = bf_product(s.d.batch, s.d.steps);
    s.bias = bf_product(4, s.d.units);
    s.in = bf_product(rows, s.d.input_size);
    s.out = bf_product(rows, s.d.units);
    s.w = bf_product(s.bias, s.d.input_size);
    s.r = bf_product(s.bias, s.d.units);
    s.state = bf_product(2 * (int64_t)s.d.batch + 4, s.d.units);
    return s;
}

/* (inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, gate_q, table,
 * in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult, ic_shift, hid_mult,
 * hid_shift) of lstm_s8 and, with int16 inp and out, lstm_s16 */
static mp_obj_t integer_lstm(const char *op, const mp_obj_t *args, int wide) {
    flex_lstm_quant q;
    const bf_buf w = bf_buffer(op, args, 1, BF_S8, 0), r = bf_buffer(op, args, 2, BF_S8, 0),
                 b = bf_buffer(op, args, 3, BF_I32, 0), st = bf_s16(op, args, 4, 1),
                 gq = bf_buffer(op, args, DIMS_END, BF_I32, 0),
                 t = bf_s16(op, args, DIMS_END + 1, 0);
    const bf_buf x = wide ? bf_s16(op, args, 0, 0) : bf_buffer(op, args, 0, BF_S8, 0),
                 y = wide ? bf_s16(op, args, 5, 1) : bf_buffer(op, args, 5, BF_S8, 1);
    const lstm_sizes s = read_sizes(op, args);
    bf_block(op, args, DIMS_END + 2, &q, sizeof q);
    if (wide)
        bf_check(op, flex_s16_lstm(&s.d, x.data, bf_len(&x, s.in), w.data, bf_len(&w, s.w),
                                   r.data, bf_len(&r, s.r), b.data, bf_len(&b, s.bias), gq.data,
                                   bf_len(&gq, 16), t.data, bf_len(&t, 256), st.data,
                                   bf_len(&st, s.state), &q, y.data, bf_len(&y, s.out)));
    else
        bf_check(op, flex_s8_lstm(&s.d, x.data, bf_len(&x, s.in), w.data, bf_len(&w, s.w),
                                  r.data, bf_len(&r, s.r), b.data, bf_len(&b, s.bias), gq.data,
                                  bf_len(&gq, 16), t.data, bf_len(&t, 256), st.data,
                                  bf_len(&st, s.state), &q, y.data, bf_len(&y, s.out)));
    return mp_const_none;
}

static mp_obj_t lstm_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return integer_lstm("lstm_s8", args, 0);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_lstm_s8_obj, 23, 23, lstm_s8);

static mp_obj_t lstm_s16(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return integer_lstm("lstm_s16", args, 1);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_lstm_s16_obj, 23, 23, lstm_s16);

#if BURNFLEX_FLOAT
/* (inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, cell_clip) */
static mp_obj_t lstm_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "lstm_f32";
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), w = bf_buffer(op, args, 1, BF_F32, 0),
                 r = bf_buffer(op, args, 2, BF_F32, 0), b = bf_buffer(op, args, 3, BF_F32, 0),
                 st = bf_buffer(op, args, 4, BF_F32, 1), y = bf_buffer(op, args, 5, BF_F32, 1);
    const lstm_sizes s = read_sizes(op, args);
    (void)n_args;
    bf_check(op, flex_f32_lstm(&s.d, x.data, bf_len(&x, s.in), w.data, bf_len(&w, s.w), r.data,
                               bf_len(&r, s.r), b.data, bf_len(&b, s.bias), st.data,
                               bf_len(&st, s.state),
                               (float)mp_obj_get_float(args[DIMS_END]), y.data,
                               bf_len(&y, s.out)));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_lstm_f32_obj, 12, 12, lstm_f32);
#endif

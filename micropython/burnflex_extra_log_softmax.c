/* The optional op `log_softmax` (burn.graph.log_softmax). Left out of builds that must stay
 * small (the armv6m native module). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_log_softmax_s8 MP_QSTR_log_softmax_f32 */
#include "burnflex.h"

/* (inp, out, rows, depth, in_mult, in_left_shift, reverse_mult, reverse_shift, diff_min) */
static mp_obj_t log_softmax_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "log_softmax_s8";
    enum { ROWS, DEPTH, MULT, LEFT_SHIFT, REVERSE_MULT, REVERSE_SHIFT, DIFF_MIN, COUNT };
    int32_t a[COUNT];
    int64_t count;
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    count = (int64_t)a[ROWS] * a[DEPTH];
    bf_check(op, flex_s8_log_softmax(a[ROWS], a[DEPTH], x.data, bf_len(&x, count), a[MULT],
                                     a[LEFT_SHIFT], a[REVERSE_MULT], a[REVERSE_SHIFT],
                                     a[DIFF_MIN], y.data, bf_len(&y, count)));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_log_softmax_s8_obj, 9, 9, log_softmax_s8);

#if BURNFLEX_FLOAT

/* (inp, out, rows, depth) */
static mp_obj_t log_softmax_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "log_softmax_f32";
    int32_t a[2];
    int64_t count;
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    (void)n_args;
    bf_ints(op, args, 2, 2, a);
    count = (int64_t)a[0] * a[1];
    bf_check(op, flex_f32_log_softmax(a[0], a[1], 1, x.data, bf_len(&x, count), y.data,
                                      bf_len(&y, count)));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_log_softmax_f32_obj, 4, 4, log_softmax_f32);

#endif

/* The optional op `prelu` (burn.graph.prelu). Left out of builds that must stay small (the
 * armv6m native module). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_prelu_s8 MP_QSTR_prelu_f32 */
#include "burnflex.h"

/* (inp, alpha, out, size, alpha_size, in_zp, alpha_zp, out_zp, pos_mult, pos_shift,
 *  neg_mult, neg_shift) */
static mp_obj_t prelu_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "prelu_s8";
    enum { SIZE, ALPHA_SIZE, IN_ZP, ALPHA_ZP, OUT_ZP, POS_MULT, POS_SHIFT, NEG_MULT, NEG_SHIFT,
           COUNT };
    int32_t a[COUNT];
    flex_s8_prelu_params p;
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), al = bf_buffer(op, args, 1, BF_S8, 0);
    const bf_buf y = bf_buffer(op, args, 2, BF_S8, 1);
    (void)n_args;
    bf_ints(op, args, 3, COUNT, a);
    bf_need(op, &x, a[SIZE]);
    bf_need(op, &y, a[SIZE]);
    bf_need(op, &al, a[ALPHA_SIZE]);
    p.input_offset = bf_neg(a[IN_ZP]);
    p.alpha_offset = bf_neg(a[ALPHA_ZP]);
    p.output_offset = a[OUT_ZP];
    p.pos_mult = a[POS_MULT];
    p.pos_shift = a[POS_SHIFT];
    p.neg_mult = a[NEG_MULT];
    p.neg_shift = a[NEG_SHIFT];
    bf_check(op, flex_s8_prelu((size_t)a[SIZE], x.data, al.data, (size_t)a[ALPHA_SIZE], &p,
                               y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_prelu_s8_obj, 12, 12, prelu_s8);

#if BURNFLEX_FLOAT

/* (inp, alpha, out, size, alpha_size) */
static mp_obj_t prelu_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "prelu_f32";
    int32_t a[2];
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), al = bf_buffer(op, args, 1, BF_F32, 0);
    const bf_buf y = bf_buffer(op, args, 2, BF_F32, 1);
    (void)n_args;
    bf_ints(op, args, 3, 2, a);
    bf_need(op, &x, a[0]);
    bf_need(op, &y, a[0]);
    bf_need(op, &al, a[1]);
    bf_check(op, flex_f32_prelu((size_t)a[0], x.data, al.data, (size_t)a[1], y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_prelu_f32_obj, 5, 5, prelu_f32);

#endif

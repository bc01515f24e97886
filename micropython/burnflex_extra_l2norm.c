/* Bindings of L2_NORMALIZATION (burn.graph.l2norm, an optional op). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_l2norm_s8 MP_QSTR_l2norm_f32 */
#include "burnflex.h"

/* (inp, out, rows, depth, in_zp) */
static mp_obj_t l2norm_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "l2norm_s8";
    enum { ROWS, DEPTH, IN_ZP, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    bf_check(op, flex_s8_l2norm(a[ROWS], a[DEPTH], x.data,
                                bf_len(&x, (int64_t)a[ROWS] * a[DEPTH]), a[IN_ZP], y.data,
                                bf_len(&y, (int64_t)a[ROWS] * a[DEPTH])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_l2norm_s8_obj, 5, 5, l2norm_s8);

#if BURNFLEX_FLOAT
/* (inp, out, rows, depth) */
static mp_obj_t l2norm_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "l2norm_f32";
    int32_t a[2];
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    (void)n_args;
    bf_ints(op, args, 2, 2, a);
    bf_check(op, flex_f32_l2norm(a[0], a[1], x.data, bf_len(&x, (int64_t)a[0] * a[1]), y.data,
                                 bf_len(&y, (int64_t)a[0] * a[1])));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_l2norm_f32_obj, 4, 4, l2norm_f32);
#endif

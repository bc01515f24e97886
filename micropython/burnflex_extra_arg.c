/* Bindings of ARG_MAX / ARG_MIN (burn.graph.arg, an optional op). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_arg_s8 MP_QSTR_arg_f32 */
#include "burnflex.h"

/* (inp, out, outer, reduce, inner, op): out float32, or int32 when op has bit 2 */
static mp_obj_t arg(const char *op, const mp_obj_t *args, int kind) {
    enum { OUTER, REDUCE, INNER, OP, COUNT };
    int32_t a[COUNT];
    size_t x_len, y_len;
    bf_buf x, y;
    bf_ints(op, args, 2, COUNT, a);
    x = bf_buffer(op, args, 0, kind, 0);
    y = bf_buffer(op, args, 1, a[OP] & 2 ? BF_I32 : BF_F32, 1);
    x_len = bf_len(&x, bf_count4(a[OUTER], a[REDUCE], a[INNER], 1));
    y_len = bf_len(&y, (int64_t)a[OUTER] * a[INNER]);
#if BURNFLEX_FLOAT
    if (kind == BF_F32) {
        bf_check(op, flex_f32_arg(a[OUTER], a[REDUCE], a[INNER], a[OP], x.data, x_len, y.data,
                                  y_len));
        return mp_const_none;
    }
#endif
    bf_check(op, flex_s8_arg(a[OUTER], a[REDUCE], a[INNER], a[OP], x.data, x_len, y.data,
                             y_len));
    return mp_const_none;
}

BF_FORWARD(arg_s8, arg, BF_S8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_arg_s8_obj, 6, 6, arg_s8);

#if BURNFLEX_FLOAT
BF_FORWARD(arg_f32, arg, BF_F32)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_arg_f32_obj, 6, 6, arg_f32);
#endif

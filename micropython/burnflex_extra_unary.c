/* The optional op `unary` (burn.graph.unary): int8 as a table lookup, float32 activations.
 * Left out of builds that must stay small (the armv6m native module). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_lookup_s8 MP_QSTR_unary_f32 */
#include "burnflex.h"

/* (inp, out, size, table) */
static mp_obj_t lookup_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "lookup_s8";
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    const bf_buf t = bf_buffer(op, args, 3, BF_S8, 0);
    const int32_t size = bf_int(op, args[2]);
    (void)n_args;
    bf_need(op, &x, size);
    bf_need(op, &y, size);
    bf_need(op, &t, 256);
    bf_check(op, flex_s8_lookup((size_t)size, x.data, t.data, y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_lookup_s8_obj, 4, 4, lookup_s8);

#if BURNFLEX_FLOAT

/* (inp, out, size, fn, alpha) */
static mp_obj_t unary_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "unary_f32";
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    const int32_t size = bf_int(op, args[2]);
    const float alpha = (float)mp_obj_get_float(args[4]);
    (void)n_args;
    bf_need(op, &x, size);
    bf_need(op, &y, size);
    bf_check(op, flex_f32_activation(bf_int(op, args[3]), (size_t)size, x.data, alpha, y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_unary_f32_obj, 5, 5, unary_f32);

#endif

/* The optional op `unary` (burn.graph.unary): the float32 activations (the int8 table
 * lookup is generated: burnflex_extra_generated.c). Left out of builds that must stay small
 * (the armv6m native module). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_unary_f32 */
#include "burnflex.h"

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

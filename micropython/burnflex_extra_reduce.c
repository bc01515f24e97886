/* Bindings of the reductions over any axes (burn.graph.reduce, an optional op). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_reduce_s8 MP_QSTR_reduce_f32 */
#include "burnflex.h"

/* The element count of dims[0..n) in 64 bits, or -1 past INT32_MAX (the kernel then sees
 * the buffer's own length and refuses the shape). */
static int64_t count(const int32_t *dims, int n) {
    int64_t c = 1;
    int i;
    for (i = 0; i < n; i++) {
        c *= dims[i] > 0 ? dims[i] : 0;
        if (c > INT32_MAX)
            return -1;
    }
    return c;
}

/* (inp, out, outer, reduce, mid, reduce2, inner, op, in_zp, out_zp, mult, shift) */
static mp_obj_t reduce_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "reduce_s8";
    enum { OP = 5, IN_ZP, OUT_ZP, MULT, SHIFT, COUNT };
    int32_t a[COUNT];
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    int32_t out_dims[3];
    (void)n_args;
    bf_ints(op, args, 2, COUNT, a);
    out_dims[0] = a[0];
    out_dims[1] = a[2];
    out_dims[2] = a[4];
    bf_check(op, flex_s8_reduce_axes(a, a[OP], x.data, bf_len(&x, count(a, 5)), a[IN_ZP], a[MULT],
                                a[SHIFT], a[OUT_ZP], y.data, bf_len(&y, count(out_dims, 3))));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_reduce_s8_obj, 12, 12, reduce_s8);

#if BURNFLEX_FLOAT
/* (inp, out, outer, reduce, mid, reduce2, inner, op) */
static mp_obj_t reduce_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "reduce_f32";
    int32_t a[6], out_dims[3];
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    (void)n_args;
    bf_ints(op, args, 2, 6, a);
    out_dims[0] = a[0];
    out_dims[1] = a[2];
    out_dims[2] = a[4];
    bf_check(op, flex_f32_reduce_axes(a, a[5], x.data, bf_len(&x, count(a, 5)), y.data,
                                 bf_len(&y, count(out_dims, 3))));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_reduce_f32_obj, 8, 8, reduce_f32);
#endif

/* Bindings of the rows picked at run-time positions (burn.graph.gather, an optional op). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_gather_s8 MP_QSTR_gather_f32 */
#include "burnflex.h"

/* (inp, pos, out, outer, size, inner, count) */
static mp_obj_t gather(const char *op, const mp_obj_t *args, int kind) {
    enum { OUTER, SIZE, INNER, COUNT, N };
    int32_t a[N];
    const bf_buf x = bf_buffer(op, args, 0, kind, 0), p = bf_buffer(op, args, 1, BF_I32, 0);
    const bf_buf y = bf_buffer(op, args, 2, kind, 1);
    bf_ints(op, args, 3, N, a);
    bf_check(op, flex_gather(kind == BF_S8 ? 1 : 4, a[OUTER], a[SIZE], a[INNER], a[COUNT],
                             x.data, bf_len(&x, bf_count4(a[OUTER], a[SIZE], a[INNER], 1)),
                             p.data, bf_len(&p, a[COUNT]), y.data,
                             bf_len(&y, bf_count4(a[OUTER], a[COUNT], a[INNER], 1))));
    return mp_const_none;
}

static mp_obj_t gather_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return gather("gather_s8", args, BF_S8);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_gather_s8_obj, 7, 7, gather_s8);

#if BURNFLEX_FLOAT
static mp_obj_t gather_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return gather("gather_f32", args, BF_F32);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_gather_f32_obj, 7, 7, gather_f32);
#endif

/* The comparisons and selection of burn.graph.logic (the optional ops compare and select),
 * each mapped onto one flex_c call as the host's burn.host.flex.graph_kernels maps them. */
#include "burnflex.h"

/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_compare_s8 MP_QSTR_select_s8 MP_QSTR_compare_f32 MP_QSTR_select_f32 */

/* (a, b, out, size, b_size, op[, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift]) */
static mp_obj_t compare_kernel(const char *op, const mp_obj_t *args, int kind) {
    const bf_pair x = bf_pair_args(op, args, kind, BF_S8);
    const int32_t code = bf_int(op, args[5]);
    flex_s8_compare_params p; /* int8: the zero points, multipliers and shifts, in its order */
    if (kind == BF_S8)
        bf_block(op, args, 6, &p, sizeof p);
    bf_pair_need(op, &x);
    if (kind == BF_S8) {
        p.input1_offset = bf_neg(p.input1_offset);
        p.input2_offset = bf_neg(p.input2_offset);
        bf_check(op, flex_s8_compare(code, (size_t)x.size, x.a.data, x.b.data,
                                     (size_t)x.b_size, &p, x.out.data));
    }
#if BURNFLEX_FLOAT
    else
        bf_check(op, flex_f32_compare(code, (size_t)x.size, x.a.data, x.b.data,
                                      (size_t)x.b_size, x.out.data));
#endif
    return mp_const_none;
}

BF_FORWARD(compare_s8, compare_kernel, BF_S8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_compare_s8_obj, 12, 12, compare_s8);

/* (cond, x, y, out, size, c_size, x_size, y_size); `kind` the element kind of x, y, out */
static mp_obj_t select_kernel(const char *op, const mp_obj_t *args, int kind) {
    enum { SIZE, C_SIZE, X_SIZE, Y_SIZE, COUNT };
    int32_t a[COUNT];
    const bf_buf c = bf_buffer(op, args, 0, BF_S8, 0), x = bf_buffer(op, args, 1, kind, 0);
    const bf_buf y = bf_buffer(op, args, 2, kind, 0), out = bf_buffer(op, args, 3, kind, 1);
    bf_ints(op, args, 4, COUNT, a);
    if (a[SIZE] < 1 || a[C_SIZE] < 1 || a[X_SIZE] < 1 || a[Y_SIZE] < 1)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    bf_need(op, &c, a[C_SIZE]);
    bf_need(op, &x, a[X_SIZE]);
    bf_need(op, &y, a[Y_SIZE]);
    bf_need(op, &out, a[SIZE]);
    bf_check(op, flex_select(kind == BF_S8 ? 1 : 4, (size_t)a[SIZE], c.data, (size_t)a[C_SIZE],
                             x.data, (size_t)a[X_SIZE], y.data, (size_t)a[Y_SIZE], out.data));
    return mp_const_none;
}

BF_FORWARD(select_s8, select_kernel, BF_S8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_select_s8_obj, 8, 8, select_s8);

#if BURNFLEX_FLOAT

BF_FORWARD(compare_f32, compare_kernel, BF_F32)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_compare_f32_obj, 6, 6, compare_f32);

BF_FORWARD(select_f32, select_kernel, BF_F32)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_select_f32_obj, 8, 8, select_f32);

#endif

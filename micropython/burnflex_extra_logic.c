/* The comparisons and selection of burn.graph.logic (the optional ops compare and select),
 * each mapped onto one flex_c call as the host's burn.host.flex.graph_kernels maps them. */
#include "burnflex.h"

/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_compare_s8 MP_QSTR_select_s8 MP_QSTR_compare_f32 MP_QSTR_select_f32 */

/* (a, b, out, size, b_size, op[, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift]) */
static mp_obj_t compare_kernel(const char *op, const mp_obj_t *args, int kind) {
    enum { SIZE, B_SIZE, OP, A_ZP, A_MULT, A_SHIFT, B_ZP, B_MULT, B_SHIFT, COUNT };
    int32_t a[COUNT];
    const bf_buf x1 = bf_buffer(op, args, 0, kind, 0), x2 = bf_buffer(op, args, 1, kind, 0);
    const bf_buf y = bf_buffer(op, args, 2, BF_S8, 1);
    bf_ints(op, args, 3, kind == BF_S8 ? COUNT : A_ZP, a);
    if (a[SIZE] < 1 || a[B_SIZE] < 1)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    bf_need(op, &x1, a[SIZE]);
    bf_need(op, &x2, a[B_SIZE]);
    bf_need(op, &y, a[SIZE]);
    if (kind == BF_S8) {
        flex_s8_compare_params p;
        p.input1_offset = bf_neg(a[A_ZP]);
        p.input1_multiplier = a[A_MULT];
        p.input1_shift = a[A_SHIFT];
        p.input2_offset = bf_neg(a[B_ZP]);
        p.input2_multiplier = a[B_MULT];
        p.input2_shift = a[B_SHIFT];
        bf_check(op, flex_s8_compare(a[OP], (size_t)a[SIZE], x1.data, x2.data,
                                     (size_t)a[B_SIZE], &p, y.data));
    }
#if BURNFLEX_FLOAT
    else
        bf_check(op, flex_f32_compare(a[OP], (size_t)a[SIZE], x1.data, x2.data,
                                      (size_t)a[B_SIZE], y.data));
#endif
    return mp_const_none;
}

static mp_obj_t compare_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return compare_kernel("compare_s8", args, BF_S8);
}
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

static mp_obj_t select_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return select_kernel("select_s8", args, BF_S8);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_select_s8_obj, 8, 8, select_s8);

#if BURNFLEX_FLOAT

static mp_obj_t compare_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return compare_kernel("compare_f32", args, BF_F32);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_compare_f32_obj, 6, 6, compare_f32);

static mp_obj_t select_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return select_kernel("select_f32", args, BF_F32);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_select_f32_obj, 8, 8, select_f32);

#endif

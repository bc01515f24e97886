/* The optional elementwise arithmetic ops of burn.graph (s8_arith, f32_arith, div): SUB,
 * SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, DIV, FLOOR_DIV, FLOOR_MOD, each mapped onto one
 * flex_c call as the host's burn.host.flex.graph_kernels maps them. */
#include "burnflex.h"

/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_sub_s8 MP_QSTR_squared_difference_s8 MP_QSTR_maximum_s8
 * MP_QSTR_minimum_s8 MP_QSTR_sub_f32 MP_QSTR_squared_difference_f32 MP_QSTR_maximum_f32
 * MP_QSTR_minimum_f32 MP_QSTR_div_f32 */

static mp_obj_t sub_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return bf_add_like("sub_s8", args, 1, flex_s8_sub);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_sub_s8_obj, 18, 18, sub_s8);

static mp_obj_t squared_difference_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return bf_add_like("squared_difference_s8", args, 0, flex_s8_squared_difference);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_squared_difference_s8_obj, 17, 17,
                                    squared_difference_s8);

/* (a, b, out, size, b_size[, act[, swap]]) of flex_s8_arith / flex_f32_arith: `op` a
 * FLEX_ARITH_* code, `kind` the buffers' element kind. */
static mp_obj_t arith(const char *op, const mp_obj_t *args, int32_t code, int kind, int32_t act) {
    enum { SIZE, B_SIZE, COUNT };
    int32_t a[COUNT];
    const bf_buf x1 = bf_buffer(op, args, 0, kind, 0), x2 = bf_buffer(op, args, 1, kind, 0);
    const bf_buf y = bf_buffer(op, args, 2, kind, 1);
    bf_ints(op, args, 3, COUNT, a);
    if (a[SIZE] < 1 || a[B_SIZE] < 1)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    bf_need(op, &x1, a[SIZE]);
    bf_need(op, &x2, a[B_SIZE]);
    bf_need(op, &y, a[SIZE]);
    if (kind == BF_S8)
        bf_check(op, flex_s8_arith(code, (size_t)a[SIZE], x1.data, x2.data, (size_t)a[B_SIZE],
                                   y.data));
#if BURNFLEX_FLOAT
    else
        bf_check(op, flex_f32_arith(code, (size_t)a[SIZE], x1.data, x2.data,
                                    (size_t)a[B_SIZE], act, y.data));
#endif
    return mp_const_none;
}

static mp_obj_t maximum_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return arith("maximum_s8", args, FLEX_ARITH_MAXIMUM, BF_S8, 0);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_maximum_s8_obj, 5, 5, maximum_s8);

static mp_obj_t minimum_s8(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return arith("minimum_s8", args, FLEX_ARITH_MINIMUM, BF_S8, 0);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_minimum_s8_obj, 5, 5, minimum_s8);

#if BURNFLEX_FLOAT

static mp_obj_t sub_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "sub_f32";
    int32_t act_swap[2];
    (void)n_args;
    bf_ints(op, args, 5, 2, act_swap);
    return arith(op, args, act_swap[1] ? FLEX_ARITH_SUB_SWAPPED : FLEX_ARITH_SUB, BF_F32,
                 act_swap[0]);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_sub_f32_obj, 7, 7, sub_f32);

static mp_obj_t squared_difference_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return arith("squared_difference_f32", args, FLEX_ARITH_SQUARED_DIFFERENCE, BF_F32, 0);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_squared_difference_f32_obj, 5, 5,
                                    squared_difference_f32);

static mp_obj_t maximum_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return arith("maximum_f32", args, FLEX_ARITH_MAXIMUM, BF_F32, 0);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_maximum_f32_obj, 5, 5, maximum_f32);

static mp_obj_t minimum_f32(size_t n_args, const mp_obj_t *args) {
    (void)n_args;
    return arith("minimum_f32", args, FLEX_ARITH_MINIMUM, BF_F32, 0);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_minimum_f32_obj, 5, 5, minimum_f32);

/* (a, b, out, size, b_size, op, swap, act): DIV, FLOOR_DIV, FLOOR_MOD (burn.graph.div) */
static mp_obj_t div_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "div_f32";
    int32_t p[3];
    (void)n_args;
    bf_ints(op, args, 5, 3, p);
    if (p[0] < 0 || p[0] > 2 || p[1] < 0 || p[1] > 1)
        bf_raise(op, flex_status_str(FLEX_E_PARAM));
    return arith(op, args, FLEX_ARITH_DIV + 2 * p[0] + p[1], BF_F32, p[2]);
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_div_f32_obj, 8, 8, div_f32);

#endif

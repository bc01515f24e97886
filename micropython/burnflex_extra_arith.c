/* The optional elementwise arithmetic ops of burn.graph (s8_arith, f32_arith, div): SUB,
 * SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, DIV, FLOOR_DIV, FLOOR_MOD, each mapped onto one
 * flex_c call as the host's burn.host.flex.graph_kernels maps them. */
#include "burnflex.h"

/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_sub_s8 MP_QSTR_squared_difference_s8 MP_QSTR_maximum_s8
 * MP_QSTR_minimum_s8 MP_QSTR_sub_f32 MP_QSTR_squared_difference_f32 MP_QSTR_maximum_f32
 * MP_QSTR_minimum_f32 MP_QSTR_div_f32 */

BF_FORWARD(sub_s8, bf_add_like, 1, flex_s8_sub)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_sub_s8_obj, 18, 18, sub_s8);

BF_FORWARD(squared_difference_s8, bf_add_like, 0, flex_s8_squared_difference)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_squared_difference_s8_obj, 17, 17,
                                    squared_difference_s8);

/* burnflex.h */
void bf_pair_need(const char *op, const bf_pair *p) {
    if (p->size < 1 || p->b_size < 1)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    bf_need(op, &p->a, p->size);
    bf_need(op, &p->b, p->b_size);
    bf_need(op, &p->out, p->size);
}

/* (a, b, out, size, b_size[, act[, swap]]) of flex_s8_arith / flex_f32_arith: `op` a
 * FLEX_ARITH_* code, `kind` the buffers' element kind. */
static mp_obj_t arith(const char *op, const mp_obj_t *args, int32_t code, int kind, int32_t act) {
    const bf_pair x = bf_pair_args(op, args, kind, kind);
    bf_pair_need(op, &x);
    if (kind == BF_S8)
        bf_check(op, flex_s8_arith(code, (size_t)x.size, x.a.data, x.b.data, (size_t)x.b_size,
                                   x.out.data));
#if BURNFLEX_FLOAT
    else
        bf_check(op, flex_f32_arith(code, (size_t)x.size, x.a.data, x.b.data,
                                    (size_t)x.b_size, act, x.out.data));
#endif
    return mp_const_none;
}

BF_FORWARD(maximum_s8, arith, FLEX_ARITH_MAXIMUM, BF_S8, 0)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_maximum_s8_obj, 5, 5, maximum_s8);

BF_FORWARD(minimum_s8, arith, FLEX_ARITH_MINIMUM, BF_S8, 0)
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

BF_FORWARD(squared_difference_f32, arith, FLEX_ARITH_SQUARED_DIFFERENCE, BF_F32, 0)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_squared_difference_f32_obj, 5, 5,
                                    squared_difference_f32);

BF_FORWARD(maximum_f32, arith, FLEX_ARITH_MAXIMUM, BF_F32, 0)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_maximum_f32_obj, 5, 5, maximum_f32);

BF_FORWARD(minimum_f32, arith, FLEX_ARITH_MINIMUM, BF_F32, 0)
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

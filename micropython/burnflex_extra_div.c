/* int8 DIV of burn.graph.div (the optional op `div`), mapped onto flex_s8_div as the host's
 * burn.host.flex.graph_kernels maps it; div_f32 is bound with the float arithmetic. */
#include "burnflex.h"

/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_div_s8 */

/* (a, b, out, size, b_size, swap, a_zp, b_zp, out_zp, mult, shift, act_min, act_max) */
static mp_obj_t div_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "div_s8";
    enum { SIZE, B_SIZE, SWAP, A_ZP, B_ZP, OUT_ZP, MULT, SHIFT, ACT_MIN, ACT_MAX, COUNT };
    int32_t a[COUNT];
    const bf_buf x1 = bf_buffer(op, args, 0, BF_S8, 0), x2 = bf_buffer(op, args, 1, BF_S8, 0);
    const bf_buf y = bf_buffer(op, args, 2, BF_S8, 1);
    flex_s8_div_params p;
    (void)n_args;
    bf_ints(op, args, 3, COUNT, a);
    if (a[SIZE] < 1 || a[B_SIZE] < 1)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    bf_need(op, &x1, a[SIZE]);
    bf_need(op, &x2, a[B_SIZE]);
    bf_need(op, &y, a[SIZE]);
    p.swap = a[SWAP];
    p.input1_offset = bf_neg(a[A_ZP]);
    p.input2_offset = bf_neg(a[B_ZP]);
    p.output_offset = a[OUT_ZP];
    p.output_multiplier = a[MULT];
    p.output_shift = a[SHIFT];
    p.act_min = a[ACT_MIN];
    p.act_max = a[ACT_MAX];
    bf_check(op, flex_s8_div((size_t)a[SIZE], x1.data, x2.data, (size_t)a[B_SIZE], &p,
                             y.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_div_s8_obj, 13, 13, div_s8);

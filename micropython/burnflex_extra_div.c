/* int8 DIV of burn.graph.div (the optional op `div`), mapped onto flex_s8_div as the host's
 * burn.host.flex.graph_kernels maps it; div_f32 is bound with the float arithmetic. */
#include "burnflex.h"

/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_div_s8 */

/* (a, b, out, size, b_size, swap, a_zp, b_zp, out_zp, mult, shift, act_min, act_max): swap,
 * the zero points and the rest of flex_s8_div_params in its order. */
static mp_obj_t div_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "div_s8";
    const bf_pair x = bf_pair_args(op, args, BF_S8, BF_S8);
    flex_s8_div_params p;
    (void)n_args;
    bf_block(op, args, 5, &p, sizeof p);
    bf_pair_need(op, &x);
    p.input1_offset = bf_neg(p.input1_offset);
    p.input2_offset = bf_neg(p.input2_offset);
    bf_check(op, flex_s8_div((size_t)x.size, x.a.data, x.b.data, (size_t)x.b_size, &p,
                             x.out.data));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_div_s8_obj, 13, 13, div_s8);

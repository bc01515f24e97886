/* Bindings of SVDF (burn.graph.svdf, an optional op; flex_c/src/extra). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_svdf_s8 MP_QSTR_svdf_f32 */
#include "burnflex.h"

/* args[0..6): inp, wf, wt, bias, state, out; args[6..DIMS_END): the flex_svdf_dims fields. */
enum { DIMS_END = 6 + sizeof(flex_svdf_dims) / sizeof(int32_t) };

typedef struct {
    flex_svdf_dims d;
    int64_t units, in, wf, wt, state, out; /* element counts; -1 past int32 range */
} svdf_sizes;

static svdf_sizes read_sizes(const char *op, const mp_obj_t *args) {
    svdf_sizes s;
    bf_block(op, args, 6, &s.d, sizeof s.d);
    s.units = s.d.rank > 0 ? s.d.filters / s.d.rank : -1;
    s.in = bf_product(s.d.batch, s.d.input_size);
    s.wf = bf_product(s.d.filters, s.d.input_size);
    s.wt = bf_product(s.d.filters, s.d.memory);
    s.state = bf_product(s.d.batch, s.wt);
    s.out = bf_product(s.d.batch, s.units);
    return s;
}

/* (inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank, in_zp,
 * state_zp, out_zp, state_mult, state_shift, out_mult, out_shift, state_bits) */
static mp_obj_t svdf_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "svdf_s8";
    flex_svdf_quant q;
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), wf = bf_buffer(op, args, 1, BF_S8, 0),
                 wt = bf_buffer(op, args, 2, BF_I32, 0), b = bf_buffer(op, args, 3, BF_I32, 0),
                 st = bf_buffer(op, args, 4, BF_I32, 1), y = bf_buffer(op, args, 5, BF_S8, 1);
    const svdf_sizes s = read_sizes(op, args);
    (void)n_args;
    bf_block(op, args, DIMS_END, &q, sizeof q);
    bf_check(op, flex_s8_svdf(&s.d, x.data, bf_len(&x, s.in), wf.data, bf_len(&wf, s.wf),
                              wt.data, bf_len(&wt, s.wt), b.data, bf_len(&b, s.units), st.data,
                              bf_len(&st, s.state), &q, y.data, bf_len(&y, s.out)));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_svdf_s8_obj, 19, 19, svdf_s8);

#if BURNFLEX_FLOAT
/* (inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank, act) */
static mp_obj_t svdf_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "svdf_f32";
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), wf = bf_buffer(op, args, 1, BF_F32, 0),
                 wt = bf_buffer(op, args, 2, BF_F32, 0), b = bf_buffer(op, args, 3, BF_F32, 0),
                 st = bf_buffer(op, args, 4, BF_F32, 1), y = bf_buffer(op, args, 5, BF_F32, 1);
    const svdf_sizes s = read_sizes(op, args);
    (void)n_args;
    bf_check(op, flex_f32_svdf(&s.d, x.data, bf_len(&x, s.in), wf.data, bf_len(&wf, s.wf),
                               wt.data, bf_len(&wt, s.wt), b.data, bf_len(&b, s.units),
                               st.data, bf_len(&st, s.state),
                               bf_int(op, args[DIMS_END]), y.data, bf_len(&y, s.out)));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_svdf_f32_obj, 12, 12, svdf_f32);
#endif

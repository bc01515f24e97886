/* Bindings of BATCH_MATMUL (burn.graph.batch_matmul, an optional op). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_batch_matmul_s8 MP_QSTR_batch_matmul_s16 MP_QSTR_batch_matmul_f32 */
#include "burnflex.h"

/* args[0..3): a, b, out; args[3..11): the flex_matmul_dims fields, in its order. */
static flex_matmul_dims read_dims(const char *op, const mp_obj_t *args) {
    flex_matmul_dims d;
    bf_block(op, args, 3, &d, sizeof d);
    return d;
}

/* The element count of one operand: (batches - 1) * step + rows * cols, or -1 past int32
 * range (the kernel then sees the buffer's own length and refuses it). */
static int64_t operand(const flex_matmul_dims *d, int32_t step, int32_t rows, int32_t cols) {
    const int64_t n = (int64_t)(d->batches - 1) * step + (int64_t)rows * cols;
    return n >= 0 && n <= INT32_MAX ? n : -1;
}

/* (a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y, a_zp, b_zp, out_zp, mult,
 * shift): int8, or int16 where `wide` */
static mp_obj_t quantized(const char *op, const mp_obj_t *args, int wide) {
    enum { A_ZP, B_ZP, OUT_ZP, MULT, SHIFT, COUNT };
    int32_t q[COUNT];
    const bf_buf a = wide ? bf_s16(op, args, 0, 0) : bf_buffer(op, args, 0, BF_S8, 0);
    const bf_buf b = wide ? bf_s16(op, args, 1, 0) : bf_buffer(op, args, 1, BF_S8, 0);
    const bf_buf y = wide ? bf_s16(op, args, 2, 1) : bf_buffer(op, args, 2, BF_S8, 1);
    const flex_matmul_dims d = read_dims(op, args);
    const size_t a_len = bf_len(&a, operand(&d, d.a_step, d.m, d.k));
    const size_t b_len = bf_len(&b, operand(&d, d.b_step, d.k, d.n));
    const size_t y_len = bf_len(&y, bf_count4(d.batches, d.m, d.n, 1));
    bf_ints(op, args, 11, COUNT, q);
    bf_check(op, wide ? flex_s16_batch_matmul(&d, a.data, a_len, b.data, b_len, q[A_ZP],
                                              q[B_ZP], q[OUT_ZP], q[MULT], q[SHIFT], y.data,
                                              y_len)
                      : flex_s8_batch_matmul(&d, a.data, a_len, b.data, b_len, q[A_ZP],
                                             q[B_ZP], q[OUT_ZP], q[MULT], q[SHIFT], y.data,
                                             y_len));
    return mp_const_none;
}

BF_FORWARD(batch_matmul_s8, quantized, 0)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_batch_matmul_s8_obj, 16, 16, batch_matmul_s8);

BF_FORWARD(batch_matmul_s16, quantized, 1)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_batch_matmul_s16_obj, 16, 16, batch_matmul_s16);

#if BURNFLEX_FLOAT
/* (a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y) */
static mp_obj_t batch_matmul_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "batch_matmul_f32";
    const bf_buf a = bf_buffer(op, args, 0, BF_F32, 0), b = bf_buffer(op, args, 1, BF_F32, 0),
                 y = bf_buffer(op, args, 2, BF_F32, 1);
    const flex_matmul_dims d = read_dims(op, args);
    (void)n_args;
    bf_check(op, flex_f32_batch_matmul(&d, a.data, bf_len(&a, operand(&d, d.a_step, d.m, d.k)),
                                       b.data, bf_len(&b, operand(&d, d.b_step, d.k, d.n)),
                                       y.data, bf_len(&y, bf_count4(d.batches, d.m, d.n, 1))));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_batch_matmul_f32_obj, 11, 11, batch_matmul_f32);
#endif

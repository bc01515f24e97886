/* Bindings of the image resizes (burn.graph.resize, an optional op). */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_resize_s8 MP_QSTR_resize_f32 */
#include "burnflex.h"

/* (n, ih, iw, c, oh, ow) at args[2..8) as input and output dims; the tables' element
 * counts for the kernel to check. */
typedef struct {
    flex_dims4 in, out;
    bf_buf ys, xs;
} resize_args;

static resize_args read_args(const char *op, const mp_obj_t *args) {
    enum { N, IH, IW, C, OH, OW, COUNT };
    int32_t a[COUNT];
    resize_args r;
    bf_ints(op, args, 2, COUNT, a);
    r.in = bf_dims(a[N], a[IH], a[IW], a[C]);
    r.out = bf_dims(a[N], a[OH], a[OW], a[C]);
    r.ys = bf_buffer(op, args, 8, BF_I32, 0);
    r.xs = bf_buffer(op, args, 9, BF_I32, 0);
    return r;
}

/* (inp, out, n, ih, iw, c, oh, ow, ys, xs) */
static mp_obj_t resize_s8(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "resize_s8";
    const bf_buf x = bf_buffer(op, args, 0, BF_S8, 0), y = bf_buffer(op, args, 1, BF_S8, 1);
    const resize_args r = read_args(op, args);
    (void)n_args;
    bf_check(op, flex_s8_resize(&r.in, x.data, bf_len(&x, bf_count4(r.in.n, r.in.h, r.in.w,
                                                                     r.in.c)),
                                r.ys.data, bf_len(&r.ys, 3 * (int64_t)r.out.h), r.xs.data,
                                bf_len(&r.xs, 3 * (int64_t)r.out.w), &r.out, y.data,
                                bf_len(&y, bf_count4(r.out.n, r.out.h, r.out.w, r.out.c))));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_resize_s8_obj, 10, 10, resize_s8);

#if BURNFLEX_FLOAT
/* (inp, out, n, ih, iw, c, oh, ow, ys, xs, fy, fx) */
static mp_obj_t resize_f32(size_t n_args, const mp_obj_t *args) {
    static const char op[] = "resize_f32";
    const bf_buf x = bf_buffer(op, args, 0, BF_F32, 0), y = bf_buffer(op, args, 1, BF_F32, 1);
    const resize_args r = read_args(op, args);
    const bf_buf fy = bf_buffer(op, args, 10, BF_F32, 0), fx = bf_buffer(op, args, 11, BF_F32, 0);
    (void)n_args;
    bf_need(op, &fy, r.out.h);
    bf_need(op, &fx, r.out.w);
    bf_check(op, flex_f32_resize(&r.in, x.data, bf_len(&x, bf_count4(r.in.n, r.in.h, r.in.w,
                                                                      r.in.c)),
                                 r.ys.data, bf_len(&r.ys, 3 * (int64_t)r.out.h), r.xs.data,
                                 bf_len(&r.xs, 3 * (int64_t)r.out.w), fy.data, fx.data, &r.out,
                                 y.data, bf_len(&y, bf_count4(r.out.n, r.out.h, r.out.w,
                                                              r.out.c))));
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_resize_f32_obj, 12, 12, resize_f32);
#endif

/* The layout kernels of burn.graph.layout: pad and concat, for int8 buffers (pad_s8,
 * concat_s8) and, in float builds, for any typed buffer (pad, concat). */
#include "burnflex.h"

/* (inp, out, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, value) */
static mp_obj_t pad_kernel(const char *op, const mp_obj_t *args, int kind) {
    enum { D0, D1, D2, D3, B0, B1, B2, B3, A0, A1, A2, A3, COUNT };
    int32_t a[COUNT], pads[8];
    union {
        int8_t i8;
        int16_t i16;
        int32_t i32;
        float f32;
    } value;
    const bf_buf x = bf_buffer(op, args, 0, kind, 0), y = bf_buffer(op, args, 1, kind, 1);
    flex_dims4 d;
    int i;
    bf_ints(op, args, 2, COUNT, a);
    if (x.itemsize != y.itemsize || x.is_float != y.is_float)
        bf_raise(op, "input and output element types differ");
    for (i = 0; i < 4; i++) { /* {before, after} per axis */
        pads[2 * i] = a[B0 + i];
        pads[2 * i + 1] = a[A0 + i];
    }
#if BURNFLEX_FLOAT
    if (y.is_float)
        value.f32 = (float)mp_obj_get_float(args[14]);
    else
#endif
    {
        const int32_t v = bf_int(op, args[14]);
        if (y.itemsize == 1)
            value.i8 = (int8_t)v;
        else if (y.itemsize == 2)
            value.i16 = (int16_t)v;
        else
            value.i32 = v;
    }
    d = bf_dims(a[D0], a[D1], a[D2], a[D3]);
    bf_check(op, flex_pad((int32_t)y.itemsize, &d, x.data, bf_len(&x, bf_count4(
                                  a[D0], a[D1], a[D2], a[D3])), pads, &value, y.data,
                          bf_len(&y, bf_count4(a[D0] + a[B0] + a[A0], a[D1] + a[B1] + a[A1],
                                               a[D2] + a[B2] + a[A2], a[D3] + a[B3] + a[A3]))));
    return mp_const_none;
}

BF_FORWARD(pad_s8, pad_kernel, BF_S8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_pad_s8_obj, 15, 15, pad_s8);

/* (inputs, inner_sizes, out, outer): inputs a list or tuple of buffers, each viewed as
 * [outer, inner_sizes[k]]; inner_sizes an int32 buffer. */
static mp_obj_t concat_kernel(const char *op, const mp_obj_t *args, int kind) {
    const void *ptrs[BF_MAX_CONCAT];
    mp_obj_t *items;
    size_t n, k;
    int64_t total = 0;
    const bf_buf sizes = bf_buffer(op, args, 1, BF_I32, 0), y = bf_buffer(op, args, 2, kind, 1);
    const int32_t outer = bf_int(op, args[3]);
    const int32_t *inner = (const int32_t *)sizes.data;
    mp_obj_get_array(args[0], &n, &items);
    if (n > BF_MAX_CONCAT)
        bf_raise(op, "too many inputs");
    bf_need(op, &sizes, (int64_t)n);
    for (k = 0; k < n; k++) {
        const bf_buf x = bf_buffer(op, items, k, kind, 0);
        if (x.itemsize != y.itemsize || x.is_float != y.is_float)
            bf_raise(op, "input and output element types differ");
        if (outer >= 0 && inner[k] >= 0)
            bf_need(op, &x, (int64_t)outer * inner[k]);
        total += inner[k];
        ptrs[k] = x.data;
    }
    bf_check(op, flex_concat((int32_t)y.itemsize, (int32_t)n, ptrs, inner, outer, 1, y.data,
                             bf_len(&y, (int64_t)outer * total)));
    return mp_const_none;
}

BF_FORWARD(concat_s8, concat_kernel, BF_S8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_concat_s8_obj, 4, 4, concat_s8);

#if BURNFLEX_FLOAT
BF_FORWARD(pad, pad_kernel, BF_ANY)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_pad_obj, 15, 15, pad);

BF_FORWARD(concat, concat_kernel, BF_ANY)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_concat_obj, 4, 4, concat);
#endif

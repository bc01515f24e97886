/* The bindings of the optional op `strided` (burn.graph.strided): strided_s8 for int8
 * buffers and, in float builds, strided for any typed buffer. */
/* This file's kernels, spelt out for a native module's qstr scan (burnflex_extra.h):
 * MP_QSTR_strided_s8 MP_QSTR_strided */
#include "burnflex.h"

/* (inp, out, offset, d0, ..., d5, s0, ..., s5) */
static mp_obj_t strided_kernel(const char *op, const mp_obj_t *args, int kind) {
    enum { OFFSET, DIMS, STRIDES = DIMS + FLEX_STRIDED_DIMS,
           COUNT = STRIDES + FLEX_STRIDED_DIMS };
    int32_t a[COUNT];
    int64_t count = 1;
    int i;
    const bf_buf x = bf_buffer(op, args, 0, kind, 0), y = bf_buffer(op, args, 1, kind, 1);
    bf_ints(op, args, 2, COUNT, a);
    if (x.itemsize != y.itemsize || x.is_float != y.is_float)
        bf_raise(op, "input and output element types differ");
    for (i = 0; i < FLEX_STRIDED_DIMS && count <= INT32_MAX; i++)
        count *= a[DIMS + i] < 1 ? 0 : a[DIMS + i]; /* a bad dim: the kernel says which */
    bf_check(op, flex_strided((int32_t)y.itemsize, x.data, x.len, a[OFFSET], a + DIMS,
                              a + STRIDES, y.data, bf_len(&y, count)));
    return mp_const_none;
}

BF_FORWARD(strided_s8, strided_kernel, BF_S8)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_strided_s8_obj, 15, 15, strided_s8);

#if BURNFLEX_FLOAT
BF_FORWARD(strided, strided_kernel, BF_ANY)
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_strided_obj, 15, 15, strided);
#endif

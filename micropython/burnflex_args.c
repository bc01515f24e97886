/* Arguments of the burnflex kernels: buffers, int32 values and status errors. */
#include "burnflex.h"

#define BF_MESSAGE 96

/* Append `s` to buf (capacity BF_MESSAGE) at *at, truncating. */
static void append(char *buf, size_t *at, const char *s) {
    while (*s && *at < BF_MESSAGE - 1)
        buf[(*at)++] = *s++;
}

/* Raise `type`("<op>: <what><tail>"); the text is built on the stack and copied into a
 * str object, since an exception keeps the pointer of a plain C message. */
static MP_NORETURN void raise_text(const mp_obj_type_t *type, const char *op, const char *what,
                                   const char *tail) {
    char buf[BF_MESSAGE];
    size_t at = 0;
    append(buf, &at, op);
    append(buf, &at, ": ");
    append(buf, &at, what);
    append(buf, &at, tail);
    mp_raise_type_arg(type, mp_obj_new_str(buf, at));
}

MP_NORETURN void bf_raise(const char *op, const char *what) {
    raise_text(&mp_type_ValueError, op, what, "");
}

void bf_check(const char *op, flex_status status) {
    if (status != FLEX_OK)
        bf_raise(op, flex_status_str(status));
}

static const char *const kind_names[] = {
    " must be an int8 buffer (bytes, bytearray, array('b'))",
    " must be an int32 buffer (array('i'), or bytes of whole words)",
    " must be a float32 buffer (array('f'))",
    " must be a buffer",
    " must be a writable buffer",
};

/* TypeError("<op>: argument <position> must be ..."); positions are 1-based, below 100. */
static MP_NORETURN void raise_kind(const char *op, size_t index, int kind) {
    char what[12] = "argument ";
    const size_t pos = index + 1;
    size_t at = 9;
    if (pos >= 10)
        what[at++] = (char)('0' + pos / 10 % 10);
    what[at++] = (char)('0' + pos % 10);
    what[at] = 0;
    raise_text(&mp_type_TypeError, op, what, kind_names[kind]);
}

bf_buf bf_buffer(const char *op, const mp_obj_t *args, size_t index, int kind, int write) {
    mp_buffer_info_t info;
    bf_buf b;
    if (!mp_get_buffer(args[index], &info, MP_BUFFER_READ))
        raise_kind(op, index, kind);
    if (write && !mp_get_buffer(args[index], &info, MP_BUFFER_WRITE))
        raise_kind(op, index, BF_ANY + 1);
    b.itemsize = mp_binary_get_size('@', info.typecode, NULL);
    b.is_float = info.typecode == 'f';
    if (kind == BF_I32 && b.itemsize == 1 && !write && info.len % 4 == 0)
        b.itemsize = 4; /* raw little-endian words, e.g. a table read in place from flash */
    if (b.itemsize == 0 || (kind == BF_S8 && b.itemsize != 1) ||
        (kind == BF_I32 && (b.itemsize != 4 || b.is_float)) || (kind == BF_F32 && !b.is_float))
        raise_kind(op, index, kind);
    if (((uintptr_t)info.buf & (b.itemsize - 1)) != 0 && b.itemsize <= 4)
        bf_raise(op, "buffer not aligned to its element size");
    b.data = info.buf;
    b.len = info.len / b.itemsize;
    return b;
}

bf_buf bf_optional(const char *op, const mp_obj_t *args, size_t index, int kind) {
    bf_buf none = {NULL, 0, 0, 0};
    return args[index] == mp_const_none ? none : bf_buffer(op, args, index, kind, 0);
}

void bf_ints(const char *op, const mp_obj_t *args, size_t first, size_t count, int32_t *out) {
    size_t i;
    for (i = 0; i < count; i++) {
        const mp_int_t v = mp_obj_get_int(args[first + i]);
        if (v < INT32_MIN || v > INT32_MAX)
            bf_raise(op, flex_status_str(FLEX_E_PARAM));
        out[i] = (int32_t)v;
    }
}

size_t bf_len(const bf_buf *b, int64_t need) {
    return need >= 0 && need <= INT32_MAX && b->len >= (size_t)need ? (size_t)need : b->len;
}

void bf_need(const char *op, const bf_buf *b, int64_t need) {
    if (need < 0)
        bf_raise(op, flex_status_str(FLEX_E_SHAPE));
    if (need > INT32_MAX)
        bf_raise(op, flex_status_str(FLEX_E_OVERFLOW));
    if (b->len < (size_t)need)
        bf_raise(op, flex_status_str(FLEX_E_SIZE));
}

bf_weights bf_weights_args(const char *op, const mp_obj_t *args) {
    bf_weights p;
    p.w = bf_buffer(op, args, 1, BF_S8, 0);
    p.bias = bf_optional(op, args, 2, BF_I32);
    p.mult = bf_buffer(op, args, 3, BF_I32, 0);
    p.shift = bf_buffer(op, args, 4, BF_I32, 0);
    return p;
}

bf_pair bf_pair_args(const char *op, const mp_obj_t *args, int kind, int out_kind) {
    bf_pair p;
    int32_t sizes[2];
    p.a = bf_buffer(op, args, 0, kind, 0);
    p.b = bf_buffer(op, args, 1, kind, 0);
    p.out = bf_buffer(op, args, 2, out_kind, 1);
    bf_ints(op, args, 3, 2, sizes);
    p.size = sizes[0];
    p.b_size = sizes[1];
    return p;
}

size_t bf_conv_args(const char *op, const mp_obj_t *args, size_t first, int depthwise,
                    bf_conv *g) {
    /* n, ih, iw, ic, oh, ow, oc, kh, kw, groups, sh, sw, dh, dw, pad_top, pad_left */
    enum { N, IH, IW, IC, OH, OW, OC, KH, KW, GROUPS, SH, SW, DH, DW, PT, PL, COUNT };
    int32_t a[COUNT];
    int64_t oc;
    if (depthwise) { /* no groups: the depth multiplier takes its place, oc = ic * it */
        bf_ints(op, args, first, GROUPS, a);
        bf_ints(op, args, first + GROUPS, COUNT - GROUPS - 1, a + SH);
        a[GROUPS] = a[OC];
        oc = (int64_t)a[IC] * a[OC];
        if (oc < INT32_MIN || oc > INT32_MAX)
            bf_raise(op, flex_status_str(FLEX_E_OVERFLOW));
        a[OC] = (int32_t)oc;
    } else {
        bf_ints(op, args, first, COUNT, a);
    }
    g->in = bf_dims(a[N], a[IH], a[IW], a[IC]);
    g->out = bf_dims(a[N], a[OH], a[OW], a[OC]);
    g->win = bf_window(a[IH], a[IW], a[OH], a[OW], a[KH], a[KW], a[SH], a[SW], a[DH], a[DW],
                       a[PT], a[PL]);
    g->param = a[GROUPS];
    g->in_count = bf_count4(a[N], a[IH], a[IW], a[IC]);
    g->out_count = bf_count4(a[N], a[OH], a[OW], a[OC]);
    g->w_count = bf_count4(a[OC], a[KH], a[KW],
                           depthwise ? 1 : (a[GROUPS] > 0 ? a[IC] / a[GROUPS] : 0));
    return first + COUNT - (depthwise ? 1 : 0);
}

size_t bf_pool_args(const char *op, const mp_obj_t *args, size_t first, bf_pool *p) {
    enum { N, IH, IW, C, OH, OW, KH, KW, SH, SW, PT, PL, COUNT };
    int32_t a[COUNT];
    bf_ints(op, args, first, COUNT, a);
    p->in = bf_dims(a[N], a[IH], a[IW], a[C]);
    p->out = bf_dims(a[N], a[OH], a[OW], a[C]);
    p->win = bf_window(a[IH], a[IW], a[OH], a[OW], a[KH], a[KW], a[SH], a[SW], 1, 1, a[PT],
                       a[PL]);
    p->in_count = bf_count4(a[N], a[IH], a[IW], a[C]);
    p->out_count = bf_count4(a[N], a[OH], a[OW], a[C]);
    return first + COUNT;
}

static mp_obj_t bf_aligned(mp_obj_t buffer) {
    mp_buffer_info_t info;
    mp_get_buffer_raise(buffer, &info, MP_BUFFER_READ);
    return mp_obj_new_bool(((uintptr_t)info.buf & 3) == 0);
}
MP_DEFINE_CONST_FUN_OBJ_1(bf_aligned_obj, bf_aligned);

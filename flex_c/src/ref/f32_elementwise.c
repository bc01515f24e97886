/* float32 unary ops, broadcasting binary ops and clamp. */
#include "../common/internal.h"

static float neg_(float x) { return -x; }
static float abs_(float x) { return x < 0.0f ? -x : (x == 0.0f ? 0.0f : x); }
static float rsqrt_(float x) { return 1.0f / flex__sqrtf(x); }
static float relu_(float x) { return x > 0.0f || x != x ? x : 0.0f; } /* NaN passes */
static float recip_(float x) { return 1.0f / x; }
static float sign_(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }

typedef float (*unary_fn)(float);

static const unary_fn unary_table[FLEX_UNARY_COUNT] = {
    neg_, abs_, flex__expf, flex__logf, flex__sqrtf, rsqrt_, flex__sinf, flex__cosf,
    flex__tanhf, flex__sigmoidf, relu_, flex__floorf, flex__ceilf, flex__rintf, sign_,
    flex__erff, recip_,
};

flex_status flex_f32_unary(int32_t op, size_t n, const float *x, float *y) {
    size_t i;
    unary_fn f;
    if (!x || !y)
        return FLEX_E_NULL;
    if (op < 0 || op >= FLEX_UNARY_COUNT)
        return FLEX_E_PARAM;
    switch (op) { /* the cheap ops as loops the compiler vectorizes */
    case FLEX_UNARY_RELU:
        for (i = 0; i < n; i++)
            y[i] = relu_(x[i]);
        return FLEX_OK;
    case FLEX_UNARY_NEG:
        for (i = 0; i < n; i++)
            y[i] = -x[i];
        return FLEX_OK;
    default:
        f = unary_table[op];
        for (i = 0; i < n; i++)
            y[i] = f(x[i]);
        return FLEX_OK;
    }
}

flex_status flex_f32_clamp(size_t n, const float *x, float lo, float hi, float *y) {
    size_t i;
    if (!x || !y)
        return FLEX_E_NULL;
    if (lo != lo || hi != hi || lo > hi)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = flex__clampf(v, lo, hi);
    }
    return FLEX_OK;
}

/* Maximum / minimum propagate NaN like numpy. */
static float max_(float a, float b) { return (a != a || a > b) ? a : b; }
static float min_(float a, float b) { return (a != a || a < b) ? a : b; }

/* One innermost row: the loop body is instantiated per op and per common stride pair
 * (both contiguous, or one operand a broadcast scalar) so the compiler vectorizes it. */
#define ROW_LOOP_STRIDED(EXPR, SA, SB)                               \
    for (i = 0; i < len; i++) {                                      \
        const float u = a[i * (SA)], v = b[i * (SB)];                \
        y[i] = (EXPR);                                               \
    }
#define ROW_LOOP(EXPR)                                               \
    if (sa == 1 && sb == 1) {                                        \
        ROW_LOOP_STRIDED(EXPR, 1, 1)                                 \
    } else if (sa == 1 && sb == 0) {                                 \
        ROW_LOOP_STRIDED(EXPR, 1, 0)                                 \
    } else if (sa == 0 && sb == 1) {                                 \
        ROW_LOOP_STRIDED(EXPR, 0, 1)                                 \
    } else {                                                         \
        ROW_LOOP_STRIDED(EXPR, sa, sb)                               \
    }

FLEX_CLONES
static void binary_row(int32_t op, int32_t len, const float *a, int32_t sa, const float *b,
                       int32_t sb, float *y) {
    int32_t i;
    switch (op) {
    case FLEX_BINARY_ADD: ROW_LOOP(u + v) break;
    case FLEX_BINARY_SUB: ROW_LOOP(u - v) break;
    case FLEX_BINARY_MUL: ROW_LOOP(u * v) break;
    case FLEX_BINARY_DIV: ROW_LOOP(u / v) break;
    case FLEX_BINARY_MAXIMUM: ROW_LOOP(max_(u, v)) break;
    case FLEX_BINARY_MINIMUM: ROW_LOOP(min_(u, v)) break;
    default: ROW_LOOP_STRIDED(flex__powf(u, v), sa, sb) break;
    }
}

/* Merges adjacent axes that both operands step through as one (so rows get longer): an
 * axis folds into the next when each operand's stride of it is its stride of the next times
 * the next's size; axes of size 1 drop out. Returns the new rank (at least 1); dims and
 * strides are rewritten in place. */
static int32_t merge_axes(int32_t rank, int32_t *dims, int32_t *sa, int32_t *sb) {
    int32_t i, out = 0;
    for (i = 1; i < rank; i++) {
        if (dims[i] == 1)
            continue;
        if (dims[out] == 1) {
            /* replaced by axis i */
        } else if (sa[out] == sa[i] * dims[i] && sb[out] == sb[i] * dims[i]) {
            dims[i] *= dims[out];
        } else {
            out++;
        }
        dims[out] = dims[i];
        sa[out] = sa[i];
        sb[out] = sb[i];
    }
    return out + 1;
}

/* Checks that every index of a strided operand stays below its length. */
static flex_status check_operand(int32_t rank, const int32_t *dims, const int32_t *strides,
                                 size_t len) {
    int64_t last = 0;
    int32_t i;
    if (!strides)
        return FLEX_E_NULL;
    for (i = 0; i < rank; i++) {
        if (strides[i] < 0)
            return FLEX_E_STRIDE;
        last += (int64_t)(dims[i] - 1) * strides[i];
    }
    return (len >= 1 && (uint64_t)last < (uint64_t)len) ? FLEX_OK : FLEX_E_SIZE;
}

flex_status flex_f32_binary(int32_t op, int32_t rank, const int32_t *out_dims,
                            const float *a, size_t a_len, const int32_t *a_strides,
                            const float *b, size_t b_len, const int32_t *b_strides,
                            float *y, size_t y_len) {
    int32_t idx[FLEX_MAX_RANK], dims[FLEX_MAX_RANK], sa[FLEX_MAX_RANK], sb[FLEX_MAX_RANK];
    int32_t count = 1, i, rows, inner, r;
    if (!out_dims || !a || !b || !y)
        return FLEX_E_NULL;
    if (op < 0 || op >= FLEX_BINARY_COUNT)
        return FLEX_E_PARAM;
    if (rank < 1 || rank > FLEX_MAX_RANK)
        return FLEX_E_SHAPE;
    for (i = 0; i < rank; i++) {
        idx[i] = 0; /* a loop, not an initializer: compilers turn those into memset */
        if (out_dims[i] < 1)
            return FLEX_E_SHAPE;
        FLEX_TRY(flex__product(count, out_dims[i], &count));
    }
    FLEX_TRY(flex__check_len(y_len, count));
    FLEX_TRY(check_operand(rank, out_dims, a_strides, a_len));
    FLEX_TRY(check_operand(rank, out_dims, b_strides, b_len));
    for (i = 0; i < rank; i++) {
        dims[i] = out_dims[i];
        sa[i] = a_strides[i];
        sb[i] = b_strides[i];
    }
    rank = merge_axes(rank, dims, sa, sb);
    inner = dims[rank - 1];
    rows = count / inner;
    for (r = 0; r < rows; r++) {
        int32_t ao = 0, bo = 0;
        for (i = 0; i < rank - 1; i++) {
            ao += idx[i] * sa[i];
            bo += idx[i] * sb[i];
        }
        binary_row(op, inner, a + ao, sa[rank - 1], b + bo, sb[rank - 1], y + r * inner);
        for (i = rank - 2; i >= 0; i--) { /* odometer over the outer axes */
            if (++idx[i] < dims[i])
                break;
            idx[i] = 0;
        }
    }
    return FLEX_OK;
}

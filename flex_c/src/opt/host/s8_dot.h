/* The host int8 kernels' dot products of rows, written for the vectorizer: shared by the
 * convolution (int16 patches and weights) and the fully connected layer (int8 rows). */
#ifndef FLEX_HOST_S8_DOT_H
#define FLEX_HOST_S8_DOT_H

#include "../../common/internal.h"

/* For the rows j = j0, j0 + 4, ... while four are left of count: acc[j + r] = SUM(acc[j + r],
 * x[0:n] . row j + r), rows of element type T `stride` apart from w, the dot products in
 * int32, four rows per pass over x. Leaves j at the first row left (fewer than four). */
#define FLEX__HOST_DOT4_ROWS(T, x, w, stride, n, count, j, acc, SUM)                        \
    for (; (j) + 4 <= (count); (j) += 4) {                                                  \
        const T *restrict w0_ = (w) + (j) * (stride), *restrict w1_ = w0_ + (stride);       \
        const T *restrict w2_ = w1_ + (stride), *restrict w3_ = w2_ + (stride);             \
        int32_t s0_ = 0, s1_ = 0, s2_ = 0, s3_ = 0, i_;                                     \
        for (i_ = 0; i_ < (n); i_++) {                                                      \
            s0_ += w0_[i_] * (x)[i_];                                                       \
            s1_ += w1_[i_] * (x)[i_];                                                       \
            s2_ += w2_[i_] * (x)[i_];                                                       \
            s3_ += w3_[i_] * (x)[i_];                                                       \
        }                                                                                   \
        (acc)[j] = SUM((acc)[j], s0_);                                                      \
        (acc)[(j) + 1] = SUM((acc)[(j) + 1], s1_);                                          \
        (acc)[(j) + 2] = SUM((acc)[(j) + 2], s2_);                                          \
        (acc)[(j) + 3] = SUM((acc)[(j) + 3], s3_);                                          \
    }

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/* The lane sums of s0, s1, s2 and s3 as the four lanes of one vector. */
FLEX_INLINE v128_t flex__wasm_sums4(v128_t s0, v128_t s1, v128_t s2, v128_t s3) {
    const v128_t t01 = wasm_i32x4_add(wasm_i32x4_shuffle(s0, s1, 0, 2, 4, 6),
                                      wasm_i32x4_shuffle(s0, s1, 1, 3, 5, 7));
    const v128_t t23 = wasm_i32x4_add(wasm_i32x4_shuffle(s2, s3, 0, 2, 4, 6),
                                      wasm_i32x4_shuffle(s2, s3, 1, 3, 5, 7));
    return wasm_i32x4_add(wasm_i32x4_shuffle(t01, t23, 0, 2, 4, 6),
                          wasm_i32x4_shuffle(t01, t23, 1, 3, 5, 7));
}

/* acc[*j + r] = x[0:n] . row *j + r for the R rows from *j while R are left (R a multiple of
 * 4; int16 rows n apart from w, n a multiple of 8), one pass over x per R rows. */
#define FLEX__WASM_DOT_ROWS(R, x, w, n, count, acc, j)                                     \
    for (; *(j) + (R) <= (count); *(j) += (R)) {                                            \
        const int16_t *restrict w0_ = (w) + *(j) * (n);                                     \
        v128_t s_[R];                                                                       \
        int32_t i_, r_;                                                                     \
        for (r_ = 0; r_ < (R); r_++)                                                        \
            s_[r_] = wasm_i32x4_splat(0);                                                   \
        for (i_ = 0; i_ < (n); i_ += 8) {                                                   \
            const v128_t v_ = wasm_v128_load((x) + i_);                                     \
            for (r_ = 0; r_ < (R); r_++)                                                    \
                s_[r_] = wasm_i32x4_add(                                                    \
                    s_[r_], wasm_i32x4_dot_i16x8(wasm_v128_load(w0_ + r_ * (n) + i_), v_)); \
        }                                                                                   \
        for (r_ = 0; r_ < (R); r_ += 4)                                                     \
            wasm_v128_store((acc) + *(j) + r_,                                              \
                            flex__wasm_sums4(s_[r_], s_[r_ + 1], s_[r_ + 2], s_[r_ + 3]));  \
    }

/* wasm32 SIMD128 (opt/host's kernels compiled for wasm32): FLEX__HOST_DOT4_ROWS for int16
 * rows of a length n that is a multiple of 8, eight rows a pass, then four, by
 * i32x4.dot_i16x8_s (pairs of products added into int32 lanes, which the vectorizer does not
 * form): the same exact int32 sums. Leaves *j at the first row left (fewer than four). */
FLEX_INLINE void flex__wasm_dot4_rows_s16(const int16_t *restrict x, const int16_t *restrict w,
                                          int32_t n, int32_t count, int32_t *restrict acc,
                                          int32_t *j) {
    FLEX__WASM_DOT_ROWS(8, x, w, n, count, acc, j)
    FLEX__WASM_DOT_ROWS(4, x, w, n, count, acc, j)
}
#endif

#endif

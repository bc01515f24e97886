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

#endif

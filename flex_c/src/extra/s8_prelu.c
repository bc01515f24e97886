/* int8 PRELU, and int16 PRELU with an int8 alpha, bit-exact with TFLM's
 * BroadcastPrelu4DSlow. */
#include "../common/internal.h"

#define PRELU_MAX_SHIFT 15  /* (255 * 255) << 15 stays within int32 */
#define PRELU16_MAX_SHIFT 7 /* int16: (65535 * 255) << 7 does */

/* The checks both kernels make: buffers, alpha's length, the zero points (the input's and
 * the output's within [lowest, -lowest - 1], int8 or int16; the alpha's int8) and the
 * multipliers and shifts (the negative side's at most neg_max). */
static flex_status check(size_t n, const void *input, const int8_t *alpha, size_t alpha_len,
                         const flex_s8_prelu_params *p, const void *output, int32_t lowest,
                         int32_t neg_max) {
    if (!input || !alpha || !output || !p)
        return FLEX_E_NULL;
    if (alpha_len == 0 || n % alpha_len)
        return FLEX_E_SIZE;
    if (-p->input_offset < lowest || -p->input_offset > -lowest - 1 ||
        p->output_offset < lowest || p->output_offset > -lowest - 1)
        return FLEX_E_PARAM;
    FLEX_TRY(flex__check_zero_point(-p->alpha_offset));
    FLEX_TRY(flex__check_shift(p->pos_shift));
    FLEX_TRY(flex__check_shift(p->neg_shift));
    if (p->pos_mult < 0 || p->neg_mult < 0 || p->pos_shift > PRELU_MAX_SHIFT ||
        p->neg_shift > neg_max)
        return FLEX_E_PARAM;
    return FLEX_OK;
}

/* The kernel for elements of type T in [LO, HI], the negative side's shift at most MAX. */
#define PRELU(NAME, T, LO, HI, MAX)                                                          \
    flex_status NAME(size_t n, const T *input, const int8_t *alpha, size_t alpha_len,       \
                     const flex_s8_prelu_params *p, T *output) {                            \
        size_t i, j = 0;                                                                    \
        FLEX_TRY(check(n, input, alpha, alpha_len, p, output, LO, MAX));                    \
        for (i = 0; i < n; i++) {                                                           \
            const int32_t x = input[i] + p->input_offset;                                   \
            const int32_t v = x >= 0 ? flex__mbqm(x, p->pos_mult, p->pos_shift)             \
                                     : flex__mbqm(x * (alpha[j] + p->alpha_offset),         \
                                                  p->neg_mult, p->neg_shift);               \
            output[i] = (T)flex__clamp(v + p->output_offset, LO, HI);                       \
            if (++j == alpha_len)                                                           \
                j = 0;                                                                      \
        }                                                                                   \
        return FLEX_OK;                                                                     \
    }

PRELU(flex_s16_prelu, int16_t, -32768, 32767, PRELU16_MAX_SHIFT)
PRELU(flex_s8_prelu, int8_t, -128, 127, PRELU_MAX_SHIFT)

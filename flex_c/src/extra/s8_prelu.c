/* int8 PRELU, bit-exact with TFLM's BroadcastPrelu4DSlow. */
#include "../common/internal.h"

#define PRELU_MAX_SHIFT 15 /* (255 * 255) << 15 stays within int32 */

flex_status flex_s8_prelu(size_t n, const int8_t *input, const int8_t *alpha, size_t alpha_len,
                          const flex_s8_prelu_params *p, int8_t *output) {
    size_t i, j = 0;
    if (!input || !alpha || !output || !p)
        return FLEX_E_NULL;
    if (alpha_len == 0 || n % alpha_len)
        return FLEX_E_SIZE;
    FLEX_TRY(flex__check_zero_point(-p->input_offset));
    FLEX_TRY(flex__check_zero_point(-p->alpha_offset));
    FLEX_TRY(flex__check_zero_point(p->output_offset));
    FLEX_TRY(flex__check_shift(p->pos_shift));
    FLEX_TRY(flex__check_shift(p->neg_shift));
    if (p->pos_mult < 0 || p->neg_mult < 0 || p->pos_shift > PRELU_MAX_SHIFT ||
        p->neg_shift > PRELU_MAX_SHIFT)
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        const int32_t x = input[i] + p->input_offset;
        int32_t v;
        if (x >= 0)
            v = flex__mbqm(x, p->pos_mult, p->pos_shift);
        else
            v = flex__mbqm(x * (alpha[j] + p->alpha_offset), p->neg_mult, p->neg_shift);
        output[i] = (int8_t)flex__clamp(v + p->output_offset, -128, 127);
        if (++j == alpha_len)
            j = 0;
    }
    return FLEX_OK;
}

/* int16 LEAKY_RELU, bit-exact with TFLM's reference QuantizeLeakyRelu. */
#include "../common/internal.h"

#define LEAKY_MAX_SHIFT 14 /* 65535 << 14 stays within int32 */

static int bad_shift(int32_t shift) {
    return shift < -31 || shift > LEAKY_MAX_SHIFT;
}

flex_status flex_s16_leaky_relu(size_t n, const int16_t *input, int32_t input_zero_point,
                                int32_t output_zero_point, int32_t identity_multiplier,
                                int32_t identity_shift, int32_t alpha_multiplier,
                                int32_t alpha_shift, int16_t *output) {
    size_t i;
    if (!input || !output)
        return FLEX_E_NULL;
    if (input_zero_point < -32768 || input_zero_point > 32767 || output_zero_point < -32768 ||
        output_zero_point > 32767 || identity_multiplier < 0 || bad_shift(identity_shift) ||
        bad_shift(alpha_shift))
        return FLEX_E_PARAM;
    for (i = 0; i < n; i++) {
        const int32_t x = input[i] - input_zero_point;
        const int32_t y = x >= 0 ? flex__mbqm(x, identity_multiplier, identity_shift)
                                 : flex__mbqm(x, alpha_multiplier, alpha_shift);
        output[i] = (int16_t)flex__clamp(output_zero_point + y, -32768, 32767);
    }
    return FLEX_OK;
}

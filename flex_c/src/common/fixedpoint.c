/* TFLM / gemmlowp fixed-point arithmetic, written to give the same bits as TFLM's reference
 * kernels. Names follow gemmlowp: raw int32 values with a stated number of integer bits. */
#include "internal.h"

/* SaturatingRoundingDoublingHighMul: (a * b * 2) >> 32, rounded, saturating INT32_MIN^2.
 * TFLM computes the 64-bit product and divides (ab + nudge) by 2^31, truncating. */
#if defined(__ARM_ARCH_6M__)
/* ARMv6-M has no 32x32->64 multiply: the helper call and the 64-bit division cost more than
 * the whole requantization, so build the magnitude of the product from 16-bit halves. */
int32_t flex__srdhm(int32_t a, int32_t b) {
    const uint32_t ua = a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
    const uint32_t ub = b < 0 ? 0u - (uint32_t)b : (uint32_t)b;
    const int negative = (a < 0) != (b < 0) && a != 0 && b != 0;
    const uint32_t al = ua & 0xFFFFu, ah = ua >> 16, bl = ub & 0xFFFFu, bh = ub >> 16;
    const uint32_t ll = al * bl, lh = al * bh, hl = ah * bl;
    const uint32_t mid = lh + hl;
    uint32_t lo = ll + (mid << 16);
    uint32_t hi = ah * bh + (mid >> 16) + ((uint32_t)(mid < lh) << 16) + (uint32_t)(lo < ll);
    /* |result| = (|ab| + nudge') >> 31, nudge' = 2^30 (positive) or 2^30 - 1 (negative) */
    const uint32_t lo2 = lo + (negative ? 0x3FFFFFFFu : 0x40000000u);
    uint32_t m;
    if (a == b && a == INT32_MIN)
        return INT32_MAX;
    hi += (uint32_t)(lo2 < lo);
    m = (hi << 1) | (lo2 >> 31);
    return negative ? (int32_t)(0u - m) : (int32_t)m;
}
#else
int32_t flex__srdhm(int32_t a, int32_t b) {
    int64_t ab, nudge;
    if (a == b && a == INT32_MIN)
        return INT32_MAX;
    ab = (int64_t)a * (int64_t)b;
    nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}
#endif

/* RoundingDivideByPOT: x / 2^exponent rounded half away from zero; exponent in [0, 31]. */
int32_t flex__rdbpot(int32_t x, int32_t exponent) {
    int32_t mask = (int32_t)(((uint32_t)1 << exponent) - 1u);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* MultiplyByQuantizedMultiplier (TFLM's double-rounding form); shift in [-31, 31]. */
int32_t flex__mbqm(int32_t x, int32_t multiplier, int32_t shift) {
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = shift > 0 ? 0 : -shift;
    return flex__rdbpot(flex__srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

int32_t flex__clz(uint32_t x) {
    int32_t n = 0;
    if (x == 0)
        return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* exp(a) for a in [-1/4, 0), 0 integer bits in and out. */
static int32_t exp_on_interval(int32_t a) {
    const int32_t constant_term = 1895147668; /* exp(-1/8) */
    const int32_t one_third = 715827883;
    int32_t x = FLEX_WADD(a, 1 << 28);
    int32_t x2 = flex__srdhm(x, x);
    int32_t x3 = flex__srdhm(x2, x);
    int32_t x4 = flex__srdhm(x2, x2);
    int32_t x4_over_4 = flex__rdbpot(x4, 2);
    int32_t poly = flex__rdbpot(
        FLEX_WADD(flex__srdhm(FLEX_WADD(x4_over_4, x3), one_third), x2), 1);
    return FLEX_WADD(constant_term, flex__srdhm(constant_term, FLEX_WADD(x, poly)));
}

/* gemmlowp exp_on_negative_values for an input with integer_bits in [1, 5]. */
int32_t flex__exp_on_negative_values(int32_t a, int32_t integer_bits) {
    static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308,
                                           39332535,   720401,     242};
    int32_t frac = 31 - integer_bits;
    int32_t quarter = (int32_t)1 << (frac - 2);
    int32_t a_mod = FLEX_WSUB(a & (quarter - 1), quarter);
    int32_t result = exp_on_interval(flex__sat_shl(a_mod, integer_bits));
    int32_t remainder = FLEX_WSUB(a_mod, a);
    int32_t e;
    for (e = -2; e <= 4; e++) {
        if (integer_bits > e && (remainder & ((int32_t)1 << (frac + e))))
            result = flex__srdhm(result, multipliers[e + 2]);
    }
    if (integer_bits > 5 && a < -((int32_t)1 << (36 - integer_bits)))
        result = 0;
    return a == 0 ? INT32_MAX : result;
}

static int32_t rounding_half_sum(int32_t a, int32_t b) {
    int64_t sum = (int64_t)a + (int64_t)b;
    int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2);
}

/* Newton-Raphson 1 / (2 * half_denominator), 2 integer bits, as gemmlowp. */
static int32_t newton_reciprocal(int32_t half_denominator) {
    const int32_t c48_over_17 = 1515870810;
    const int32_t cneg32_over_17 = -1010580540;
    int32_t x = FLEX_WADD(c48_over_17, flex__srdhm(half_denominator, cneg32_over_17));
    int32_t i;
    for (i = 0; i < 3; i++) {
        int32_t one_minus = FLEX_WSUB(1 << 29, flex__srdhm(half_denominator, x));
        x = FLEX_WADD(x, flex__sat_shl(flex__srdhm(x, one_minus), 2));
    }
    return x;
}

/* 1 / (1 + a) for a in [0, 1), 0 integer bits. */
int32_t flex__one_over_one_plus_x(int32_t a) {
    return flex__sat_shl(newton_reciprocal(rounding_half_sum(a, INT32_MAX)), 1);
}

/* (1 - a) / (1 + a) for a in [0, 1), 0 integer bits. */
static int32_t one_minus_x_over_one_plus_x(int32_t a) {
    return flex__sat_shl(
        FLEX_WSUB(newton_reciprocal(rounding_half_sum(a, INT32_MAX)), 1 << 29), 2);
}

/* gemmlowp logistic: input 4 integer bits, output 0 integer bits. */
int32_t flex__logistic_q4(int32_t a) {
    int32_t abs_a, positive;
    if (a == 0)
        return 1 << 30;
    abs_a = a > 0 ? a : FLEX_WSUB(0, a);
    positive = flex__one_over_one_plus_x(flex__exp_on_negative_values(FLEX_WSUB(0, abs_a), 4));
    return a > 0 ? positive : FLEX_WSUB(INT32_MAX, positive);
}

/* gemmlowp tanh: input 4 integer bits, output 0 integer bits. */
int32_t flex__tanh_q4(int32_t a) {
    int32_t neg, t;
    if (a == 0)
        return 0;
    neg = a < 0 ? a : FLEX_WSUB(0, a);
    /* ExactMulByPot<1>: the same raw value read with 5 integer bits, i.e. exp(2 * neg). */
    t = one_minus_x_over_one_plus_x(flex__exp_on_negative_values(neg, 5));
    return a < 0 ? FLEX_WSUB(0, t) : t;
}

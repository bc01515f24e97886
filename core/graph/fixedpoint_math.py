"""gemmlowp's fixed-point exp, 1/(1+x), logistic and tanh on raw int32 values, as TFLM's
int8 softmax, logistic and tanh kernels use them.

A value with `ib` integer bits is the raw int32 r meaning r / 2**(31 - ib).
"""

from .fixedpoint import INT32_MAX, INT32_MIN
from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _mul

# exp(-2**e) in Q0.31 for e = -2 .. 4 (gemmlowp's barrel shifter constants).
_EXP_STEPS = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
              (2, 39332535), (3, 720401), (4, 242))


def saturating_mul_pot(x, exponent):
    """gemmlowp SaturatingRoundingMultiplyByPOT: x * 2**exponent, saturating / rounding."""
    if exponent > 0:
        threshold = (1 << (31 - exponent)) - 1
        if x > threshold:
            return INT32_MAX
        if x < -threshold:
            return INT32_MIN
        return x << exponent
    if exponent < 0:
        return _rdbp(x, -exponent)
    return x


def _exp_on_quarter_interval(a):
    # exp(a) for a in [-1/4, 0), Q0.31: Taylor series around -1/8.
    x = a + (1 << 28)
    x2 = _mul(x, x)
    x3 = _mul(x2, x)
    x4 = _mul(x2, x2)
    tail = _rdbp(_mul(_rdbp(x4, 2) + x3, 715827883) + x2, 1)
    return 1895147668 + _mul(1895147668, x + tail)


def exp_on_negative_values(a, ib):
    """exp(a) for a <= 0 with `ib` integer bits; result in Q0.31."""
    fb = 31 - ib
    quarter = 1 << (fb - 2)
    a_mod = (a & (quarter - 1)) - quarter
    result = _exp_on_quarter_interval(saturating_mul_pot(a_mod, ib))
    remainder = a_mod - a
    for exponent, mult in _EXP_STEPS:
        if ib > exponent and remainder & (1 << (fb + exponent)):
            result = _mul(result, mult)
    if ib > 5 and a < -(1 << (36 - ib)):
        result = 0
    if a == 0:
        result = INT32_MAX
    return result


def _rounding_half_sum(a, b):
    s = a + b
    s = s + 1 if s >= 0 else s - 1
    return s // 2 if s >= 0 else -((-s) // 2)


def _newton_reciprocal(a):
    # x ~= 1 / ((1 + a) / 2) in Q2.29, three Newton-Raphson steps (gemmlowp's 48/17, 32/17).
    half_denominator = _rounding_half_sum(a, INT32_MAX)
    x = 1515870810 + _mul(half_denominator, -1010580540)
    for _ in range(3):
        one_minus = (1 << 29) - _mul(half_denominator, x)
        x = x + saturating_mul_pot(_mul(x, one_minus), 2)
    return x


def one_over_one_plus_x_for_x_in_0_1(a):
    """1 / (1 + a) for a in [0, 1), Q0.31 in and out."""
    return saturating_mul_pot(_newton_reciprocal(a), 1)


def one_minus_x_over_one_plus_x_for_x_in_0_1(a):
    """(1 - a) / (1 + a) for a in [0, 1), Q0.31 in and out."""
    return saturating_mul_pot(_newton_reciprocal(a) - (1 << 29), 2)


def logistic(a, ib):
    """gemmlowp logistic of a value with `ib` integer bits; result in Q0.31."""
    if a == 0:
        return 1 << 30
    positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(-abs(a), ib))
    return positive if a > 0 else INT32_MAX - positive


def tanh(a, ib):
    """gemmlowp tanh of a value with `ib` integer bits; result in Q0.31."""
    if a == 0:
        return 0
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(-abs(a), ib + 1))
    return -t if a < 0 else t


def count_leading_zeros32(x):
    """Leading zero bits of a non-negative int32."""
    n = 32
    while x:
        x >>= 1
        n -= 1
    return n

/* float32 math without libc. Accuracy is a few ulp over the ranges a network meets; the
 * host tests compare every function with numpy/torch. */
#include "internal.h"

typedef union {
    float f;
    uint32_t u;
} fbits;

static float from_bits(uint32_t u) {
    fbits b;
    b.u = u;
    return b.f;
}

static uint32_t to_bits(float f) {
    fbits b;
    b.f = f;
    return b.u;
}

float flex__inff(void) {
    return from_bits(0x7f800000u);
}

float flex__nanf(void) {
    return from_bits(0x7fc00000u);
}

static float fabs_(float x) {
    return from_bits(to_bits(x) & 0x7fffffffu);
}

/* x * 2^k for k in [-252, 254]. */
static float scale2(float x, int32_t k) {
    while (k > 127) {
        x *= from_bits(0x7f000000u); /* 2^127 */
        k -= 127;
    }
    while (k < -126) {
        x *= from_bits(0x00800000u); /* 2^-126 */
        k += 126;
    }
    return x * from_bits((uint32_t)(k + 127) << 23);
}

float flex__truncf(float x) {
    if (!(fabs_(x) < 8388608.0f)) /* already integral, inf or nan */
        return x;
    return (float)(int32_t)x;
}

float flex__floorf(float x) {
    float t = flex__truncf(x);
    return t > x ? t - 1.0f : t;
}

float flex__ceilf(float x) {
    float t = flex__truncf(x);
    return t < x ? t + 1.0f : t;
}

float flex__roundf(float x) {
    float t = flex__truncf(x);
    float d = x - t;
    if (d >= 0.5f)
        return t + 1.0f;
    if (d <= -0.5f)
        return t - 1.0f;
    return t;
}

float flex__rintf(float x) {
    float t = flex__truncf(x);
    float d = fabs_(x - t);
    float step = x < 0.0f ? -1.0f : 1.0f;
    if (d > 0.5f)
        return t + step;
    if (d == 0.5f && (int32_t)flex__truncf(t * 0.5f) * 2 != (int32_t)t)
        return t + step;
    return t;
}

float flex__expf(float x) {
    const float ln2_hi = 0.693145751953125f, ln2_lo = 1.428606765330187e-06f;
    float k, r, p;
    if (x != x)
        return x;
    if (x > 88.72283935546875f)
        return flex__inff();
    if (x < -103.972084045410f)
        return 0.0f;
    k = flex__roundf(x * 1.44269504088896341f);
    r = (x - k * ln2_hi) - k * ln2_lo;
    p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
        r * (1.0f / 720 + r * (1.0f / 5040 + r * (1.0f / 40320))))))));
    return scale2(p, (int32_t)k);
}

float flex__expm1f(float x) {
    if (fabs_(x) < 0.35f)
        return x * (1.0f + x * (0.5f + x * (1.0f / 6 + x * (1.0f / 24 + x * (1.0f / 120 +
               x * (1.0f / 720 + x * (1.0f / 5040 + x * (1.0f / 40320))))))));
    return flex__expf(x) - 1.0f;
}

float flex__logf(float x) {
    const float ln2_hi = 0.693145751953125f, ln2_lo = 1.428606765330187e-06f;
    uint32_t u;
    int32_t e = 0;
    float m, f, s, s2, k;
    if (x != x || x < 0.0f)
        return flex__nanf();
    if (x == 0.0f)
        return -flex__inff();
    if (x == flex__inff())
        return x;
    if (x < 1.17549435e-38f) { /* subnormal */
        x *= 8388608.0f;
        e = -23;
    }
    u = to_bits(x);
    e += (int32_t)(u >> 23) - 127;
    m = from_bits((u & 0x007fffffu) | 0x3f800000u);
    if (m > 1.41421356f) {
        m *= 0.5f;
        e += 1;
    }
    f = m - 1.0f;
    s = f / (2.0f + f);
    s2 = s * s;
    k = (float)e;
    f = 2.0f * s * (1.0f + s2 * (1.0f / 3 + s2 * (1.0f / 5 + s2 * (1.0f / 7 + s2 * (1.0f / 9 +
        s2 * (1.0f / 11))))));
    return k * ln2_hi + (f + k * ln2_lo);
}

float flex__sqrtf(float x) {
#if defined(__x86_64__) || defined(__aarch64__) || defined(__wasm__) || \
    (defined(__ARM_FP) && (__ARM_FP & 4))
    return __builtin_sqrtf(x);
#else
    float y;
    int32_t i, k = 0;
    if (x != x || x < 0.0f)
        return flex__nanf();
    if (x == 0.0f || x == flex__inff())
        return x;
    if (x < 1.17549435e-38f) {
        x *= 16777216.0f; /* 2^24, undone by 2^-12 below */
        k = -12;
    }
    y = from_bits((to_bits(x) >> 1) + 0x1fc00000u);
    for (i = 0; i < 4; i++)
        y = 0.5f * (y + x / y);
    return scale2(y, k);
#endif
}

/* Reduce x to r in [-pi/4, pi/4] with x = q * pi/2 + r; returns q mod 4. */
static int32_t reduce_pio2(float x, float *r) {
    float q = flex__rintf(x * 0.636619772367581343f);
    *r = ((x - q * 1.5703125f) - q * 4.83751296997070312e-04f) - q * 7.54978995489188216e-08f;
    return (int32_t)(q - 4.0f * flex__floorf(q * 0.25f));
}

static float sin_poly(float r) {
    float r2 = r * r;
    return r + r * r2 * (-1.0f / 6 + r2 * (1.0f / 120 + r2 * (-1.0f / 5040 + r2 *
           (1.0f / 362880))));
}

static float cos_poly(float r) {
    float r2 = r * r;
    return 1.0f + r2 * (-0.5f + r2 * (1.0f / 24 + r2 * (-1.0f / 720 + r2 * (1.0f / 40320))));
}

/* sin(x + quarter * pi/2): the quadrant of x shifted by `quarter` picks the polynomial. */
static float sin_quadrant(float x, int32_t quarter) {
    float r;
    if (x != x || fabs_(x) == flex__inff())
        return flex__nanf();
    switch ((reduce_pio2(x, &r) + quarter) & 3) {
    case 0: return sin_poly(r);
    case 1: return cos_poly(r);
    case 2: return -sin_poly(r);
    default: return -cos_poly(r);
    }
}

float flex__sinf(float x) {
    return sin_quadrant(x, 0);
}

float flex__cosf(float x) {
    return sin_quadrant(x, 1);
}

float flex__tanhf(float x) {
    float ax = fabs_(x), t;
    if (x != x)
        return x;
    if (ax > 9.0f)
        t = 1.0f;
    else {
        float em = flex__expm1f(2.0f * ax);
        t = em / (em + 2.0f);
    }
    return x < 0.0f ? -t : t;
}

float flex__sigmoidf(float x) {
    float e;
    if (x >= 0.0f)
        return 1.0f / (1.0f + flex__expf(-x));
    e = flex__expf(x);
    return e / (1.0f + e);
}

float flex__erff(float x) {
    float ax = fabs_(x), r;
    if (x != x)
        return x;
    if (ax < 0.5f) {
        float x2 = x * x;
        return 1.12837916709551257f * x * (1.0f + x2 * (-1.0f / 3 + x2 * (0.1f + x2 *
               (-1.0f / 42 + x2 * (1.0f / 216 + x2 * (-1.0f / 1320))))));
    }
    if (ax >= 4.0f)
        r = 1.0f;
    else {
        /* Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7). */
        float t = 1.0f / (1.0f + 0.3275911f * ax);
        float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t *
                     (-1.453152027f + t * 1.061405429f))));
        r = 1.0f - poly * flex__expf(-ax * ax);
    }
    return x < 0.0f ? -r : r;
}

/* Integral power by repeated squaring (exact for small integer exponents like numpy). */
static float powi(float a, int32_t n) {
    float result = 1.0f;
    int32_t m = n < 0 ? -n : n;
    while (m) {
        if (m & 1)
            result *= a;
        a *= a;
        m >>= 1;
    }
    return n < 0 ? 1.0f / result : result;
}

float flex__powf(float a, float b) {
    float tb;
    int32_t is_int;
    if (b == 0.0f || a == 1.0f)
        return 1.0f;
    if (a != a || b != b)
        return flex__nanf();
    tb = flex__truncf(b);
    is_int = tb == b;
    if (is_int && fabs_(b) <= 64.0f)
        return powi(a, (int32_t)b);
    if (a == 0.0f)
        return b > 0.0f ? 0.0f : flex__inff();
    if (a < 0.0f) {
        float mag;
        if (!is_int) /* IEEE: (-inf) ** y is inf for y > 0, 0 for y < 0 */
            return a == -flex__inff() ? (b > 0.0f ? flex__inff() : 0.0f) : flex__nanf();
        mag = flex__expf(b * flex__logf(-a));
        /* |b| > 64 here: odd exactly when b / 2 is not integral */
        return flex__truncf(b * 0.5f) * 2.0f != b ? -mag : mag;
    }
    return flex__expf(b * flex__logf(a));
}

flex_status flex__f32_act_range(int32_t act, float *lo, float *hi) {
    if (act == FLEX_ACT_NONE || act == FLEX_ACT_RELU) {
        *lo = act == FLEX_ACT_RELU ? 0.0f : -flex__inff();
        *hi = flex__inff();
    } else if (act == FLEX_ACT_RELU_N1_TO_1) {
        *lo = -1.0f;
        *hi = 1.0f;
    } else if (act == FLEX_ACT_RELU6) {
        *lo = 0.0f;
        *hi = 6.0f;
    } else {
        return FLEX_E_PARAM;
    }
    return FLEX_OK;
}

/* float32 optimizer steps over a flat parameter buffer. */
#include "../common/internal.h"

/* sqrt inlined where the target has an instruction for it, so the step loop vectorizes. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define SQRTF(x) __builtin_sqrtf(x)
#else
#define SQRTF(x) flex__sqrtf(x)
#endif

/* Adam with the bias corrections folded into the step size and the square root's scale
 * (PyTorch's arrangement): one division and one square root per element. */
FLEX_CLONES
static void adam_loop(size_t n, const float *param, const float *grad, float *m, float *v,
                      float step, float beta1, float beta2, float root2, float eps,
                      float decay, float shrink, float *out) {
    size_t i;
    for (i = 0; i < n; i++) {
        const float g = decay != 0.0f ? grad[i] + decay * param[i] : grad[i];
        const float mi = beta1 * m[i] + (1.0f - beta1) * g;
        const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        out[i] = param[i] * shrink - step * mi / (SQRTF(vi) * root2 + eps);
    }
}

flex_status flex_f32_adam(size_t n, const float *param, const float *grad, float *m, float *v,
                          float lr, float beta1, float beta2, float eps, float weight_decay,
                          int32_t decoupled, float bias1, float bias2, float *out) {
    float step, root2;
    if (!param || !grad || !m || !v || !out)
        return FLEX_E_NULL;
    if ((decoupled != 0 && decoupled != 1) || !(bias1 > 0.0f) || !(bias2 > 0.0f))
        return FLEX_E_PARAM;
    step = lr / bias1;
    root2 = 1.0f / flex__sqrtf(bias2);
    if (decoupled)
        adam_loop(n, param, grad, m, v, step, beta1, beta2, root2, eps, 0.0f,
                  1.0f - lr * weight_decay, out);
    else
        adam_loop(n, param, grad, m, v, step, beta1, beta2, root2, eps, weight_decay, 1.0f,
                  out);
    return FLEX_OK;
}

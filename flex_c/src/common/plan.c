/* flex_plan_run: a whole int8 model as one call over pre-converted steps (flex.h). Each
 * step's words hold the kernel's parameters as the caller would pass them, so a step is one
 * kernel call with its arguments read in place; the kernels check them as always. */
#include "split.h"

#define MAX_PTRS 6

/* Word and pointer counts of each op's step. */
static const uint8_t step_words[FLEX_OP_COUNT] = {0, 28, 28, 13, 27, 22, 22, 22, 9, 7, 5, 5,
                                                  5, 7, 6, 1};
static const uint8_t step_ptrs[FLEX_OP_COUNT] = {0, 6, 6, 6, 3, 3, 2, 2, 2, 2, 2, 2,
                                                 2, 4, 2, 2};

/* A build may keep only some steps (a firmware made for given models): with FLEX_PLAN_ONLY
 * defined, the step of a kernel is compiled in when FLEX_PLAN_<kernel> is defined as 1,
 * with burn.graph's kernel names (conv_s8, pad_s8 or pad, ...); a left-out step fails with
 * FLEX_E_PARAM, like an unknown op, and its kernel is not linked. */
#ifdef FLEX_PLAN_ONLY
#define HAS(kernel) FLEX_PLAN_##kernel
#else
#define HAS(kernel) 1
#endif

#define D4(k) ((const flex_dims4 *)(w + (k)))
#define WIN(k) ((const flex_window *)(w + (k)))
#define Q(k) ((const flex_s8_quant *)(w + (k)))
#define N(k) ((size_t)(uint32_t)w[k])
/* the arguments of the conv-like and pool steps */
#define CONV_ARGS                                                                              \
    D4(0), p[0], N(4), p[1], N(5), p[2], N(6), p[3], p[4], N(7), WIN(8), w[18], Q(19), D4(23), \
        p[5], N(27)
#define POOL_ARGS D4(0), p[0], N(4), WIN(5), w[15], w[16], D4(17), p[1], N(21)

static flex_status copy_bytes(int32_t bytes, const void *src, void *dst) {
    const unsigned char *s = (const unsigned char *)src;
    unsigned char *d = (unsigned char *)dst;
    int32_t i;
    if (bytes < 0)
        return FLEX_E_SIZE;
    if (bytes && (!s || !d))
        return FLEX_E_NULL;
    if (d < s) {
        for (i = 0; i < bytes; i++)
            d[i] = s[i];
    } else if (d > s) {
        for (i = bytes; i-- > 0;)
            d[i] = s[i];
    }
    return FLEX_OK;
}

/* One step: op, its argument words w and resolved pointers p. */
static flex_status run_step(int32_t op, const int32_t *w, void *const *p,
                            void *const *buffers, size_t n_buffers) {
    switch (op) {
#if HAS(conv_s8)
    case FLEX_OP_S8_CONV2D:
        return flex_s8_conv2d(CONV_ARGS);
#endif
#if HAS(depthwise_conv_s8)
    case FLEX_OP_S8_DEPTHWISE_CONV2D:
        return flex_s8_depthwise_conv2d(CONV_ARGS);
#endif
#if HAS(fully_connected_s8)
    case FLEX_OP_S8_FULLY_CONNECTED:
        return flex_s8_fully_connected(w[0], w[1], w[2], p[0], N(3), p[1], N(4), w[5], p[2],
                                       N(6), p[3], p[4], N(7), Q(8), p[5], N(12));
#endif
#if HAS(add_s8)
    case FLEX_OP_S8_ADD:
        return flex_s8_add(D4(0), p[0], N(4), D4(5), p[1], N(9),
                           (const flex_s8_add_params *)(w + 10), D4(22), p[2], N(26));
#endif
#if HAS(mul_s8)
    case FLEX_OP_S8_MUL:
        return flex_s8_mul(D4(0), p[0], N(4), D4(5), p[1], N(9),
                           (const flex_s8_mul_params *)(w + 10), D4(17), p[2], N(21));
#endif
#if HAS(avg_pool_s8)
    case FLEX_OP_S8_AVG_POOL2D:
        return flex_s8_avg_pool2d(POOL_ARGS);
#endif
#if HAS(max_pool_s8)
    case FLEX_OP_S8_MAX_POOL2D:
        return flex_s8_max_pool2d(POOL_ARGS);
#endif
#if HAS(mean_s8)
    case FLEX_OP_S8_MEAN:
        return flex_s8_mean(w[0], w[1], w[2], p[0], N(3), w[4], w[5], w[6], w[7], p[1], N(8));
#endif
#if HAS(softmax_s8)
    case FLEX_OP_S8_SOFTMAX:
        return flex_s8_softmax(w[0], w[1], p[0], N(2), w[3], w[4], w[5], p[1], N(6));
#endif
#if HAS(logistic_s8)
    case FLEX_OP_S8_LOGISTIC:
        return flex_s8_logistic(N(0), p[0], w[1], w[2], w[3], w[4], p[1]);
#endif
#if HAS(tanh_s8)
    case FLEX_OP_S8_TANH:
        return flex_s8_tanh(N(0), p[0], w[1], w[2], w[3], w[4], p[1]);
#endif
#if HAS(requantize_s8)
    case FLEX_OP_S8_REQUANTIZE:
        return flex_s8_requantize(N(0), p[0], w[1], w[2], w[3], w[4], p[1]);
#endif
#if HAS(pad_s8) || HAS(pad)
    case FLEX_OP_PAD:
        return flex_pad(w[0], D4(1), p[0], N(5), p[1], p[2], p[3], N(6));
#endif
#if HAS(concat_s8) || HAS(concat)
    case FLEX_OP_CONCAT:
        if (w[1] < 0 || w[2] < 0 || (size_t)w[2] > n_buffers ||
            (size_t)w[1] > n_buffers - (size_t)w[2])
            return FLEX_E_PARAM;
        return flex_concat(w[0], w[1], (const void *const *)(buffers + w[2]), p[0], w[3],
                           w[4], p[1], N(5));
#endif
    case FLEX_OP_COPY:
        return copy_bytes(w[0], p[0], p[1]);
    default: /* a step this build left out (the op was range-checked) */
        return FLEX_E_PARAM;
    }
}

flex_status flex_job_run(const flex_job *job) {
    int32_t k;
    for (k = 0; k < job->n_calls; k++)
        FLEX_TRY(run_step(job->op, job->words[k], job->ptrs[k], NULL, 0));
    return FLEX_OK;
}

static void note(const flex_cores *c, int32_t index, const int32_t *rec) {
    int32_t k;
    if (c->record && (size_t)(index + 1) * FLEX_SPLIT_WORDS <= c->record_len)
        for (k = 0; k < FLEX_SPLIT_WORDS; k++)
            c->record[index * FLEX_SPLIT_WORDS + k] = rec[k];
}

/* Step `index` with the second core taking its part where the step splits. */
static flex_status run_shared(int32_t op, const int32_t *w, void *const *p,
                              void *const *buffers, size_t n_buffers, const flex_cores *c,
                              int32_t index) {
    flex__split s;
    int32_t rec[FLEX_SPLIT_WORDS], k;
    flex_status status, theirs;
    if (!flex__split_step(op, w, p, c, &s, rec) || !c->start(c->ctx, &s.job)) {
        if (rec[0] != FLEX_SPLIT_NONE) { /* split, but the other core did not take it */
            rec[0] = FLEX_SPLIT_NONE;
            rec[1] = FLEX_WHOLE_BUSY;
            rec[2] = rec[3] = 0;
        }
        note(c, index, rec);
        return run_step(op, w, p, buffers, n_buffers);
    }
    note(c, index, rec);
    status = run_step(op, s.words, s.ptrs, buffers, n_buffers);
    theirs = c->finish(c->ctx);
    if (status == FLEX_OK)
        status = theirs;
    if (status == FLEX_OK)
        for (k = 0; k < s.head_bytes; k++)
            s.head_dst[k] = c->spare[k];
    return status;
}

flex_status flex_plan_run(const int32_t *plan, size_t plan_len, void *const *buffers,
                          size_t n_buffers, int32_t *failed) {
    return flex_plan_run_on(plan, plan_len, buffers, n_buffers, failed, NULL);
}

flex_status flex_plan_run_on(const int32_t *plan, size_t plan_len, void *const *buffers,
                             size_t n_buffers, int32_t *failed, const flex_cores *cores) {
    size_t at = 0;
    int32_t index = 0;
    if (!plan || (n_buffers && !buffers))
        return FLEX_E_NULL;
    for (; at < plan_len; index++) {
        void *p[MAX_PTRS];
        const int32_t *step = plan + at;
        flex_status status = FLEX_E_PARAM;
        int32_t op, k;
        if (plan_len - at >= 3) {
            op = step[0];
            if (op > 0 && op < FLEX_OP_COUNT && step[1] == step_words[op] &&
                step[2] == step_ptrs[op] && plan_len - at - 3 >= (size_t)(step[1] + step[2])) {
                const int32_t *ptr_index = step + 3 + step[1];
                status = FLEX_OK;
                for (k = 0; k < step[2]; k++) {
                    const int32_t i = ptr_index[k];
                    if (i < -1 || (i >= 0 && (size_t)i >= n_buffers))
                        status = FLEX_E_PARAM;
                    else
                        p[k] = i < 0 ? NULL : buffers[i];
                }
                if (status == FLEX_OK && cores && cores->stop && cores->stop(cores->ctx))
                    status = FLEX_E_STOPPED;
                else if (status == FLEX_OK && cores)
                    status = run_shared(op, step + 3, p, buffers, n_buffers, cores, index);
                else if (status == FLEX_OK)
                    status = run_step(op, step + 3, p, buffers, n_buffers);
                at += 3 + (size_t)(step[1] + step[2]);
            }
        }
        if (status != FLEX_OK) {
            if (failed)
                *failed = index;
            return status;
        }
    }
    return FLEX_OK;
}

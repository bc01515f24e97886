/* Validated plans (flex.h, flex_fast_*), host builds only: a plan's checks made once.
 *
 * Why a run may skip them: it reads only this file's own copies, which flex_fast_plan_new
 * made and checked and whose address it hands out only inside an opaque handle, so nothing
 * the caller changes later (the plan's words, its pointer table) alters what a step reads
 * or writes. A fully connected step passed flex__s8_fc_check with the very arguments it
 * keeps, and the kernel's memory accesses depend on those arguments alone, never on the
 * data. A copy step's count was checked non-negative and its pointers non-NULL, as
 * flex_plan_run checks them (there, too, the plan's maker vouches for the buffers' lengths).
 * Every other step runs through flex_plan_run, which checks it on each run. */
#include <stdlib.h>
#include <string.h>

#include "../../ref/ref.h"
#include "s8_fc.h"

enum { STEP_FC, STEP_COPY, STEP_CHECKED };

typedef struct {
    int32_t batches, in_f, out_f, filter_offset, per_channel;
    const int8_t *input, *filter;
    const int32_t *bias, *multiplier, *shift;
    flex_s8_quant q;
    int8_t *output;
} fc_step;

typedef struct {
    int32_t kind;
    union {
        fc_step fc;
        struct {
            size_t bytes;
            const void *src;
            void *dst;
        } copy;
        struct {
            size_t at, len; /* the step's words in flex_fast_plan.words */
        } checked;
    } u;
} fast_step;

struct flex_fast_plan {
    void *input;
    size_t input_len;
    const void *bound;
    fast_step *steps;
    size_t n_steps;
    int32_t *words;
    void **buffers;
    size_t n_buffers;
    int32_t failed;
};

/* The n pointers of a step from its indices into buffers (-1: NULL). */
static flex_status resolve(const int32_t *index, int32_t n, void *const *buffers,
                           size_t n_buffers, void **p) {
    int32_t k;
    for (k = 0; k < n; k++) {
        if (index[k] < -1 || (index[k] >= 0 && (size_t)index[k] >= n_buffers))
            return FLEX_E_PARAM;
        p[k] = index[k] < 0 ? NULL : buffers[index[k]];
    }
    return FLEX_OK;
}

#define N(k) ((size_t)(uint32_t)w[k])

/* The fast form of the well-formed step at plan[at], checked as its kernel checks it. */
static flex_status decode(const int32_t *plan, size_t at, void *const *buffers,
                          size_t n_buffers, fast_step *out) {
    const int32_t *step = plan + at, *w = step + 3, *index = w + step[1];
    void *p[6];
    if (step[0] == FLEX_OP_S8_FULLY_CONNECTED && step[1] == 13 && step[2] == 6) {
        fc_step *fc = &out->u.fc;
        FLEX_TRY(resolve(index, 6, buffers, n_buffers, p));
        FLEX_TRY(flex__s8_fc_check(w[0], w[1], w[2], p[0], N(3), p[1], N(4), w[5], p[2], N(6),
                                   p[3], p[4], N(7), (const flex_s8_quant *)(w + 8), p[5],
                                   N(12)));
        out->kind = STEP_FC;
        fc->batches = w[0];
        fc->in_f = w[1];
        fc->out_f = w[2];
        fc->filter_offset = w[5];
        fc->per_channel = N(7) != 1;
        fc->input = p[0];
        fc->filter = p[1];
        fc->bias = p[2];
        fc->multiplier = p[3];
        fc->shift = p[4];
        memcpy(&fc->q, w + 8, sizeof fc->q);
        fc->output = p[5];
    } else if (step[0] == FLEX_OP_COPY && step[1] == 1 && step[2] == 2) {
        FLEX_TRY(resolve(index, 2, buffers, n_buffers, p));
        if (w[0] < 0)
            return FLEX_E_SIZE;
        if (w[0] && (!p[0] || !p[1]))
            return FLEX_E_NULL;
        out->kind = STEP_COPY;
        out->u.copy.bytes = (size_t)w[0];
        out->u.copy.src = p[0];
        out->u.copy.dst = p[1];
    } else {
        out->kind = STEP_CHECKED;
        out->u.checked.at = at;
        out->u.checked.len = 3 + (size_t)step[1] + (size_t)step[2];
    }
    return FLEX_OK;
}

/* The steps of plan[0:len] (NULL when malloc fails); *n their count, or the index of the
 * first malformed step with *status FLEX_E_PARAM. */
static fast_step *decode_all(const int32_t *plan, size_t len, void *const *buffers,
                             size_t n_buffers, size_t *n, flex_status *status) {
    fast_step *steps = malloc((len / 3 + 1) * sizeof *steps);
    size_t at = 0;
    *n = 0;
    *status = FLEX_OK;
    if (!steps)
        return NULL;
    while (at < len) {
        const int32_t *step = plan + at;
        if (len - at < 3 || step[1] < 0 || step[2] < 0 ||
            len - at - 3 < (size_t)step[1] + (size_t)step[2]) {
            *status = FLEX_E_PARAM;
            return steps;
        }
        *status = decode(plan, at, buffers, n_buffers, steps + *n);
        if (*status != FLEX_OK)
            return steps;
        at += 3 + (size_t)step[1] + (size_t)step[2];
        ++*n;
    }
    return steps;
}

flex_fast_plan *flex_fast_plan_new(const flex_plan_args *args, void *input, size_t input_len,
                                   flex_status *status) {
    flex_fast_plan *fp;
    flex_status decoded;
    if (!status)
        return NULL;
    *status = FLEX_E_NULL;
    if (!args || !args->plan || (args->n_buffers && !args->buffers) || (input_len && !input))
        return NULL;
    *status = FLEX_OK;
    fp = calloc(1, sizeof *fp);
    if (!fp)
        return NULL;
    fp->input = input;
    fp->input_len = input_len;
    fp->n_buffers = args->n_buffers;
    fp->words = malloc((args->plan_len + 1) * sizeof *fp->words);
    fp->buffers = malloc((args->n_buffers + 1) * sizeof *fp->buffers);
    fp->steps = decode_all(args->plan, args->plan_len, args->buffers, args->n_buffers,
                           &fp->n_steps, &decoded);
    if (!fp->words || !fp->buffers || !fp->steps || decoded != FLEX_OK) {
        if (decoded != FLEX_OK && args->failed)
            *args->failed = (int32_t)fp->n_steps;
        *status = fp->steps ? decoded : FLEX_OK;
        flex_fast_plan_free(fp);
        return NULL;
    }
    memcpy(fp->words, args->plan, args->plan_len * sizeof *fp->words);
    if (args->n_buffers)
        memcpy(fp->buffers, args->buffers, args->n_buffers * sizeof *fp->buffers);
    return fp;
}

flex_status flex_fast_bind(flex_fast_plan *plan, const void *src, size_t src_len) {
    if (!plan)
        return FLEX_E_NULL;
    if (src && src_len != plan->input_len)
        return FLEX_E_SIZE;
    plan->bound = src;
    return FLEX_OK;
}

flex_status flex_fast_run(flex_fast_plan *plan) {
    size_t i;
    if (!plan)
        return FLEX_E_NULL;
    if (plan->bound && plan->input_len)
        memmove(plan->input, plan->bound, plan->input_len);
    for (i = 0; i < plan->n_steps; i++) {
        const fast_step *s = plan->steps + i;
        flex_status status = FLEX_OK;
        if (s->kind == STEP_FC) {
            const fc_step *fc = &s->u.fc;
            flex__host_fc_rows(fc->batches, fc->in_f, fc->out_f, fc->input, fc->filter,
                               fc->filter_offset, fc->bias, fc->multiplier, fc->shift,
                               fc->per_channel, &fc->q, fc->output);
        } else if (s->kind == STEP_COPY) {
            if (s->u.copy.bytes)
                memmove(s->u.copy.dst, s->u.copy.src, s->u.copy.bytes);
        } else {
            status = flex_plan_run(plan->words + s->u.checked.at, s->u.checked.len,
                                   plan->buffers, plan->n_buffers, NULL);
        }
        if (status != FLEX_OK) {
            plan->failed = (int32_t)i;
            return status;
        }
    }
    return FLEX_OK;
}

int32_t flex_fast_failed(const flex_fast_plan *plan) {
    return plan ? plan->failed : -1;
}

void flex_fast_plan_free(flex_fast_plan *plan) {
    if (!plan)
        return;
    free(plan->steps);
    free(plan->words);
    free(plan->buffers);
    free(plan);
}

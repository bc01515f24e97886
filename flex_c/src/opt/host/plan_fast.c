/* Validated plans (flex.h, flex_fast_*), host builds only: a plan's checks made once.
 *
 * Why a run may skip them: it reads only this file's own copies, which flex_fast_plan_new
 * made and checked and whose address it hands out only inside an opaque handle, so nothing
 * the caller changes later (the plan's words, its pointer table) alters what a step reads
 * or writes. A fully connected step passed flex__s8_fc_check with the very arguments it
 * keeps, and the kernel's memory accesses depend on those arguments alone, never on the
 * data. A copy step's count was checked non-negative and its pointers non-NULL, as
 * flex_plan_run checks them (there, too, the plan's maker vouches for the buffers' lengths).
 * An int8 convolution or depthwise step that the AVX-512 VNNI paths take passed its kernel's
 * check too, and keeps its prepared form (s8_vnni.h: shapes, quantization, packed weights)
 * in the plan's area, made once here: its filter, bias, multipliers and shifts are read
 * then and never again (the .bst runtime's are constants). So does an int8 ADD of two
 * inputs of its output's shape that s8_add_avx512.c's tables take: its check passed, and
 * the tables (made from its parameters, which it reads no more) are its prepared form. A
 * fully connected step without a filter offset is the 1x1 convolution of its batches as
 * pixels (fc_as_conv): the convolution's prepared form, packed weights in vectors of 16
 * output channels, replaces its rows' dot products and their sums across lanes. While
 * flex_s8_vector_width caps the paths, a prepared step runs as it would unprepared (through
 * flex_plan_run, a fully connected one as a STEP_FC). Every other step runs through
 * flex_plan_run, which checks it on each run. */
#include <stdlib.h>
#include <string.h>

#include "../../ref/ref.h"
#include "s8_fc.h"
#include "s8_vnni.h"

enum { STEP_FC, STEP_COPY, STEP_CHECKED };

/* A step's prepared form, if it has one (run not NULL): its run, block and buffers (offset:
 * the block's place in the plan's area until the area exists; input2: an ADD's second
 * input). */
typedef struct {
    void (*run)(const void *prep, const int8_t *input, const int8_t *input2, int8_t *output,
                uint8_t *image);
    size_t offset;
    const void *prep;
    const int8_t *input, *input2;
    int8_t *output;
} prepared_step;

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
    } u;
    struct {
        size_t at, len; /* the step's words in flex_fast_plan.words */
    } checked;        /* every step's, for runs with the paths capped */
    prepared_step prepared;
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
    void *area; /* the prepared steps' blocks, then the padded image they share */
    uint8_t *image;
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

static void run_conv(const void *prep, const int8_t *input, const int8_t *input2,
                     int8_t *output, uint8_t *image) {
    (void)input2;
    flex__host_conv_vnni_run(prep, input, output, image);
}

static void run_depthwise(const void *prep, const int8_t *input, const int8_t *input2,
                          int8_t *output, uint8_t *image) {
    (void)input2;
    flex__host_depthwise_vnni_run(prep, input, output, image);
}

#ifdef FLEX_S8_SIMD
static void run_add(const void *prep, const int8_t *input, const int8_t *input2,
                    int8_t *output, uint8_t *image) {
    (void)image;
    flex__host_add_avx512_run(prep, input, input2, output);
}

static int same_dims(const flex_dims4 *a, const flex_dims4 *b) {
    return a->n == b->n && a->h == b->h && a->w == b->w && a->c == b->c;
}

/* Whether the step at `step` (well-formed) is an int8 ADD of two inputs of its output's
 * shape whose check passes and that s8_add_avx512.c's tables take: then *out is its
 * prepared step (the block's size in `offset`). */
static int prepared_add(const int32_t *step, void *const *buffers, size_t n_buffers,
                        fast_step *out) {
    const int32_t *w = step + 3, *index = w + step[1];
    const flex_dims4 *in1 = (const flex_dims4 *)w, *in2 = (const flex_dims4 *)(w + 5);
    const flex_s8_add_params *p = (const flex_s8_add_params *)(w + 10);
    const flex_dims4 *dims = (const flex_dims4 *)(w + 22);
    int32_t s1[4], s2[4];
    void *ptr[3];
    size_t size;
    if (step[0] != FLEX_OP_S8_ADD || step[1] != 27 || step[2] != 3 ||
        resolve(index, 3, buffers, n_buffers, ptr) != FLEX_OK ||
        flex__s8_add_check(in1, ptr[0], N(4), in2, ptr[1], N(9), p, dims, ptr[2], N(26), s1,
                           s2) != FLEX_OK ||
        !same_dims(in1, dims) || !same_dims(in2, dims) ||
        (int64_t)dims->n * dims->h * dims->w * dims->c > INT32_MAX)
        return 0;
    size = flex__host_add_avx512_size(p, dims->n * dims->h * dims->w * dims->c);
    if (!size)
        return 0;
    out->prepared.run = run_add;
    out->prepared.offset = size;
    out->prepared.input = ptr[0];
    out->prepared.input2 = ptr[1];
    out->prepared.output = ptr[2];
    return 1;
}
#endif

/* Where the step at `step` (well-formed) is an int8 ADD (prepared_add), convolution or
 * depthwise convolution whose kernel check passes and that a VNNI path takes, *out gets its
 * prepared form, with the size of its block in `offset` (the block made later, by
 * prepare_all). A step whose check fails gets none, to fail as flex_plan_run fails. */
static void prepared(const int32_t *step, void *const *buffers, size_t n_buffers,
                     fast_step *out) {
    const int32_t *w = step + 3, *index = w + step[1];
    const flex_dims4 *in = (const flex_dims4 *)w, *dims = (const flex_dims4 *)(w + 23);
    const flex_window *win = (const flex_window *)(w + 8);
    const flex_s8_quant *q = (const flex_s8_quant *)(w + 19);
    void *p[6];
    size_t size;
#ifdef FLEX_S8_SIMD
    if (prepared_add(step, buffers, n_buffers, out))
        return;
#endif
    if ((step[0] != FLEX_OP_S8_CONV2D && step[0] != FLEX_OP_S8_DEPTHWISE_CONV2D) ||
        step[1] != 28 || step[2] != 6 || resolve(index, 6, buffers, n_buffers, p) != FLEX_OK)
        return;
    if (step[0] == FLEX_OP_S8_CONV2D) {
        if (flex__s8_conv_check(in, p[0], N(4), p[1], N(5), p[2], N(6), p[3], p[4], N(7), win,
                                w[18], q, dims, p[5], N(27)) != FLEX_OK)
            return;
        size = flex__host_conv_vnni_size(in, win, w[18], q, dims);
    } else {
        if (flex__s8_depthwise_check(in, p[0], N(4), p[1], N(5), p[2], N(6), p[3], p[4], N(7),
                                     win, w[18], q, dims, p[5], N(27)) != FLEX_OK)
            return;
        size = flex__host_depthwise_vnni_size(in, win, w[18], q, dims);
    }
    if (!size)
        return;
    out->prepared.run = step[0] == FLEX_OP_S8_CONV2D ? run_conv : run_depthwise;
    out->prepared.offset = (size + 63) / 64 * 64;
    out->prepared.input = p[0];
    out->prepared.input2 = NULL;
    out->prepared.output = p[5];
}

/* The shapes of fully connected step fc as a 1x1 convolution, one pixel per batch. */
static void fc_as_conv(const fc_step *fc, flex_dims4 *in, flex_window *win, flex_dims4 *out) {
    const flex_window one = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
    in->n = out->n = fc->batches;
    in->h = in->w = out->h = out->w = 1;
    in->c = fc->in_f;
    out->c = fc->out_f;
    *win = one;
}

/* *out's prepared form when the convolution path takes fully connected step fc (checked). */
static void prepared_fc(const fc_step *fc, fast_step *out) {
    flex_dims4 in, dims;
    flex_window win;
    size_t size;
    fc_as_conv(fc, &in, &win, &dims);
    size = fc->filter_offset ? 0 : flex__host_conv_vnni_size(&in, &win, 1, &fc->q, &dims);
    if (!size)
        return;
    out->prepared.run = run_conv;
    out->prepared.offset = (size + 63) / 64 * 64;
    out->prepared.input = fc->input;
    out->prepared.input2 = NULL;
    out->prepared.output = fc->output;
}

/* The block of fully connected step fc (prepared_fc took it): a per-tensor multiplier and
 * shift repeated for every channel, as the convolution's block has them per channel. */
static void prepare_fc(const fc_step *fc, void *prep) {
    int32_t mult[FLEX_HOST_VNNI_CHANNELS], sh[FLEX_HOST_VNNI_CHANNELS], c;
    const int32_t *m = fc->multiplier, *shift = fc->shift;
    flex_dims4 in, dims;
    flex_window win;
    fc_as_conv(fc, &in, &win, &dims);
    if (!fc->per_channel) {
        for (c = 0; c < fc->out_f; c++) {
            mult[c] = m[0];
            sh[c] = shift[0];
        }
        m = mult;
        shift = sh;
    }
    flex__host_conv_vnni_prepare(&in, fc->filter, fc->bias, m, shift, &win, &fc->q, &dims,
                                 prep);
}

/* The plan's area (64-byte aligned blocks, then the image) with each prepared step's block
 * made from its words; 0 when malloc fails (or no step is prepared: no area). */
static int prepare_all(flex_fast_plan *fp) {
    size_t i, total = 0;
    for (i = 0; i < fp->n_steps; i++)
        if (fp->steps[i].prepared.run) {
            const size_t size = fp->steps[i].prepared.offset;
            fp->steps[i].prepared.offset = total;
            total += size;
        }
    if (!total)
        return 1;
    fp->area = malloc(total + FLEX_VNNI_IMAGE_MAX + FLEX_VNNI_SLACK + 63);
    if (!fp->area)
        return 0;
    for (i = 0; i < fp->n_steps; i++) {
        prepared_step *s = &fp->steps[i].prepared;
        const int32_t *step = fp->words + fp->steps[i].checked.at, *w = step + 3;
        void *p[6] = {0}; /* resolve fills it; GCC cannot tell */
        if (!s->run)
            continue;
        s->prep = (char *)fp->area + (-(uintptr_t)fp->area & 63) + s->offset;
        if (fp->steps[i].kind == STEP_FC) {
            prepare_fc(&fp->steps[i].u.fc, (void *)s->prep);
            continue;
        }
#ifdef FLEX_S8_SIMD
        if (step[0] == FLEX_OP_S8_ADD) {
            const flex_dims4 *d = (const flex_dims4 *)(w + 22);
            flex__host_add_avx512_prepare((const flex_s8_add_params *)(w + 10),
                                          d->n * d->h * d->w * d->c, (void *)s->prep);
            continue;
        }
#endif
        resolve(w + step[1], 6, fp->buffers, fp->n_buffers, p);
        (step[0] == FLEX_OP_S8_CONV2D ? flex__host_conv_vnni_prepare
                                      : flex__host_depthwise_vnni_prepare)(
            (const flex_dims4 *)w, p[1], p[2], p[3], p[4], (const flex_window *)(w + 8),
            (const flex_s8_quant *)(w + 19), (const flex_dims4 *)(w + 23), (void *)s->prep);
    }
    fp->image = (uint8_t *)fp->area + (-(uintptr_t)fp->area & 63) + total;
    return 1;
}

/* The fast form of the well-formed step at plan[at], checked as its kernel checks it. */
static flex_status decode(const int32_t *plan, size_t at, void *const *buffers,
                          size_t n_buffers, fast_step *out) {
    const int32_t *step = plan + at, *w = step + 3, *index = w + step[1];
    void *p[6];
    out->prepared.run = NULL;
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
        prepared_fc(fc, out);
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
        prepared(step, buffers, n_buffers, out);
    }
    out->checked.at = at;
    out->checked.len = 3 + (size_t)step[1] + (size_t)step[2];
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
    if (fp->words && fp->buffers && fp->steps && decoded == FLEX_OK) {
        memcpy(fp->words, args->plan, args->plan_len * sizeof *fp->words);
        if (args->n_buffers)
            memcpy(fp->buffers, args->buffers, args->n_buffers * sizeof *fp->buffers);
        if (prepare_all(fp))
            return fp;
    }
    if (decoded != FLEX_OK && args->failed)
        *args->failed = (int32_t)fp->n_steps;
    *status = fp->steps ? decoded : FLEX_OK;
    flex_fast_plan_free(fp);
    return NULL;
}

flex_status flex_fast_bind(flex_fast_plan *plan, const void *src, size_t src_len) {
    if (!plan)
        return FLEX_E_NULL;
    if (src && src_len != plan->input_len)
        return FLEX_E_SIZE;
    plan->bound = src;
    return FLEX_OK;
}

/* Whether the VNNI paths are in effect: a prepared step runs its block only then (a build
 * without them prepares none). */
static int vnni_on(void) {
#ifdef FLEX_S8_SIMD
    return flex__s8_simd() >= 64;
#else
    return 0;
#endif
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
        if (s->prepared.run && vnni_on()) {
            s->prepared.run(s->prepared.prep, s->prepared.input, s->prepared.input2,
                            s->prepared.output, plan->image);
        } else if (s->kind == STEP_FC) {
            const fc_step *fc = &s->u.fc;
            flex__host_fc_rows(fc->batches, fc->in_f, fc->out_f, fc->input, fc->filter,
                               fc->filter_offset, fc->bias, fc->multiplier, fc->shift,
                               fc->per_channel, &fc->q, fc->output);
        } else if (s->kind == STEP_COPY) {
            if (s->u.copy.bytes)
                memmove(s->u.copy.dst, s->u.copy.src, s->u.copy.bytes);
        } else {
            status = flex_plan_run(plan->words + s->checked.at, s->checked.len, plan->buffers,
                                   plan->n_buffers, NULL);
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
    free(plan->area);
    free(plan);
}

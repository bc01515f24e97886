/* flex/plan.h - part of flex.h, which includes it (include flex.h, not this file):
 * plans (a whole int8 model in one call), on one core or two. */
#ifndef FLEX_API_PLAN_H
#define FLEX_API_PLAN_H

#include "types.h"

/* ---- plans: a whole int8 model in one call ---------------------------------------- */

/* Op codes of plan steps: the int8 kernels, the layout kernels and a plain copy. */
#define FLEX_OP_S8_CONV2D 1
#define FLEX_OP_S8_DEPTHWISE_CONV2D 2
#define FLEX_OP_S8_FULLY_CONNECTED 3
#define FLEX_OP_S8_ADD 4
#define FLEX_OP_S8_MUL 5
#define FLEX_OP_S8_AVG_POOL2D 6
#define FLEX_OP_S8_MAX_POOL2D 7
#define FLEX_OP_S8_MEAN 8
#define FLEX_OP_S8_SOFTMAX 9
#define FLEX_OP_S8_LOGISTIC 10
#define FLEX_OP_S8_TANH 11
#define FLEX_OP_S8_REQUANTIZE 12
#define FLEX_OP_PAD 13
#define FLEX_OP_CONCAT 14
#define FLEX_OP_COPY 15 /* bytes; pointers src, dst (they may overlap) */
#define FLEX_OP_COUNT 16

/* Runs the steps of `plan` in order, stopping at the first that fails. A step is int32
 * words: op, word count w, pointer count p, then w argument words and p pointer indices.
 * The words are the kernel's non-pointer parameters in its order: an integer (int32_t or
 * size_t) one word, a parameter block its int32 fields; the pointer indices select, in
 * parameter order, entries of `buffers` (-1 for NULL). concat's `inputs` is a word: the
 * index of the first of n_inputs consecutive entries of `buffers`. Returns FLEX_OK, or the
 * failing step's status with its index in *failed (when failed is not NULL); a malformed
 * step (unknown op, wrong counts, an index outside `buffers`) gives FLEX_E_PARAM. */
flex_status flex_plan_run(const int32_t *plan, size_t plan_len, void *const *buffers,
                          size_t n_buffers, int32_t *failed);

/* ---- two cores (common/split.c) ---------------------------------------------------
 * flex_plan_run_on runs a plan as flex_plan_run does, with a second core taking part of
 * each large convolution, depthwise convolution and fully connected step. A step splits
 * into two smaller calls of the same kernel: output rows (convolutions; all pixels as one
 * column for a 1x1 stride-1 unpadded convolution, "pixels"), or output features (fully
 * connected). Each output byte is computed by the same arithmetic as in the whole call, so
 * results are identical. A step whose parts would overwrite what the other core still
 * reads (an output laid over its input in the arena) gives the other core's first output
 * rows to `spare` when they fit there (copied into place once both parts are done), else
 * runs whole. */
#define FLEX_JOB_WORDS 28
#define FLEX_JOB_PTRS 6

/* The other core's part of a step: one or two calls (its rows that go to the spare buffer
 * first, then the rest) of kernel `op`, with their words and pointers. */
typedef struct {
    int32_t op, n_calls;
    int32_t words[2][28]; /* [2][FLEX_JOB_WORDS], spelled out for the cffi header parser */
    void *ptrs[2][6];     /* [2][FLEX_JOB_PTRS] */
} flex_job;

/* Runs the calls of `job` in order; returns the first failing status, or FLEX_OK. */
flex_status flex_job_run(const flex_job *job);

/* The second core. start(ctx, job) begins flex_job_run(job) there and returns 1, or 0 when
 * that core cannot take it (the step then runs whole here); finish(ctx) returns the job's
 * status once it is done, or a negative status (FLEX_E_CORE) when the core did not finish
 * within the bound the caller chose. stop (or NULL) is asked before each step: non-zero
 * ends the run with FLEX_E_STOPPED. Steps of fewer than min_macs multiply-accumulates run
 * whole. record (or NULL) gets FLEX_SPLIT_WORDS words per step, record_len in all. */
typedef struct {
    int (*start)(void *ctx, const flex_job *job);
    flex_status (*finish)(void *ctx);
    int (*stop)(void *ctx);
    void *ctx;
    int32_t min_macs;
    int8_t *spare;
    size_t spare_len;
    int32_t *record;
    size_t record_len;
} flex_cores;

/* How a step ran (record[0]): whole, or split by rows, pixels or features, the other core
 * taking units [record[1], record[2]) of record[2] (record[3]: of those, how many went
 * through the spare buffer). A whole step's record[1] says why: */
#define FLEX_SPLIT_WORDS 4
#define FLEX_SPLIT_NONE 0
#define FLEX_SPLIT_ROWS 1
#define FLEX_SPLIT_PIXELS 2
#define FLEX_SPLIT_FEATURES 3
#define FLEX_WHOLE_OP 0       /* an op that does not split (pools, adds, copies...) */
#define FLEX_WHOLE_SMALL 1    /* fewer than min_macs multiply-accumulates */
#define FLEX_WHOLE_SHAPE 2    /* one output row or feature, or several batches */
#define FLEX_WHOLE_IN_PLACE 3 /* the parts would overwrite each other's input */
#define FLEX_WHOLE_BUSY 4     /* the other core did not take it */

flex_status flex_plan_run_on(const int32_t *plan, size_t plan_len, void *const *buffers,
                             size_t n_buffers, int32_t *failed, const flex_cores *cores);
/* flex_plan_run with its arguments in one block, for a caller that pays for each argument
 * it passes (the host's cffi binding converts one pointer instead of five). Host builds
 * only (opt/host/plan_call.c). */
typedef struct {
    const int32_t *plan;
    size_t plan_len;
    void *const *buffers;
    size_t n_buffers;
    int32_t *failed;
} flex_plan_args;
flex_status flex_plan_call(const flex_plan_args *args);
/* Validated plans, host builds only (opt/host/plan_fast.c). flex_fast_plan_new checks the
 * plan of `args` once, as flex_plan_run checks it on every run, and copies it into memory
 * of its own: the fully connected steps' arguments, pre-decoded, and the other steps' words
 * and the pointer table (the caller's plan and table may change or go afterwards; the
 * buffers they point into must stay). `input` (input_len bytes) is where a run puts the
 * bound input. It returns NULL with the status in *status (NULL with FLEX_OK: out of
 * memory); a failing step's index is then in args->failed.
 * flex_fast_bind sets the buffer a run copies into `input` first (NULL: none; src_len must
 * equal input_len, else FLEX_E_SIZE); it must stay valid while bound. flex_fast_run runs
 * the fully connected and copy steps without re-checking them, the others through
 * flex_plan_run; a failing step's index is then flex_fast_failed's. */
typedef struct flex_fast_plan flex_fast_plan;
flex_fast_plan *flex_fast_plan_new(const flex_plan_args *args, void *input, size_t input_len,
                                   flex_status *status);
flex_status flex_fast_bind(flex_fast_plan *plan, const void *src, size_t src_len);
flex_status flex_fast_run(flex_fast_plan *plan);
int32_t flex_fast_failed(const flex_fast_plan *plan);
void flex_fast_plan_free(flex_fast_plan *plan);

#endif /* FLEX_API_PLAN_H */

/* Splitting one plan step between two cores (split.c, for plan.c's flex_plan_run_on). */
#ifndef FLEX_SPLIT_H
#define FLEX_SPLIT_H

#include "internal.h"

/* This core's part and the other core's. */
typedef struct {
    int32_t words[FLEX_JOB_WORDS];
    void *ptrs[FLEX_JOB_PTRS];
    flex_job job;
    int8_t *head_dst; /* where the spare buffer's bytes go once both parts are done */
    int32_t head_bytes;
} flex__split;

/* Splits step (op, w, p) under `cores`: fills `s` and rec (FLEX_SPLIT_WORDS) and returns 1,
 * or returns 0 with rec saying why the step runs whole (an invalid step is never split: it
 * runs whole and its kernel reports the error). */
int flex__split_step(int32_t op, const int32_t *w, void *const *p, const flex_cores *cores,
                     flex__split *s, int32_t *rec);

#endif

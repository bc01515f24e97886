/* How flex_plan_run_on (flex.h) divides a step between two cores. A convolution splits by
 * output rows: each part is the same kernel over the input rows its output rows read, with
 * the padding that part still needs, so every output byte comes from the same arithmetic
 * as in the whole call. A 1x1 stride-1 unpadded convolution treats all its pixels as one
 * column and splits those ("pixels": a finer balance, and both cores stream the same
 * weights). A fully connected layer of one batch splits by output features.
 *
 * The arena may lay an output over its input: a kernel then writes each output pixel only
 * after reading the input it needs, in increasing order, but two parts run at once. This
 * core's part takes the first rows; if its output would overwrite input the other part
 * reads, the step runs whole. If the other part's first output rows would overwrite input
 * this part still reads, those rows go to the spare buffer first and are copied into place
 * after both parts (or the step runs whole, when they do not fit). */
#include "split.h"

#include "../ref/ref.h"

#define ROW_WORDS 28 /* a convolution step: in dims 0-3, window 8-17, out dims 23-26 */

static int meets(const void *a, int32_t a_len, const void *b, int32_t b_len) {
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + (uintptr_t)b_len && y < x + (uintptr_t)a_len;
}

static void copy_call(const int32_t *w, void *const *p, int32_t *cw, void **cp) {
    int32_t k;
    for (k = 0; k < FLEX_JOB_WORDS; k++)
        cw[k] = w[k];
    for (k = 0; k < FLEX_JOB_PTRS; k++)
        cp[k] = p[k];
}

/* The convolution call (cw, cp) for output rows [r0, r1) of the one-image call (w, p):
 * input rows [a, b) of the window, clipped to the image, the clipped rows becoming padding.
 * Returns 0 when those rows miss the image (padding only). */
static int rows_call(const int32_t *w, void *const *p, int32_t r0, int32_t r1, int32_t *cw,
                     void **cp) {
    const int32_t ih = w[1], in_row = w[2] * w[3], out_row = w[25] * w[26];
    const int32_t a = r0 * w[10] - w[14], b = (r1 - 1) * w[10] - w[14] + w[12] * (w[8] - 1) + 1;
    const int32_t ia = a < 0 ? 0 : a, ib = b > ih ? ih : b;
    if (ib <= ia)
        return 0;
    copy_call(w, p, cw, cp);
    cw[1] = ib - ia;
    cw[4] = (ib - ia) * in_row;
    cw[14] = ia - a;
    cw[15] = b - ib;
    cw[24] = r1 - r0;
    cw[27] = (r1 - r0) * out_row;
    cp[0] = (int8_t *)p[0] + (size_t)ia * (size_t)in_row;
    cp[5] = (int8_t *)p[5] + (size_t)r0 * (size_t)out_row;
    return 1;
}

static int whole(int32_t *rec, int32_t why) {
    rec[0] = FLEX_SPLIT_NONE;
    rec[1] = why;
    rec[2] = rec[3] = 0;
    return 0;
}

/* Multiply-accumulates of a valid convolution step, or -1 for an invalid one. */
static int64_t conv_macs(int32_t op, const int32_t *w, void *const *p) {
    const flex_dims4 *in = (const flex_dims4 *)w, *out = (const flex_dims4 *)(w + 23);
    const flex_window *win = (const flex_window *)(w + 8);
    const flex_s8_quant *q = (const flex_s8_quant *)(w + 19);
    flex_status st;
    int64_t per_output = (int64_t)win->kernel_h * win->kernel_w;
    if (op == FLEX_OP_S8_CONV2D) {
        st = flex__s8_conv_check(in, p[0], (size_t)(uint32_t)w[4], p[1], (size_t)(uint32_t)w[5],
                                 p[2], (size_t)(uint32_t)w[6], p[3], p[4],
                                 (size_t)(uint32_t)w[7], win, w[18], q, out, p[5],
                                 (size_t)(uint32_t)w[27]);
        per_output *= in->c / (w[18] > 0 ? w[18] : 1);
    } else {
        st = flex__s8_depthwise_check(in, p[0], (size_t)(uint32_t)w[4], p[1],
                                      (size_t)(uint32_t)w[5], p[2], (size_t)(uint32_t)w[6],
                                      p[3], p[4], (size_t)(uint32_t)w[7], win, w[18], q, out,
                                      p[5], (size_t)(uint32_t)w[27]);
    }
    if (st != FLEX_OK)
        return -1;
    return per_output * out->n * out->h * out->w * out->c;
}

/* The spare rows that the other core's part, output rows [r, rows) of the one-image call
 * (v, vp), needs with this core's part [0, r) (both calls made in s and job): 0 when its
 * output meets nothing this part reads, else the number of its first rows that would
 * overwrite this part's input; -1 when this part's output would overwrite the other part's
 * input, -2 when a part misses the image. */
static int32_t head_rows(const int32_t *v, void *const *vp, int32_t r, int32_t rows,
                         int32_t out_row, flex__split *s) {
    flex_job *job = &s->job;
    int32_t h;
    if (!rows_call(v, vp, 0, r, s->words, s->ptrs) ||
        !rows_call(v, vp, r, rows, job->words[0], job->ptrs[0]))
        return -2;
    if (meets(s->ptrs[5], s->words[27], job->ptrs[0][0], job->words[0][4]))
        return -1;
    if (!meets(job->ptrs[0][5], job->words[0][27], s->ptrs[0], s->words[4]))
        return 0;
    h = (int32_t)(((const int8_t *)s->ptrs[0] + s->words[4] - (const int8_t *)job->ptrs[0][5] +
                   out_row - 1) / out_row);
    return h > rows - r ? rows - r : h;
}

static int spare_holds(int32_t h, int32_t out_row, const flex_cores *c) {
    return h == 0 || (h > 0 && c->spare && (size_t)h * (size_t)out_row <= c->spare_len);
}

/* Where this core's rows end: half the rows (the odd one here), or a row more when the other
 * part is two calls (its first rows into the spare buffer), which cost it about a row, or
 * when only that makes its rows aside fit the spare buffer; 0 when the parts overwrite each
 * other's input beyond what the spare buffer takes, -1 when a part misses the image. */
static int32_t choose_rows(const int32_t *v, void *const *vp, int32_t rows, int32_t out_row,
                           int32_t split, const flex_cores *c, flex__split *s) {
    const int32_t r = (rows + 1) / 2, h = head_rows(v, vp, r, rows, out_row, s);
    const int holds = spare_holds(h, out_row, c);
    if (h < -1)
        return -1;
    if (h > 0 && r + 2 <= rows && (split == FLEX_SPLIT_ROWS || !holds) &&
        spare_holds(head_rows(v, vp, r + 1, rows, out_row, s), out_row, c))
        return r + 1;
    return holds ? r : 0;
}

static int split_conv(int32_t op, const int32_t *w, void *const *p, const flex_cores *c,
                      flex__split *s, int32_t *rec) {
    int32_t v[ROW_WORDS], rows, r, out_row, h;
    void *vp[FLEX_JOB_PTRS];
    flex_job *job = &s->job;
    const int64_t macs = conv_macs(op, w, p);
    if (macs < 0)
        return whole(rec, FLEX_WHOLE_SHAPE);
    if (macs < c->min_macs)
        return whole(rec, FLEX_WHOLE_SMALL);
    copy_call(w, p, v, vp);
    if (w[8] == 1 && w[9] == 1 && w[10] == 1 && w[11] == 1 && !(w[14] | w[15] | w[16] | w[17])) {
        v[1] = v[24] = w[0] * w[1] * w[2]; /* every pixel, one per row */
        v[0] = v[2] = v[23] = v[25] = 1;
        rec[0] = FLEX_SPLIT_PIXELS;
    } else if (w[0] == 1) {
        rec[0] = FLEX_SPLIT_ROWS;
    } else {
        return whole(rec, FLEX_WHOLE_SHAPE);
    }
    rows = v[24];
    out_row = v[25] * v[26];
    job->op = op;
    job->n_calls = 1;
    r = rows < 2 ? -1 : choose_rows(v, vp, rows, out_row, rec[0], c, s);
    if (r <= 0)
        return whole(rec, r ? FLEX_WHOLE_SHAPE : FLEX_WHOLE_IN_PLACE);
    h = head_rows(v, vp, r, rows, out_row, s); /* the parts of r again (cheaper in flash
                                                  than keeping them in choose_rows) */
    s->head_dst = (int8_t *)job->ptrs[0][5];
    s->head_bytes = h * out_row;
    if (h) { /* rows r .. r + h into the spare buffer, then the rest in place */
        if (!rows_call(v, vp, r, r + h, job->words[0], job->ptrs[0]) ||
            (r + h < rows && !rows_call(v, vp, r + h, rows, job->words[1], job->ptrs[1])))
            return whole(rec, FLEX_WHOLE_SHAPE);
        job->ptrs[0][5] = c->spare;
        job->n_calls = r + h < rows ? 2 : 1;
    }
    rec[1] = r;
    rec[2] = rows;
    rec[3] = h;
    return 1;
}

/* A fully connected step of one batch: this core takes features [0, f), the other the
 * rest; both read the whole input, so an output over it runs whole. */
static int split_fc(const int32_t *w, void *const *p, const flex_cores *c, flex__split *s,
                    int32_t *rec) {
    const int32_t in_f = w[1], out_f = w[2], f = (w[2] + 1) / 2;
    int32_t *tw = s->job.words[0];
    void **tp = s->job.ptrs[0];
    if (flex__s8_fc_check(w[0], in_f, out_f, p[0], (size_t)(uint32_t)w[3], p[1],
                          (size_t)(uint32_t)w[4], w[5], p[2], (size_t)(uint32_t)w[6], p[3],
                          p[4], (size_t)(uint32_t)w[7], (const flex_s8_quant *)(w + 8), p[5],
                          (size_t)(uint32_t)w[12]) != FLEX_OK || w[0] != 1 || out_f < 2)
        return whole(rec, FLEX_WHOLE_SHAPE);
    if ((int64_t)in_f * out_f < c->min_macs)
        return whole(rec, FLEX_WHOLE_SMALL);
    if (meets(p[5], out_f, p[0], in_f))
        return whole(rec, FLEX_WHOLE_IN_PLACE);
    copy_call(w, p, s->words, s->ptrs);
    copy_call(w, p, tw, tp);
    s->words[2] = s->words[12] = f;
    tw[2] = tw[12] = out_f - f;
    s->words[4] = f * in_f;
    tw[4] = (out_f - f) * in_f;
    tp[1] = (int8_t *)p[1] + (size_t)f * (size_t)in_f;
    if (p[2]) {
        s->words[6] = f;
        tw[6] = out_f - f;
        tp[2] = (int32_t *)p[2] + f;
    }
    if (w[7] != 1) { /* per-feature multipliers and shifts */
        s->words[7] = f;
        tw[7] = out_f - f;
        tp[3] = (int32_t *)p[3] + f;
        tp[4] = (int32_t *)p[4] + f;
    }
    tp[5] = (int8_t *)p[5] + f;
    s->job.op = FLEX_OP_S8_FULLY_CONNECTED;
    s->job.n_calls = 1;
    s->head_bytes = 0;
    rec[0] = FLEX_SPLIT_FEATURES;
    rec[1] = f;
    rec[2] = out_f;
    rec[3] = 0;
    return 1;
}

int flex__split_step(int32_t op, const int32_t *w, void *const *p, const flex_cores *cores,
                     flex__split *s, int32_t *rec) {
    if (op == FLEX_OP_S8_CONV2D || op == FLEX_OP_S8_DEPTHWISE_CONV2D)
        return split_conv(op, w, p, cores, s, rec);
    if (op == FLEX_OP_S8_FULLY_CONNECTED)
        return split_fc(w, p, cores, s, rec);
    return whole(rec, FLEX_WHOLE_OP);
}

/* A whole model in one call on the board: burnflex.plan(steps) turns the kernel calls of a
 * model into the steps of flex_plan_run (flex.h), burnflex.run_plan(words, pointers) runs
 * them. The bindings convert their arguments as always; burnflex.h renames the kernels they
 * call to the recorders below, which encode the call as one plan step (on the C stack) and
 * run it through flex_plan_run, or, while plan() records, hand the step to plan() instead.
 * Parameter blocks become words; pad's pad list and value, which point at the binding's
 * stack, are copied into a data area after the steps. */
#define BF_PLAN_IMPL
#include <stdarg.h>

#include "burnflex.h"
#include "burnflex_cores.h"

#if BURNFLEX_PLAN

#define STEP_WORDS 48 /* header, words and pointer indices of the largest step */
#define STEP_PTRS (BF_MAX_CONCAT + 2)
#define STEP_DATA 9 /* pad's eight pads and its value */

/* One encoded step: pointer indices and concat's `inputs` word count from the step's first
 * pointer-table entry; entries with data_at >= 0 point into the step's data. */
typedef struct {
    int32_t words[STEP_WORDS], n_words, n_index, index_word;
    int32_t index[8];
    const void *ptrs[STEP_PTRS];
    int32_t data_at[STEP_PTRS], n_ptrs;
    int32_t data[STEP_DATA], n_data;
} bf_step;

/* A kernel object of burnflex: plan() takes only C functions of its type as steps. */
extern const mp_obj_fun_builtin_var_t bf_requantize_s8_obj;

/* While plan() records: where the recorders put their step (a native module's bss cannot
 * be static). NULL otherwise. */
bf_step *bf_recording;

static void word(bf_step *s, int32_t v) {
    s->words[s->n_words++] = v;
}

static void ptr(bf_step *s, const void *p, int32_t data_words, const int32_t *data) {
    int32_t i;
    if (!p) {
        s->index[s->n_index++] = -1;
        return;
    }
    s->index[s->n_index++] = s->n_ptrs;
    s->data_at[s->n_ptrs] = data_words ? s->n_data : -1;
    s->ptrs[s->n_ptrs++] = p;
    for (i = 0; i < data_words; i++)
        s->data[s->n_data++] = data[i];
}

/* Encode kernel call `op` from its arguments, described by `fmt`: w an int32_t, n a size_t,
 * p a pointer, 4 / W / A / M a flex_dims4 or flex_s8_quant / flex_window / add / mul
 * parameter block (4 / 10 / 12 / 7 fields), D / V pad's pads (8) / value (1 word) as data,
 * C concat's inputs (as many as the word before). Then run it, or give it to plan(). */
static flex_status call(int32_t op, const char *fmt, ...) {
    static const char blocks[] = "4WAM";
    static const uint8_t fields[] = {4, 10, 12, 7};
    bf_step s;
    void *table[STEP_PTRS];
    va_list ap;
    int32_t i;
    flex_status status;
    s.words[0] = op;
    s.n_words = 3;
    s.n_index = s.n_ptrs = s.n_data = 0;
    s.index_word = -1;
    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        const char *b = blocks;
        while (*b && *b != *fmt)
            b++;
        if (*b) {
            const int32_t *f = va_arg(ap, const int32_t *);
            for (i = 0; i < fields[b - blocks]; i++)
                word(&s, f[i]);
        } else if (*fmt == 'w') {
            word(&s, va_arg(ap, int32_t));
        } else if (*fmt == 'n') {
            word(&s, (int32_t)va_arg(ap, size_t));
        } else if (*fmt == 'p') {
            ptr(&s, va_arg(ap, const void *), 0, NULL);
        } else if (*fmt == 'D' || *fmt == 'V') {
            const int32_t *d = va_arg(ap, const int32_t *);
            ptr(&s, d, *fmt == 'D' ? 8 : 1, d);
        } else { /* C: consecutive table entries, never NULL */
            const void *const *inputs = va_arg(ap, const void *const *);
            s.index_word = s.n_words;
            word(&s, 0);
            for (i = 0; i < s.words[s.index_word - 1]; i++) {
                s.data_at[s.n_ptrs] = -1;
                s.ptrs[s.n_ptrs++] = inputs[i];
            }
        }
    }
    va_end(ap);
    s.words[1] = s.n_words - 3;
    s.words[2] = s.n_index;
    for (i = 0; i < s.n_index; i++)
        s.words[s.n_words++] = s.index[i];
    if (bf_recording) {
        *bf_recording = s;
        return FLEX_OK;
    }
    for (i = 0; i < s.n_ptrs; i++)
        table[i] = (void *)(s.data_at[i] < 0 ? s.ptrs[i] : s.data + s.data_at[i]);
    /* one core (a model that runs op by op), stopping at Ctrl-C */
    status = flex_plan_run_on(s.words, (size_t)s.n_words, table, (size_t)s.n_ptrs, NULL,
                              bf_cores(1, NULL, 0, NULL, 0));
    bf_cores_after(status);
    return status;
}

#define P(x) ((const void *)(x))

flex_status bf_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                         const int8_t *filter, size_t filter_len, const int32_t *bias,
                         size_t bias_len, const int32_t *multiplier, const int32_t *shift,
                         size_t quant_len, const flex_window *win, int32_t groups,
                         const flex_s8_quant *q, const flex_dims4 *out_dims, int8_t *output,
                         size_t output_len) {
    return call(FLEX_OP_S8_CONV2D, "4pnpnpnppnWw44pn", P(in_dims), P(input), input_len,
                P(filter), filter_len, P(bias), bias_len, P(multiplier), P(shift), quant_len,
                P(win), groups, P(q), P(out_dims), P(output), output_len);
}

flex_status bf_s8_depthwise_conv2d(const flex_dims4 *in_dims, const int8_t *input,
                                   size_t input_len, const int8_t *filter, size_t filter_len,
                                   const int32_t *bias, size_t bias_len,
                                   const int32_t *multiplier, const int32_t *shift,
                                   size_t quant_len, const flex_window *win,
                                   int32_t depth_multiplier, const flex_s8_quant *q,
                                   const flex_dims4 *out_dims, int8_t *output,
                                   size_t output_len) {
    return call(FLEX_OP_S8_DEPTHWISE_CONV2D, "4pnpnpnppnWw44pn", P(in_dims), P(input),
                input_len, P(filter), filter_len, P(bias), bias_len, P(multiplier), P(shift),
                quant_len, P(win), depth_multiplier, P(q), P(out_dims), P(output), output_len);
}

flex_status bf_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                  const int8_t *input, size_t input_len, const int8_t *filter,
                                  size_t filter_len, int32_t filter_offset,
                                  const int32_t *bias, size_t bias_len,
                                  const int32_t *multiplier, const int32_t *shift,
                                  size_t quant_len, const flex_s8_quant *q, int8_t *output,
                                  size_t output_len) {
    return call(FLEX_OP_S8_FULLY_CONNECTED, "wwwpnpnwpnppn4pn", batches, in_features,
                out_features, P(input), input_len, P(filter), filter_len, filter_offset,
                P(bias), bias_len, P(multiplier), P(shift), quant_len, P(q), P(output),
                output_len);
}

flex_status bf_s8_add(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                      const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                      const flex_s8_add_params *p, const flex_dims4 *out_dims, int8_t *output,
                      size_t output_len) {
    return call(FLEX_OP_S8_ADD, "4pn4pnA4pn", P(in1_dims), P(in1), in1_len, P(in2_dims),
                P(in2), in2_len, P(p), P(out_dims), P(output), output_len);
}

flex_status bf_s8_mul(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                      const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                      const flex_s8_mul_params *p, const flex_dims4 *out_dims, int8_t *output,
                      size_t output_len) {
    return call(FLEX_OP_S8_MUL, "4pn4pnM4pn", P(in1_dims), P(in1), in1_len, P(in2_dims),
                P(in2), in2_len, P(p), P(out_dims), P(output), output_len);
}

flex_status bf_s8_avg_pool2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                             const flex_window *win, int32_t act_min, int32_t act_max,
                             const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return call(FLEX_OP_S8_AVG_POOL2D, "4pnWww4pn", P(in_dims), P(input), input_len, P(win),
                act_min, act_max, P(out_dims), P(output), output_len);
}

flex_status bf_s8_max_pool2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                             const flex_window *win, int32_t act_min, int32_t act_max,
                             const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    return call(FLEX_OP_S8_MAX_POOL2D, "4pnWww4pn", P(in_dims), P(input), input_len, P(win),
                act_min, act_max, P(out_dims), P(output), output_len);
}

flex_status bf_s8_mean(int32_t outer, int32_t reduce, int32_t inner, const int8_t *input,
                       size_t input_len, int32_t input_zero_point, int32_t multiplier,
                       int32_t shift, int32_t output_zero_point, int8_t *output,
                       size_t output_len) {
    return call(FLEX_OP_S8_MEAN, "wwwpnwwwwpn", outer, reduce, inner, P(input), input_len,
                input_zero_point, multiplier, shift, output_zero_point, P(output), output_len);
}

flex_status bf_s8_softmax(int32_t outer, int32_t depth, const int8_t *input, size_t input_len,
                          int32_t input_multiplier, int32_t input_left_shift,
                          int32_t diff_min, int8_t *output, size_t output_len) {
    return call(FLEX_OP_S8_SOFTMAX, "wwpnwwwpn", outer, depth, P(input), input_len,
                input_multiplier, input_left_shift, diff_min, P(output), output_len);
}

flex_status bf_s8_logistic(size_t n, const int8_t *input, int32_t input_zero_point,
                           int32_t input_range_radius, int32_t input_multiplier,
                           int32_t input_left_shift, int8_t *output) {
    return call(FLEX_OP_S8_LOGISTIC, "npwwwwp", n, P(input), input_zero_point,
                input_range_radius, input_multiplier, input_left_shift, P(output));
}

flex_status bf_s8_tanh(size_t n, const int8_t *input, int32_t input_zero_point,
                       int32_t input_range_radius, int32_t input_multiplier,
                       int32_t input_left_shift, int8_t *output) {
    return call(FLEX_OP_S8_TANH, "npwwwwp", n, P(input), input_zero_point, input_range_radius,
                input_multiplier, input_left_shift, P(output));
}

flex_status bf_s8_requantize(size_t n, const int8_t *input, int32_t input_zero_point,
                             int32_t multiplier, int32_t shift, int32_t output_zero_point,
                             int8_t *output) {
    return call(FLEX_OP_S8_REQUANTIZE, "npwwwwp", n, P(input), input_zero_point, multiplier,
                shift, output_zero_point, P(output));
}

flex_status bf_pad(int32_t elem_size, const flex_dims4 *in_dims, const void *input,
                   size_t input_len, const int32_t *pads, const void *pad_value, void *output,
                   size_t output_len) {
    return call(FLEX_OP_PAD, "w4pnDVpn", elem_size, P(in_dims), input, input_len, P(pads),
                pad_value, P(output), output_len);
}

flex_status bf_concat(int32_t elem_size, int32_t n_inputs, const void *const *inputs,
                      const int32_t *axis_sizes, int32_t outer, int32_t inner, void *output,
                      size_t output_len) {
    return call(FLEX_OP_CONCAT, "wwCpwwpn", elem_size, n_inputs, inputs, P(axis_sizes), outer,
                inner, P(output), output_len);
}

/* ---- plan(steps) and run_plan(words, pointers) ---------------------------------------- */

/* The sizes and contents of a plan under construction: words[0] is the number of step
 * words, the steps follow, then the data area; NULL arrays only count. */
typedef struct {
    int32_t *words;
    const void **ptrs;
    int32_t n_steps_words, n_data, n_ptrs;
} plan_out;

/* Append step `s` to `out` (or count it). */
static void emit(plan_out *out, int32_t data_base, const bf_step *s) {
    int32_t i;
    if (out->words) {
        int32_t *w = out->words + 1 + out->n_steps_words;
        for (i = 0; i < s->n_words; i++)
            w[i] = s->words[i];
        for (i = 0; i < s->n_index; i++) /* rebase the pointer indices */
            if (w[3 + w[1] + i] >= 0)
                w[3 + w[1] + i] += out->n_ptrs;
        if (s->index_word >= 0)
            w[s->index_word] += out->n_ptrs;
        for (i = 0; i < s->n_data; i++)
            out->words[data_base + out->n_data + i] = s->data[i];
        for (i = 0; i < s->n_ptrs; i++)
            out->ptrs[out->n_ptrs + i] = s->data_at[i] < 0 ? s->ptrs[i] :
                out->words + data_base + out->n_data + s->data_at[i];
    }
    out->n_steps_words += s->n_words;
    out->n_data += s->n_data;
    out->n_ptrs += s->n_ptrs;
}

/* Step k of plan(): a copy (None, (src, dst, nbytes)), checked here, or a kernel call,
 * which must be a C function like burnflex's own (no Python code may run while recording,
 * nothing may raise: the same call has just succeeded). */
static void step(int32_t op, mp_obj_t kernel, mp_obj_t args, int copy) {
    static const char name[] = "plan";
    mp_obj_t *items;
    size_t n;
    bf_buf src, dst;
    int32_t nbytes = 0;
    mp_obj_get_array(args, &n, &items);
    if (copy) {
        if (n != 3)
            bf_raise(name, "a copy is (None, (src, dst, nbytes))");
        src = bf_buffer(name, items, 0, BF_ANY, 0);
        dst = bf_buffer(name, items, 1, BF_ANY, 1);
        nbytes = bf_int(name, items[2]);
        if (nbytes < 0 || src.len * src.itemsize < (size_t)nbytes ||
            dst.len * dst.itemsize < (size_t)nbytes)
            bf_raise(name, flex_status_str(FLEX_E_SIZE));
        bf_check(name, call(op, "wpp", nbytes, P(src.data), P(dst.data)));
    } else {
        if (!mp_obj_is_obj(kernel) || ((mp_obj_base_t *)MP_OBJ_TO_PTR(kernel))->type !=
                                          bf_requantize_s8_obj.base.type)
            bf_raise(name, "a step is (burnflex kernel, args)");
        mp_call_function_n_kw(kernel, n, 0, items);
    }
}

/* Run (when `run`) and record every step into `out`. */
static void record(mp_obj_t steps, plan_out *out, int32_t data_base, int run) {
    mp_obj_t *items, *pair;
    size_t n, k, n_pair;
    bf_step s;
    mp_obj_get_array(steps, &n, &items);
    for (k = 0; k < n; k++) {
        mp_obj_get_array(items[k], &n_pair, &pair);
        if (n_pair != 2)
            bf_raise("plan", "a step is (kernel, args)");
        if (run)
            step(FLEX_OP_COPY, pair[0], pair[1], pair[0] == mp_const_none);
        s.n_words = 0;
        bf_recording = &s;
        step(FLEX_OP_COPY, pair[0], pair[1], pair[0] == mp_const_none);
        bf_recording = NULL;
        if (!s.n_words)
            bf_raise("plan", "a kernel without a plan step (float32)");
        emit(out, data_base, &s);
    }
}

/* burnflex.plan(steps): run the steps once (the kernels' own checks apply), then record
 * them; returns (words, pointers) for run_plan. A step is (kernel, args) with a burnflex
 * int8 or layout kernel, or (None, (src, dst, nbytes)) for a byte copy. */
static mp_obj_t plan(mp_obj_t steps) {
    plan_out out = {NULL, NULL, 0, 0, 0};
    mp_obj_t result[2];
    int32_t data_base;
    bf_recording = NULL;
    record(steps, &out, 0, 1);
    data_base = 1 + out.n_steps_words;
    out.words = m_new(int32_t, data_base + out.n_data);
    out.ptrs = m_new(const void *, out.n_ptrs > 0 ? out.n_ptrs : 1);
    out.words[0] = out.n_steps_words;
    result[0] = mp_obj_new_bytearray_by_ref(sizeof(int32_t) * (data_base + out.n_data),
                                            out.words);
    result[1] = mp_obj_new_bytearray_by_ref(sizeof(void *) * out.n_ptrs, out.ptrs);
    out.n_steps_words = out.n_data = out.n_ptrs = 0;
    record(steps, &out, data_base, 0);
    return mp_obj_new_tuple(2, result);
}
MP_DEFINE_CONST_FUN_OBJ_1(bf_plan_obj, plan);

/* burnflex.run_plan(words, pointers[, cores[, record[, spare]]]): the whole plan in one
 * flex_plan_run_on call, on `cores` cores (default 2 where the firmware has the second),
 * each step's split written to `record` (an array('i') of FLEX_SPLIT_WORDS per step) and
 * `spare` (a bytearray) lent to the steps whose parts would overlap. */
static mp_obj_t run_plan(size_t n_args, const mp_obj_t *args) {
    char op[] = "run_plan step 00000";
    mp_buffer_info_t words, ptrs, record = {0}, spare = {0};
    int32_t failed = 0, digits = 1, v, n_cores = 2;
    const int32_t *w;
    flex_status status;
    mp_get_buffer_raise(args[0], &words, MP_BUFFER_READ);
    mp_get_buffer_raise(args[1], &ptrs, MP_BUFFER_READ);
    if (n_args > 2)
        n_cores = mp_obj_get_int(args[2]);
    if (n_args > 3 && args[3] != mp_const_none)
        mp_get_buffer_raise(args[3], &record, MP_BUFFER_WRITE);
    if (n_args > 4 && args[4] != mp_const_none)
        mp_get_buffer_raise(args[4], &spare, MP_BUFFER_WRITE);
    w = (const int32_t *)words.buf;
    if (words.len < sizeof(int32_t) || ((uintptr_t)w & 3) || ((uintptr_t)ptrs.buf & 3) ||
        ((uintptr_t)record.buf & 3) || w[0] < 0 ||
        (size_t)w[0] > words.len / sizeof(int32_t) - 1)
        bf_raise("run_plan", "not a plan");
    if (n_cores < 1 || n_cores > 2)
        bf_raise("run_plan", "cores must be 1 or 2");
    status = flex_plan_run_on(w + 1, (size_t)w[0], (void *const *)ptrs.buf,
                              ptrs.len / sizeof(void *), &failed,
                              bf_cores(n_cores, (int32_t *)record.buf,
                                       record.len / sizeof(int32_t), (int8_t *)spare.buf,
                                       spare.len));
    bf_cores_after(status);
    if (status != FLEX_OK) {
        for (v = failed; v >= 10 && digits < 5; v /= 10)
            digits++;
        op[14 + digits] = 0;
        for (v = failed; digits--; v /= 10)
            op[14 + digits] = (char)('0' + v % 10);
        bf_raise(op, flex_status_str(status));
    }
    return mp_const_none;
}
MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_run_plan_obj, 2, 5, run_plan);

#endif

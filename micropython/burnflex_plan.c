/* A whole model in one call on the board: burnflex.plan(steps) turns the kernel calls of a
 * model into the steps of flex_plan_run (flex.h), burnflex.run_plan(words, pointers) runs
 * them. The bindings convert their arguments as always; burnflex.h renames the kernels they
 * call to the recorders below, which call the kernel, or, while plan() records a step, write
 * its arguments into `bf_rec` instead. Parameter blocks become words; pad's pad list and
 * value, which point at the binding's stack, are copied into a data area after the steps. */
#define BF_PLAN_IMPL
#include "burnflex.h"

#if BURNFLEX_PLAN

#define STEP_WORDS 48 /* header, words and pointer indices of the largest step */
#define STEP_PTRS (BF_MAX_CONCAT + 2)
#define STEP_DATA 9 /* pad's eight pads and its value */

/* The step being recorded: pointer indices and concat's `inputs` word count from the
 * step's first pointer-table entry; entries with data_at >= 0 point into the data area. */
typedef struct {
    int active, done;
    int32_t words[STEP_WORDS], n_words, n_index, index_word;
    int32_t index[8];
    const void *ptrs[STEP_PTRS];
    int32_t data_at[STEP_PTRS], n_ptrs;
    int32_t data[STEP_DATA], n_data;
} bf_recorder;

bf_recorder bf_rec; /* a native module's bss cannot be static */

static void begin(int32_t op) {
    bf_rec.words[0] = op;
    bf_rec.n_words = 3;
    bf_rec.n_index = bf_rec.n_ptrs = bf_rec.n_data = 0;
    bf_rec.index_word = -1;
}

static void word(int32_t v) {
    bf_rec.words[bf_rec.n_words++] = v;
}

static void block(const void *fields, int32_t count) {
    const int32_t *f = (const int32_t *)fields;
    int32_t i;
    for (i = 0; i < count; i++)
        word(f[i]);
}

static void ptr(const void *p) {
    if (!p) {
        bf_rec.index[bf_rec.n_index++] = -1;
        return;
    }
    bf_rec.index[bf_rec.n_index++] = bf_rec.n_ptrs;
    bf_rec.data_at[bf_rec.n_ptrs] = -1;
    bf_rec.ptrs[bf_rec.n_ptrs++] = p;
}

static void data_ptr(const void *fields, int32_t count) {
    const int32_t *f = (const int32_t *)fields;
    int32_t i;
    bf_rec.index[bf_rec.n_index++] = bf_rec.n_ptrs;
    bf_rec.data_at[bf_rec.n_ptrs++] = bf_rec.n_data;
    for (i = 0; i < count; i++)
        bf_rec.data[bf_rec.n_data++] = f[i];
}

static flex_status end(void) {
    int32_t i;
    bf_rec.words[1] = bf_rec.n_words - 3;
    bf_rec.words[2] = bf_rec.n_index;
    for (i = 0; i < bf_rec.n_index; i++)
        bf_rec.words[bf_rec.n_words++] = bf_rec.index[i];
    bf_rec.done = 1;
    return FLEX_OK;
}

#define N(v) word((int32_t)(v))

typedef flex_status (*conv_fn)(const flex_dims4 *, const int8_t *, size_t, const int8_t *,
                               size_t, const int32_t *, size_t, const int32_t *,
                               const int32_t *, size_t, const flex_window *, int32_t,
                               const flex_s8_quant *, const flex_dims4 *, int8_t *, size_t);

static flex_status conv(int32_t op, conv_fn kernel, const flex_dims4 *in_dims,
                        const int8_t *input, size_t input_len, const int8_t *filter,
                        size_t filter_len, const int32_t *bias, size_t bias_len,
                        const int32_t *multiplier, const int32_t *shift, size_t quant_len,
                        const flex_window *win, int32_t param, const flex_s8_quant *q,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    if (!bf_rec.active)
        return kernel(in_dims, input, input_len, filter, filter_len, bias, bias_len,
                      multiplier, shift, quant_len, win, param, q, out_dims, output,
                      output_len);
    begin(op);
    block(in_dims, 4), ptr(input), N(input_len), ptr(filter), N(filter_len), ptr(bias);
    N(bias_len), ptr(multiplier), ptr(shift), N(quant_len), block(win, 10), word(param);
    block(q, 4), block(out_dims, 4), ptr(output), N(output_len);
    return end();
}

flex_status bf_s8_conv2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                         const int8_t *filter, size_t filter_len, const int32_t *bias,
                         size_t bias_len, const int32_t *multiplier, const int32_t *shift,
                         size_t quant_len, const flex_window *win, int32_t groups,
                         const flex_s8_quant *q, const flex_dims4 *out_dims, int8_t *output,
                         size_t output_len) {
    return conv(FLEX_OP_S8_CONV2D, flex_s8_conv2d, in_dims, input, input_len, filter,
                filter_len, bias, bias_len, multiplier, shift, quant_len, win, groups, q,
                out_dims, output, output_len);
}

flex_status bf_s8_depthwise_conv2d(const flex_dims4 *in_dims, const int8_t *input,
                                   size_t input_len, const int8_t *filter, size_t filter_len,
                                   const int32_t *bias, size_t bias_len,
                                   const int32_t *multiplier, const int32_t *shift,
                                   size_t quant_len, const flex_window *win,
                                   int32_t depth_multiplier, const flex_s8_quant *q,
                                   const flex_dims4 *out_dims, int8_t *output,
                                   size_t output_len) {
    return conv(FLEX_OP_S8_DEPTHWISE_CONV2D, flex_s8_depthwise_conv2d, in_dims, input,
                input_len, filter, filter_len, bias, bias_len, multiplier, shift, quant_len,
                win, depth_multiplier, q, out_dims, output, output_len);
}

flex_status bf_s8_fully_connected(int32_t batches, int32_t in_features, int32_t out_features,
                                  const int8_t *input, size_t input_len, const int8_t *filter,
                                  size_t filter_len, int32_t filter_offset,
                                  const int32_t *bias, size_t bias_len,
                                  const int32_t *multiplier, const int32_t *shift,
                                  size_t quant_len, const flex_s8_quant *q, int8_t *output,
                                  size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_fully_connected(batches, in_features, out_features, input, input_len,
                                       filter, filter_len, filter_offset, bias, bias_len,
                                       multiplier, shift, quant_len, q, output, output_len);
    begin(FLEX_OP_S8_FULLY_CONNECTED);
    word(batches), word(in_features), word(out_features), ptr(input), N(input_len);
    ptr(filter), N(filter_len), word(filter_offset), ptr(bias), N(bias_len);
    ptr(multiplier), ptr(shift), N(quant_len), block(q, 4), ptr(output), N(output_len);
    return end();
}

static flex_status binary(int32_t op, int32_t fields, const flex_dims4 *in1_dims,
                          const int8_t *in1, size_t in1_len, const flex_dims4 *in2_dims,
                          const int8_t *in2, size_t in2_len, const void *p,
                          const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    begin(op);
    block(in1_dims, 4), ptr(in1), N(in1_len), block(in2_dims, 4), ptr(in2), N(in2_len);
    block(p, fields), block(out_dims, 4), ptr(output), N(output_len);
    return end();
}

flex_status bf_s8_add(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                      const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                      const flex_s8_add_params *p, const flex_dims4 *out_dims, int8_t *output,
                      size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_add(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                           output, output_len);
    return binary(FLEX_OP_S8_ADD, 12, in1_dims, in1, in1_len, in2_dims, in2, in2_len, p,
                  out_dims, output, output_len);
}

flex_status bf_s8_mul(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                      const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                      const flex_s8_mul_params *p, const flex_dims4 *out_dims, int8_t *output,
                      size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_mul(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                           output, output_len);
    return binary(FLEX_OP_S8_MUL, 7, in1_dims, in1, in1_len, in2_dims, in2, in2_len, p,
                  out_dims, output, output_len);
}

static flex_status pool(int32_t op, const flex_dims4 *in_dims, const int8_t *input,
                        size_t input_len, const flex_window *win, int32_t act_min,
                        int32_t act_max, const flex_dims4 *out_dims, int8_t *output,
                        size_t output_len) {
    begin(op);
    block(in_dims, 4), ptr(input), N(input_len), block(win, 10), word(act_min);
    word(act_max), block(out_dims, 4), ptr(output), N(output_len);
    return end();
}

flex_status bf_s8_avg_pool2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                             const flex_window *win, int32_t act_min, int32_t act_max,
                             const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_avg_pool2d(in_dims, input, input_len, win, act_min, act_max, out_dims,
                                  output, output_len);
    return pool(FLEX_OP_S8_AVG_POOL2D, in_dims, input, input_len, win, act_min, act_max,
                out_dims, output, output_len);
}

flex_status bf_s8_max_pool2d(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                             const flex_window *win, int32_t act_min, int32_t act_max,
                             const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_max_pool2d(in_dims, input, input_len, win, act_min, act_max, out_dims,
                                  output, output_len);
    return pool(FLEX_OP_S8_MAX_POOL2D, in_dims, input, input_len, win, act_min, act_max,
                out_dims, output, output_len);
}

flex_status bf_s8_mean(int32_t outer, int32_t reduce, int32_t inner, const int8_t *input,
                       size_t input_len, int32_t input_zero_point, int32_t multiplier,
                       int32_t shift, int32_t output_zero_point, int8_t *output,
                       size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_mean(outer, reduce, inner, input, input_len, input_zero_point,
                            multiplier, shift, output_zero_point, output, output_len);
    begin(FLEX_OP_S8_MEAN);
    word(outer), word(reduce), word(inner), ptr(input), N(input_len), word(input_zero_point);
    word(multiplier), word(shift), word(output_zero_point), ptr(output), N(output_len);
    return end();
}

flex_status bf_s8_softmax(int32_t outer, int32_t depth, const int8_t *input, size_t input_len,
                          int32_t input_multiplier, int32_t input_left_shift,
                          int32_t diff_min, int8_t *output, size_t output_len) {
    if (!bf_rec.active)
        return flex_s8_softmax(outer, depth, input, input_len, input_multiplier,
                               input_left_shift, diff_min, output, output_len);
    begin(FLEX_OP_S8_SOFTMAX);
    word(outer), word(depth), ptr(input), N(input_len), word(input_multiplier);
    word(input_left_shift), word(diff_min), ptr(output), N(output_len);
    return end();
}

/* logistic, tanh and requantize: (n, input, four int32 values, output) */
static flex_status unary(int32_t op, size_t n, const int8_t *input, int32_t a, int32_t b,
                         int32_t c, int32_t d, int8_t *output) {
    begin(op);
    N(n), ptr(input), word(a), word(b), word(c), word(d), ptr(output);
    return end();
}

flex_status bf_s8_logistic(size_t n, const int8_t *input, int32_t input_zero_point,
                           int32_t input_range_radius, int32_t input_multiplier,
                           int32_t input_left_shift, int8_t *output) {
    if (!bf_rec.active)
        return flex_s8_logistic(n, input, input_zero_point, input_range_radius,
                                input_multiplier, input_left_shift, output);
    return unary(FLEX_OP_S8_LOGISTIC, n, input, input_zero_point, input_range_radius,
                 input_multiplier, input_left_shift, output);
}

flex_status bf_s8_tanh(size_t n, const int8_t *input, int32_t input_zero_point,
                       int32_t input_range_radius, int32_t input_multiplier,
                       int32_t input_left_shift, int8_t *output) {
    if (!bf_rec.active)
        return flex_s8_tanh(n, input, input_zero_point, input_range_radius, input_multiplier,
                            input_left_shift, output);
    return unary(FLEX_OP_S8_TANH, n, input, input_zero_point, input_range_radius,
                 input_multiplier, input_left_shift, output);
}

flex_status bf_s8_requantize(size_t n, const int8_t *input, int32_t input_zero_point,
                             int32_t multiplier, int32_t shift, int32_t output_zero_point,
                             int8_t *output) {
    if (!bf_rec.active)
        return flex_s8_requantize(n, input, input_zero_point, multiplier, shift,
                                  output_zero_point, output);
    return unary(FLEX_OP_S8_REQUANTIZE, n, input, input_zero_point, multiplier, shift,
                 output_zero_point, output);
}

flex_status bf_pad(int32_t elem_size, const flex_dims4 *in_dims, const void *input,
                   size_t input_len, const int32_t *pads, const void *pad_value, void *output,
                   size_t output_len) {
    if (!bf_rec.active)
        return flex_pad(elem_size, in_dims, input, input_len, pads, pad_value, output,
                        output_len);
    begin(FLEX_OP_PAD);
    word(elem_size), block(in_dims, 4), ptr(input), N(input_len), data_ptr(pads, 8);
    data_ptr(pad_value, 1), ptr(output), N(output_len);
    return end();
}

flex_status bf_concat(int32_t elem_size, int32_t n_inputs, const void *const *inputs,
                      const int32_t *axis_sizes, int32_t outer, int32_t inner, void *output,
                      size_t output_len) {
    int32_t k;
    if (!bf_rec.active)
        return flex_concat(elem_size, n_inputs, inputs, axis_sizes, outer, inner, output,
                           output_len);
    begin(FLEX_OP_CONCAT);
    word(elem_size), word(n_inputs);
    bf_rec.index_word = bf_rec.n_words;
    word(bf_rec.n_ptrs);
    for (k = 0; k < n_inputs; k++) { /* consecutive table entries, never NULL */
        bf_rec.data_at[bf_rec.n_ptrs] = -1;
        bf_rec.ptrs[bf_rec.n_ptrs++] = inputs[k];
    }
    ptr(axis_sizes), word(outer), word(inner), ptr(output), N(output_len);
    return end();
}

/* ---- plan(steps) and run_plan(words, pointers) ---------------------------------------- */

/* The sizes and contents of a plan under construction: words[0] is the number of step
 * words, the steps follow, then the data area; NULL arrays only count. */
typedef struct {
    int32_t *words;
    const void **ptrs;
    int32_t n_steps_words, n_data, n_ptrs;
} plan_out;

/* Append the recorded step to `out` (or count it). */
static void emit(plan_out *out, int32_t data_base) {
    int32_t i;
    if (out->words) {
        int32_t *w = out->words + 1 + out->n_steps_words;
        for (i = 0; i < bf_rec.n_words; i++)
            w[i] = bf_rec.words[i];
        for (i = 0; i < bf_rec.n_index; i++) /* rebase the pointer indices */
            if (w[3 + w[1] + i] >= 0)
                w[3 + w[1] + i] += out->n_ptrs;
        if (bf_rec.index_word >= 0)
            w[bf_rec.index_word] += out->n_ptrs;
        for (i = 0; i < bf_rec.n_data; i++)
            out->words[data_base + out->n_data + i] = bf_rec.data[i];
        for (i = 0; i < bf_rec.n_ptrs; i++)
            out->ptrs[out->n_ptrs + i] = bf_rec.data_at[i] < 0 ? bf_rec.ptrs[i] :
                out->words + data_base + out->n_data + bf_rec.data_at[i];
    }
    out->n_steps_words += bf_rec.n_words;
    out->n_data += bf_rec.n_data;
    out->n_ptrs += bf_rec.n_ptrs;
}

/* A copy step (None, (src, dst, nbytes)): checked, recorded, and run when `run`. */
static void copy_step(mp_obj_t args, int run) {
    static const char op[] = "plan copy";
    mp_obj_t *items;
    size_t n;
    bf_buf src, dst;
    int32_t nbytes;
    mp_obj_get_array(args, &n, &items);
    if (n != 3)
        bf_raise(op, "expected (src, dst, nbytes)");
    src = bf_buffer(op, items, 0, BF_ANY, 0);
    dst = bf_buffer(op, items, 1, BF_ANY, 1);
    nbytes = bf_int(op, items[2]);
    if (nbytes < 0 || src.len * src.itemsize < (size_t)nbytes ||
        dst.len * dst.itemsize < (size_t)nbytes)
        bf_raise(op, flex_status_str(FLEX_E_SIZE));
    begin(FLEX_OP_COPY);
    word(nbytes), ptr(src.data), ptr(dst.data);
    end();
    if (run) {
        void *const table[2] = {src.data, dst.data};
        const int32_t step[6] = {FLEX_OP_COPY, 1, 2, nbytes, 0, 1};
        bf_check(op, flex_plan_run(step, 6, table, 2, NULL));
    }
}

/* Run (pass 0 only) and record every step into `out`. */
static void record(mp_obj_t steps, plan_out *out, int32_t data_base, int run) {
    static const char op[] = "plan";
    mp_obj_t *items, *pair, *args;
    size_t n, k, n_pair, n_args;
    mp_obj_get_array(steps, &n, &items);
    for (k = 0; k < n; k++) {
        mp_obj_get_array(items[k], &n_pair, &pair);
        if (n_pair != 2)
            bf_raise(op, "a step is (kernel, args)");
        if (pair[0] == mp_const_none) {
            copy_step(pair[1], run);
        } else {
            mp_obj_get_array(pair[1], &n_args, &args);
            if (run)
                mp_call_function_n_kw(pair[0], n_args, 0, args);
            /* the same call as the run that just succeeded: converting cannot fail now */
            bf_rec.done = 0;
            bf_rec.active = 1;
            mp_call_function_n_kw(pair[0], n_args, 0, args);
            bf_rec.active = 0;
            if (!bf_rec.done)
                bf_raise(op, "a kernel without a plan step (float32)");
        }
        emit(out, data_base);
    }
}

/* burnflex.plan(steps): run the steps once (the kernels' own checks apply), then record
 * them; returns (words, pointers) for run_plan. A step is (kernel, args) with a burnflex
 * int8 or layout kernel, or (None, (src, dst, nbytes)) for a byte copy. */
static mp_obj_t plan(mp_obj_t steps) {
    plan_out out = {NULL, NULL, 0, 0, 0};
    mp_obj_t result[2];
    int32_t data_base;
    bf_rec.active = 0;
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

/* burnflex.run_plan(words, pointers): the whole plan in one flex_plan_run call. */
static mp_obj_t run_plan(mp_obj_t words_obj, mp_obj_t ptrs_obj) {
    char op[] = "run_plan step 00000";
    mp_buffer_info_t words, ptrs;
    int32_t failed = 0, digits = 1, v;
    const int32_t *w;
    flex_status status;
    mp_get_buffer_raise(words_obj, &words, MP_BUFFER_READ);
    mp_get_buffer_raise(ptrs_obj, &ptrs, MP_BUFFER_READ);
    w = (const int32_t *)words.buf;
    if (words.len < sizeof(int32_t) || ((uintptr_t)w & 3) || ((uintptr_t)ptrs.buf & 3) ||
        w[0] < 0 || (size_t)w[0] > words.len / sizeof(int32_t) - 1)
        bf_raise("run_plan", "not a plan");
    status = flex_plan_run(w + 1, (size_t)w[0], (void *const *)ptrs.buf,
                           ptrs.len / sizeof(void *), &failed);
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
MP_DEFINE_CONST_FUN_OBJ_2(bf_run_plan_obj, run_plan);

#endif

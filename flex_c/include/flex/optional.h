/* flex/optional.h - part of flex.h, which includes it (include flex.h, not this file):
 * the kernels of the optional ops (flex_c/src/extra) that the groups above
 * do not hold. */
#ifndef FLEX_API_OPTIONAL_H
#define FLEX_API_OPTIONAL_H

#include "types.h"

/* ---- optional ops (flex_c/src/extra; burn.graph.ops.OPTIONAL) --------------------- */

/* output[i] = table[(uint8_t)input[i]]: any int8 elementwise op whose output depends on
 * one input value, its 256 results made ahead (indexed by the input's raw byte); output
 * may alias input. */
flex_status flex_s8_lookup(size_t n, const int8_t *input, const int8_t *table,
                           int8_t *output);

/* The float32 activations of TFLite's unary ops: the flex_f32_unary codes, and ELU
 * (x < 0 ? expm1(x) : x), HARD_SWISH (x * min(max(x + 3, 0), 6) / 6), LEAKY_RELU
 * (x > 0 ? x : alpha * x) and HARD_SIGMOID (min(max(alpha * x + 0.5, 0), 1), ONNX's
 * HardSigmoid with beta 0.5); alpha is read by LEAKY_RELU and HARD_SIGMOID only. output
 * may alias input. */
#define FLEX_ACTIVATION_ELU 32
#define FLEX_ACTIVATION_HARD_SWISH 33
#define FLEX_ACTIVATION_LEAKY_RELU 34
#define FLEX_ACTIVATION_HARD_SIGMOID 35
flex_status flex_f32_activation(int32_t op, size_t n, const float *input, float alpha,
                                float *output);

/* PRELU: output[i] = x >= 0 ? x : alpha * x, x = input[i], alpha = alpha[i % alpha_len]
 * (alpha broadcast along the innermost dims; alpha_len divides n); output may alias input.
 * int8 as TFLM's BroadcastPrelu4DSlow: the positive side requantized by pos_mult/pos_shift,
 * the negative side's product (x - input zero point) * (alpha - alpha zero point) by
 * neg_mult/neg_shift; shifts at most 15, so no product overflows. */
typedef struct {
    int32_t input_offset, alpha_offset, output_offset;
    int32_t pos_mult, pos_shift, neg_mult, neg_shift;
} flex_s8_prelu_params;
flex_status flex_s8_prelu(size_t n, const int8_t *input, const int8_t *alpha, size_t alpha_len,
                          const flex_s8_prelu_params *p, int8_t *output);
/* int16 PRELU with an int8 alpha (TFLM's int16x8 PRELU): flex_s8_prelu's arithmetic on
 * int16 input and output (their zero points within int16), neg_shift at most 7. */
flex_status flex_s16_prelu(size_t n, const int16_t *input, const int8_t *alpha,
                           size_t alpha_len, const flex_s8_prelu_params *p, int16_t *output);
flex_status flex_f32_prelu(size_t n, const float *input, const float *alpha, size_t alpha_len,
                           float *output);

/* LOG_SOFTMAX over the last axis of [rows, depth] (depth at most 4095), int8 as TFLM's
 * LogSoftmaxQuantized: output scale 16/256, zero point 127; input scaling as softmax's
 * (multiplier, left shift, diff_min) and its reverse (multiplier, shift <= 0). float32 is
 * flex_f32_log_softmax. */
flex_status flex_s8_log_softmax(int32_t rows, int32_t depth, const int8_t *input,
                                size_t input_len, int32_t input_multiplier,
                                int32_t input_left_shift, int32_t reverse_multiplier,
                                int32_t reverse_shift, int32_t diff_min, int8_t *output,
                                size_t output_len);
/* SVDF (an optional op): input [batch, input_size], weights_feature [filters,
 * input_size], weights_time [filters, memory], bias [filters / rank], output [batch,
 * filters / rank]. `state` [batch, filters, memory] persists between calls (TFLM starts
 * it at 0, an int8 state at its zero point): each call shifts it left by one element and writes each filter's new feature at
 * the end of its row, then output = bias + sum over each unit's `rank` filters of
 * weights_time . state. int8 as TFLM's integer SVDF, its weights_time and state values of
 * state_bits (16 or 8) bits held here in int32 elements: feature MBQM(sum wf * (x -
 * input_zero_point), multiplier1, shift1) clamped to that width, plus state_zero_point,
 * stored at that width; output MBQM(sum, multiplier2, shift2) + output_zero_point clamped
 * to int8 (sums wrap in int32, no fused activation, as TFLM). input_size <= 32768. */
typedef struct {
    int32_t batch, input_size, filters, memory, rank;
} flex_svdf_dims;
typedef struct {
    int32_t input_zero_point, state_zero_point, output_zero_point, multiplier1, shift1,
        multiplier2, shift2, state_bits;
} flex_svdf_quant;
flex_status flex_s8_svdf(const flex_svdf_dims *d, const int8_t *input, size_t input_len,
                         const int8_t *weights_feature, size_t weights_feature_len,
                         const int32_t *weights_time, size_t weights_time_len,
                         const int32_t *bias, size_t bias_len, int32_t *state,
                         size_t state_len, const flex_svdf_quant *q, int8_t *output,
                         size_t output_len);
flex_status flex_f32_svdf(const flex_svdf_dims *d, const float *input, size_t input_len,
                          const float *weights_feature, size_t weights_feature_len,
                          const float *weights_time, size_t weights_time_len,
                          const float *bias, size_t bias_len, float *state, size_t state_len,
                          int32_t act, float *output, size_t output_len);

/* Reductions over axes 1 and 3 of [outer, reduce, mid, reduce2, inner] -> [outer, mid, inner]
 * (TFLite SUM, REDUCE_MAX, REDUCE_MIN and MEAN over any axes, folded so; an optional op).
 * op: FLEX_REDUCE_SUM (int8: MBQM(sum - input_zero_point * count, multiplier, shift) +
 * output zero point, clamped, as TFLM's QuantizedMeanOrSum), _MAX, _MIN or _MEAN (float32
 * only). int8 max and min ignore the quantization arguments. */
flex_status flex_s8_reduce_axes(const int32_t dims[5], int32_t op, const int8_t *input,
                                size_t input_len, int32_t input_zero_point,
                                int32_t multiplier, int32_t shift, int32_t output_zero_point,
                                int8_t *output, size_t output_len);
flex_status flex_f32_reduce_axes(const int32_t dims[5], int32_t op, const float *input,
                                 size_t input_len, float *output, size_t output_len);

/* Image resizes (TFLite RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR; an optional op) through
 * sampling tables made once from TFLM's arithmetic: ys holds (y0, y1, wy) for each of the
 * out_dims->h rows, xs (x0, x1, wx) for each of the out_dims->w columns (ys_len, xs_len: 3
 * per position); in_dims and out_dims share n and c. int8: wy, wx in 1/1024 steps, in
 * [-512, 1024] (TFLM's ResizeBilinearInteger: the weighted sum rounded half away from zero
 * by 2**20, then cast). float32: fy, fx hold the out_dims->h and ->w fractions (TFLM's
 * ResizeBilinear); the tables' weights are not read. A nearest-neighbour resize has
 * y1 = y0 and zero weights. */
flex_status flex_s8_resize(const flex_dims4 *in_dims, const int8_t *input, size_t input_len,
                           const int32_t *ys, size_t ys_len, const int32_t *xs, size_t xs_len,
                           const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_f32_resize(const flex_dims4 *in_dims, const float *input, size_t input_len,
                            const int32_t *ys, size_t ys_len, const int32_t *xs,
                            size_t xs_len, const float *fy, const float *fx,
                            const flex_dims4 *out_dims, float *output, size_t output_len);

/* Index of the largest (op 0) or smallest (op 1) element along the middle axis of
 * [outer, reduce, inner] -> [outer, inner] (TFLite ARG_MAX, ARG_MIN, as TFLM picks it: the
 * first on ties, a strict comparison with the best so far; an optional op). The indices
 * are written as float32 values, exactly (reduce <= 2**24), with integer arithmetic only;
 * op + 2 writes them as int32 values into the same 4-byte words instead. */
flex_status flex_s8_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                        const int8_t *input, size_t input_len, float *output,
                        size_t output_len);
flex_status flex_f32_arg(int32_t outer, int32_t reduce, int32_t inner, int32_t op,
                         const float *input, size_t input_len, float *output,
                         size_t output_len);

/* L2_NORMALIZATION over the last axis of [rows, depth] (an optional op), as TFLM: int8 out in
 * 1/128 steps, zero point 0 (the inverse square root of each row's sum of squares in
 * fixed point; depth <= 32768); float32 x / max(sqrt(sum of squares), 1e-6). */
flex_status flex_s8_l2norm(int32_t rows, int32_t depth, const int8_t *input, size_t input_len,
                           int32_t input_zero_point, int8_t *output, size_t output_len);
flex_status flex_f32_l2norm(int32_t rows, int32_t depth, const float *input, size_t input_len,
                            float *output, size_t output_len);

/* BATCH_MATMUL (an optional op): `batches` products of an [m, k] by a [k, n] matrix, out
 * [batches, m, n]. adj_x: a is stored [k, m]; adj_y: b is stored [n, k]. a_step / b_step:
 * elements from one product's operand to the next, 0 (broadcast) or the whole matrix. int8
 * as TFLM's reference BatchMatMul: MBQM(sum (a - a_zero_point) * (b - b_zero_point),
 * multiplier, shift) + output zero point, clamped to int8 (k <= 32768: the int32 sum stays
 * exact). */
typedef struct {
    int32_t batches, m, k, n, a_step, b_step, adj_x, adj_y;
} flex_matmul_dims;
flex_status flex_s8_batch_matmul(const flex_matmul_dims *d, const int8_t *a, size_t a_len,
                                 const int8_t *b, size_t b_len, int32_t a_zero_point,
                                 int32_t b_zero_point, int32_t output_zero_point,
                                 int32_t multiplier, int32_t shift, int8_t *output,
                                 size_t output_len);
/* int16 (TFLM's int16 BATCH_MATMUL): zero points 0, the int64 sum requantized by TFLM's
 * int64 MultiplyByQuantizedMultiplier (shift in [-31, 7]), clamped to int16. */
flex_status flex_s16_batch_matmul(const flex_matmul_dims *d, const int16_t *a, size_t a_len,
                                  const int16_t *b, size_t b_len, int32_t a_zero_point,
                                  int32_t b_zero_point, int32_t output_zero_point,
                                  int32_t multiplier, int32_t shift, int16_t *output,
                                  size_t output_len);
flex_status flex_f32_batch_matmul(const flex_matmul_dims *d, const float *a, size_t a_len,
                                  const float *b, size_t b_len, float *output,
                                  size_t output_len);

/* ---- optional ops: elementwise arithmetic (flex_c/src/extra) ---------------------- */

/* int8 SUB (in1 - in2) and SQUARED_DIFFERENCE ((in1 - in2)^2) as TFLM's reference kernels:
 * ADD's scaling of each input (left_shift 20 for SUB, 7 for SQUARED_DIFFERENCE, whose
 * output multiplier and shift come from QuantizeMultiplier). Broadcasting as flex_s8_add. */
flex_status flex_s8_sub(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_add_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len);
flex_status flex_s8_squared_difference(const flex_dims4 *in1_dims, const int8_t *in1,
                                       size_t in1_len, const flex_dims4 *in2_dims,
                                       const int8_t *in2, size_t in2_len,
                                       const flex_s8_add_params *p, const flex_dims4 *out_dims,
                                       int8_t *output, size_t output_len);
/* output[i] = op(a[i], b[i % b_len]) (b broadcast along the innermost dims; b_len divides
 * n), TFLM's MAXIMUM / MINIMUM (el1 > el2 ? el1 : el2), SUB, SUB with the operands swapped
 * (b - a) and SQUARED_DIFFERENCE. The int8 kernel compares the stored values (TFLM does the
 * same, whatever the scales) and takes the MAXIMUM and MINIMUM codes only; the float32
 * kernel then applies a fused activation `act` (FLEX_ACT_*). */
#define FLEX_ARITH_MAXIMUM 0
#define FLEX_ARITH_MINIMUM 1
#define FLEX_ARITH_SUB 2
#define FLEX_ARITH_SUB_SWAPPED 3
#define FLEX_ARITH_SQUARED_DIFFERENCE 4
/* float32 only: TFLM's DIV (a / b), FLOOR_DIV (floor of the float32 quotient) and FLOOR_MOD
 * (fmod moved to the divisor's sign), each followed by its code with the operands swapped
 * (b op a). */
#define FLEX_ARITH_DIV 5
#define FLEX_ARITH_DIV_SWAPPED 6
#define FLEX_ARITH_FLOOR_DIV 7
#define FLEX_ARITH_FLOOR_DIV_SWAPPED 8
#define FLEX_ARITH_FLOOR_MOD 9
#define FLEX_ARITH_FLOOR_MOD_SWAPPED 10
flex_status flex_s8_arith(int32_t op, size_t n, const int8_t *a, const int8_t *b,
                          size_t b_len, int8_t *output);
flex_status flex_f32_arith(int32_t op, size_t n, const float *a, const float *b, size_t b_len,
                           int32_t act, float *output);
/* int32 tensors (not quantized), as TFLM's int32 kernels: output[i] = a[i] op b[i % b_len]
 * in int32 arithmetic that wraps, clamped to [act_min, act_max] where the op takes a fused
 * activation; swap 1: b op a. DIV truncates toward zero and refuses a zero divisor
 * (FLEX_E_PARAM, where TFLM's kernel would trap). */
flex_status flex_s32_add(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t *output);
flex_status flex_s32_mul(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t *output);
flex_status flex_s32_sub(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t swap, int32_t *output);
flex_status flex_s32_div(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                         int32_t act_min, int32_t act_max, int32_t swap, int32_t *output);
flex_status flex_s32_maximum(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                             int32_t *output);
flex_status flex_s32_minimum(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                             int32_t *output);
flex_status flex_s32_squared_difference(size_t n, const int32_t *a, const int32_t *b,
                                        size_t b_len, int32_t *output);

/* ---- optional op: CAST (flex_c/src/extra) ------------------------------------------ */

/* TFLM's CAST (a static_cast): int32 or int16 narrowed to its low bits (two's complement),
 * float32 truncated toward zero (beyond the target's range, undefined in TFLM, it
 * saturates; NaN gives 0), int32 to the nearest float32. */
flex_status flex_cast_s32_s8(size_t n, const int32_t *input, int8_t *output);
flex_status flex_cast_s32_s16(size_t n, const int32_t *input, int16_t *output);
flex_status flex_cast_s16_s8(size_t n, const int16_t *input, int8_t *output);
flex_status flex_cast_f32_s8(size_t n, const float *input, int8_t *output);
flex_status flex_cast_f32_s16(size_t n, const float *input, int16_t *output);
flex_status flex_cast_f32_s32(size_t n, const float *input, int32_t *output);
flex_status flex_cast_s32_f32(size_t n, const int32_t *input, float *output);

/* ---- optional ops: comparisons and selection (flex_c/src/extra) ------------------- */

/* output[i] = 1 where a[i] op b[i % b_len] holds, else 0 (b broadcast along the innermost
 * dims; b_len divides n), op a FLEX_COMPARE_* code: TFLM's comparisons, whose BOOL output
 * is int8 0/1 here. The int8 kernel compares the operands rescaled as TFLM does, whatever
 * the scales: ((x + offset) << 8) times the operand's multiplier and shift (at most 0). */
#define FLEX_COMPARE_EQUAL 0
#define FLEX_COMPARE_NOT_EQUAL 1
#define FLEX_COMPARE_LESS 2
#define FLEX_COMPARE_LESS_EQUAL 3
#define FLEX_COMPARE_GREATER 4
#define FLEX_COMPARE_GREATER_EQUAL 5
typedef struct {
    int32_t input1_offset, input1_multiplier, input1_shift;
    int32_t input2_offset, input2_multiplier, input2_shift;
} flex_s8_compare_params;
flex_status flex_s8_compare(int32_t op, size_t n, const int8_t *a, const int8_t *b,
                            size_t b_len, const flex_s8_compare_params *p, int8_t *output);
flex_status flex_f32_compare(int32_t op, size_t n, const float *a, const float *b,
                             size_t b_len, int8_t *output);
/* The comparison of int32 operands (not quantized). */
flex_status flex_s32_compare(size_t n, const int32_t *a, const int32_t *b, size_t b_len,
                             int32_t op, int8_t *output);
/* TFLM's SELECT_V2 with operands that repeat along the innermost dims: output[i] =
 * x[i % x_len] where cond[i % cond_len] is nonzero, else y[i % y_len]; elements of
 * elem_size bytes (1, 2 or 4); each length divides n. */
flex_status flex_select(int32_t elem_size, size_t n, const int8_t *cond, size_t cond_len,
                        const void *x, size_t x_len, const void *y, size_t y_len,
                        void *output);
/* Rows of params [outer, size, inner] at the run-time positions [count] into output
 * [outer, count, inner] (TFLite GATHER, EMBEDDING_LOOKUP; an optional op), elements of
 * elem_size bytes (1 or 4); a position outside [0, size) gives FLEX_E_PARAM before anything
 * is written. */
flex_status flex_gather(int32_t elem_size, int32_t outer, int32_t size, int32_t inner,
                        int32_t count, const void *params, size_t params_len,
                        const int32_t *positions, size_t positions_len, void *output,
                        size_t output_len);

/* ---- optional ops: int8 division (flex_c/src/extra) -------------------------------- */

/* TFLM's int8 DIV: output[i] = a[i] / b[i % b_len] in real values (b / a when swap is 1;
 * b_len divides n), with output_multiplier and output_shift from in1_scale / (in2_scale *
 * out_scale), where in1 is the dividend. A zero divisor gives what TFLM computes on
 * x86-64. output_shift in [FLEX_DIV_SHIFT_MIN, FLEX_DIV_SHIFT_MAX]. */
#define FLEX_DIV_SHIFT_MIN (-25)
#define FLEX_DIV_SHIFT_MAX 22
typedef struct {
    int32_t swap;
    int32_t input1_offset, input2_offset, output_offset;
    int32_t output_multiplier, output_shift;
    int32_t act_min, act_max;
} flex_s8_div_params;
flex_status flex_s8_div(size_t n, const int8_t *a, const int8_t *b, size_t b_len,
                        const flex_s8_div_params *p, int8_t *output);

/* ---- optional op: LSTM (flex_c/src/extra) ------------------------------------------ */

/* TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's micro kernel: input [batch, steps,
 * input_size] ([steps, batch, input_size] when time_major is 1), output laid out alike with
 * `units` values per step (the hidden state). w [4 * units, input_size], r [4 * units,
 * units] and bias [4 * units] stack the gates input, forget, cell, output. `state` persists
 * between calls: the hidden states [batch, units], the cell states [batch, units], then
 * room for 4 * units gate values (state_len >= (2 * batch + 4) * units). Per step: gate =
 * act(w . x + bias + r . h) (sigmoid; tanh for the cell gate), c = forget * c + input *
 * cell (clipped to +-cell_clip when cell_clip > 0), h = output * tanh(c). */
typedef struct {
    int32_t batch, steps, input_size, units, time_major;
} flex_lstm_dims;
flex_status flex_f32_lstm(const flex_lstm_dims *d, const float *input, size_t input_len,
                          const float *w, size_t w_len, const float *r, size_t r_len,
                          const float *bias, size_t bias_len, float *state, size_t state_len,
                          float cell_clip, float *output, size_t output_len);
/* int8 as TFLM's integer LSTM: int8 input, weights and hidden state, int32 biases, int16
 * gates and cell state; `state` holds int16 values, each hidden one less the hidden zero
 * point. Per gate g (TFLite's order) gate_q[4g..4g+4) are the multipliers and shifts of its
 * input part MBQM(w . (x - input_zero_point) + bias) and its recurrent part MBQM(r . (h -
 * output_zero_point)), each clamped to int16, summed with int16 saturation, then TFLM's
 * int16 sigmoid or tanh (flex_s16_logistic, flex_s16_tanh: `table`). c = sat16(MBQM(forget
 * * c, forget_*) + MBQM(input * cell, input_*)), clamped to +-cell_clip when cell_clip >= 0;
 * h = MBQM(tanh(c) * output, hidden_*) + output_zero_point clamped to int8, the tanh reading
 * c at scale 2**cell_power (-43..2). */
typedef struct {
    int32_t input_zero_point, output_zero_point, cell_clip, cell_power, forget_multiplier,
        forget_shift, input_multiplier, input_shift, hidden_multiplier, hidden_shift;
} flex_lstm_quant;
flex_status flex_s8_lstm(const flex_lstm_dims *d, const int8_t *input, size_t input_len,
                         const int8_t *w, size_t w_len, const int8_t *r, size_t r_len,
                         const int32_t *bias, size_t bias_len, const int32_t *gate_q,
                         size_t gate_q_len, const int16_t *table, size_t table_len,
                         int16_t *state, size_t state_len, const flex_lstm_quant *q,
                         int8_t *output, size_t output_len);
/* int16 as TFLM's int16x8 LSTM: flex_s8_lstm on int16 input and hidden state (zero points
 * 0), int8 weights and int32 biases (TFLM's int64 ones, of int32 values): each gate's input
 * and recurrent parts summed in int64 and requantized by TFLM's int64 multiply (gate shifts
 * up to 7, input_size and units up to 2**22), h clamped to int16. */
flex_status flex_s16_lstm(const flex_lstm_dims *d, const int16_t *input, size_t input_len,
                          const int8_t *w, size_t w_len, const int8_t *r, size_t r_len,
                          const int32_t *bias, size_t bias_len, const int32_t *gate_q,
                          size_t gate_q_len, const int16_t *table, size_t table_len,
                          int16_t *state, size_t state_len, const flex_lstm_quant *q,
                          int16_t *output, size_t output_len);

#endif /* FLEX_API_OPTIONAL_H */

"""Kernels of the exported-graph ops (NHWC), bit-exact with TensorFlow Lite Micro for int8.

The reference below (buffers, parameters, each kernel's signature) is comments, not this
docstring: a board that compiles this file from source then needs no large block of RAM
for one string."""

# Every kernel writes its output into a caller-owned buffer and returns None. The int8 kernels
# allocate nothing (on a 32-bit MicroPython, where small ints hold 31 bits, the plain softmax,
# logistic and tanh do; their viper twins do not), so an inference after the first one
# allocates nothing. Each int8 kernel
# has a plain reference `<fn>_plain` and, on MicroPython, a `@micropython.viper` twin
# `<fn>_fast`, which the module imports from its twin module `<module>_viper` (None on
# CPython, and on a port that compiles no viper code, such as the WebAssembly one, where the
# twin module is a SyntaxError); `<fn>` is the active one. Import kernels from their module,
# for example `from burn.graph.s8_conv import conv_s8`.
#
# Buffers
# -------
# - int8 input/weight buffers: anything indexable by element holding two's-complement int8:
#   array('b'), bytes, bytearray, or a memoryview of one; bytes >= 128 are read as negative.
# - int8 output buffers: array('b') or a memoryview of one (the kernels store signed values).
# - int32 buffers (bias, per-channel multiplier, per-channel shift): array('i') or a
#   memoryview of one. Multipliers and shifts come from `quantize_multiplier`, computed on the
#   host (a board with single-precision floats would compute different ones).
# - float32 buffers: array('f') or a memoryview of one.
# - Shapes are NHWC; `n` is the batch. Weight layouts are TFLite's (below). A buffer may be
#   longer than needed; only the leading elements are used.
#
# Parameters
# ----------
# - `*_zp`: zero points of the int8 tensors (-128..127).
# - `act_min, act_max`: int8 clamp of the output, from `quant_activation_range` (fused
#   NONE/RELU/RELU6/RELU_N1_TO_1 as TFLM computes them).
# - `act` (float kernels): TFLite fused-activation code: 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6.
# - `pad_top, pad_left`: padding before the first row/column, from `burn.graph.geometry`
#   (`out_size`, `pad_before`: TFLite SAME/VALID rules). Padded input reads as the input zero
#   point (int8) or 0.0 (float), so it contributes nothing.
# - `mult, shift`: a Q31 multiplier and a power-of-two exponent (shift > 0 shifts left), as
#   returned by `quantize_multiplier(real)`; applied by `multiply_by_quantized_multiplier`.
# - Extra trailing arguments of the Python kernels (the flex C kernels take the arguments
#   below without them; the runtime passes them, made once when an op is bound; when left
#   out the kernel makes them on each call, which allocates):
#   `mult_off` of every plain kernel with a multiplier: the multipliers as offsets from
#   2**30 (small ints on a 32-bit MicroPython, where a multiplier is a big int):
#   `multiplier_offsets(mult)` for conv, depthwise and fully connected,
#   `mult_offsets(a_mult, b_mult, out_mult)` for add, `mult_offsets(mult)` for mul, mean and
#   requantize. `table` of the viper softmax, logistic and tanh: `softmax_table(in_mult,
#   in_left_shift, diff_min)`, `logistic_table(in_zp, in_mult, in_left_shift,
#   range_radius)`, `tanh_table(same)`, each in its kernel's module.
#
# burn.graph.fixedpoint (TFLM arithmetic; plain Python, also used by the host)
# -------------------------------------------------------------------------
# multiply_by_quantized_multiplier(x, mult, shift) -> int   TFLM reference, double rounding
# mbqm_offset(x, mult_off, shift) -> int   the same with mult = mult_off + 2**30: exact here,
#     mbqm_limbs (15-bit limbs, no value >= 2**30) on a 32-bit MicroPython (NARROW)
# multiplier_offsets(mult) -> array('i') of mult[c] - 2**30;  mult_offsets(*mults) -> tuple
# saturating_rounding_doubling_high_mul(a, b) -> int   gemmlowp SRDHM on int32
# rounding_divide_by_pot(x, exponent) -> int           gemmlowp RoundingDivideByPowerOfTwo
# ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6                         fused-activation codes
#
# burn.graph.quant_params (TFLM Prepare arithmetic; computed on the host, not frozen)
# ----------------------------------------------------------------------------------
# quantize_multiplier(real) -> (mult, shift)          TFLM QuantizeMultiplier (frexp based)
# quant_activation_range(act, scale, zp, lo=-128, hi=127) -> (act_min, act_max)   TFLM
# conv_output_multipliers(in_scale, w_scales, out_scale) -> (mult array('i'), shift array('i'))
#     per output channel: quantize_multiplier(in_scale * w_scale[c] / out_scale)
# add_params(a_scale, b_scale, out_scale, left_shift=20) -> (left_shift, a_mult, a_shift,
#     b_mult, b_shift, out_mult, out_shift)      TFLM add prepare (left_shift 20; int16: 15)
# mul_params(a_scale, b_scale, out_scale) -> (mult, shift)
# mean_params(in_scale, out_scale, count) -> (mult, shift)     1/count folded in (TFLM)
# requantize_params(in_scale, out_scale) -> (mult, shift)      int8 -> int8 QUANTIZE
# softmax_params(beta, in_scale) -> (in_mult, in_left_shift, diff_min)   TFLM softmax prepare
# logistic_params(in_scale) -> (in_mult, in_left_shift, range_radius)    TFLM, 4 integer bits
# tanh_params(in_scale) -> (in_mult, in_left_shift, range_radius)        TFLM, 4 integer bits
# sigmoid_params(kind, in_q, out_q) -> {in_zp, in_mult, in_left_shift, range_radius}
#     TFLM's int8 LOGISTIC / TANH prepare; ValueError for an output quantization it refuses
#
# burn.graph.geometry
# -------------------
# out_size(in_size, k, stride, dilation, same) -> int        TFLite ComputeOutSize
# pad_before(in_size, k, stride, dilation, out_size) -> int   TFLite ComputePadding
#
# int8 kernels (module: function(arguments))
# ------------------------------------------
# s8_conv: conv_s8(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
#         stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, in_zp, out_zp, act_min, act_max)
#     inp [n, ih, iw, ic]; w [oc, kh, kw, ic // groups]; bias, mult, shift [oc];
#     out [n, oh, ow, oc]. ic and oc are multiples of groups.
# s8_depthwise_conv: depthwise_conv_s8(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow,
#         depth_mult, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left,
#         in_zp, out_zp, act_min, act_max)
#     inp [n, ih, iw, ic]; w [1, kh, kw, ic * depth_mult]; bias, mult, shift [ic * depth_mult];
#     out [n, oh, ow, ic * depth_mult]; output channel c reads input channel c // depth_mult.
# s8_fully_connected: fully_connected_s8(inp, w, bias, mult, shift, out, batches,
#         in_features, out_features, in_zp, out_zp, act_min, act_max)
#     inp [batches, in_features]; w [out_features, in_features]; bias, mult, shift
#     [out_features] (per-tensor quantization: repeat the one multiplier/shift).
# s8_add: add_s8(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
#         out_zp, out_mult, out_shift, left_shift, act_min, act_max)
#     out[i] = a[i] (+) b[i % b_size]; b_size == size, or b broadcast along the innermost
#     dims (e.g. [C] or [1]); parameters from add_params.
# s8_mul: mul_s8(a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min, act_max)
#     same broadcasting as add; mult, shift from mul_params.
# s8_pool: avg_pool_s8(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w,
#         pad_top, pad_left, act_min, act_max)
#     average over the window's in-bounds cells, rounded half away from zero (TFLM); input
#     and output share scale and zero point.
# s8_pool: max_pool_s8(same arguments as avg_pool_s8)
# s8_mean: mean_s8(inp, out, outer, reduce, inner, in_zp, out_zp, mult, shift)
#     inp viewed as [outer, reduce, inner], out [outer, inner]; mult, shift from
#     mean_params(in_scale, out_scale, reduce) (TFLM reduce.cc int8 mean).
# s8_softmax: softmax_s8(inp, out, rows, depth, in_mult, in_left_shift, diff_min)
#     over the last axis of [rows, depth]; output scale 1/256, zero point -128 (TFLM).
# s8_logistic: logistic_s8(inp, out, size, in_zp, in_mult, in_left_shift, range_radius)
#     output scale 1/256, zero point -128.
# s8_tanh: tanh_s8(inp, out, size, in_zp, in_mult, in_left_shift, range_radius)
#     output scale 1/128, zero point 0.
#     softmax, logistic and tanh's viper twins take a trailing `table` (see Parameters);
#     logistic and tanh are then a byte lookup (s8_lookup.lookup_s8(inp, out, size, table)).
# s8_quantize: quantize_s8(inp, out, size, scale, zp)     inp float32 -> int8 (TFLM round)
#              dequantize_s8(inp, out, size, scale, zp)   int8 -> out float32
#              (these two touch floats, so they are plain only and do allocate on MicroPython)
#              requantize_s8(inp, out, size, in_zp, out_zp, mult, shift)   int8 -> int8
#              clamp_s8(inp, out, size, act_min, act_max)         a lone RELU/RELU6 on int8
# transpose_conv: transpose_conv_s8(inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc,
#         kh, kw, stride_h, stride_w, pad_top, pad_left, in_zp, out_zp, act_min, act_max)
#     inp [n, ih, iw, ic]; w [oc, kh, kw, ic]; bias, mult, shift [oc]; out [n, oh, ow, oc]:
#     input pixel (iy, ix) adds into the output window at (iy * stride_h - pad_top,
#     ix * stride_w - pad_left) (TFLM TransposeConv); any ih, iw, oh, ow.
# svdf: svdf_s8(inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank,
#         in_zp, state_zp, out_zp, state_mult, state_shift, out_mult, out_shift, state_bits)
#     inp [batch, input_size]; wf [filters, input_size] int8; wt [filters, memory] and state
#     [batch, filters, memory] int32 holding int16 (state_bits 16) or int8 (8) values; bias
#     [filters / rank] int32; out [batch, filters / rank]. The state persists between calls
#     (TFLM's integer SVDF).
#
# layout (module burn.graph.layout): `copy`, `pad`, `concat` work on any typed buffer
# (plain only); `copy_s8`, `pad_s8`, `concat_s8` take the same arguments for int8 buffers
# (viper twins `*_s8_fast` on MicroPython).
#     copy(src, dst, size)                                          reshape / identity
#     pad(inp, out, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, value)
#         inp [d0, d1, d2, d3] -> out [b0 + d0 + a0, ...]; b* before, a* after; value fills
#         (int8: the output zero point, as TFLM's PAD).
#     concat(inputs, inner_sizes, out, outer)
#         inputs: a list of buffers, each viewed as [outer, inner_sizes[k]] (inner_sizes an
#         array('i')); out is [outer, sum(inner_sizes)]: concatenation along one axis. int8
#         inputs must share the output's scale and zero point (TFLM does not requantize).
#
# float32 kernels (module f32_<op>; same arguments minus the quantization parameters,
# act = fused-activation code; bias may be None; plain only)
# -------------------------------------------------------------------------------
# f32_conv: conv_f32(inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
#         stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act)
# f32_depthwise_conv: depthwise_conv_f32(inp, w, bias, out, n, ih, iw, ic, oh, ow, depth_mult,
#         kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act)
# f32_fully_connected: fully_connected_f32(inp, w, bias, out, batches, in_features,
#         out_features, act)
# f32_elementwise: add_f32(a, b, out, size, b_size, act); mul_f32(same);
#         clamp_f32(inp, out, size, act); logistic_f32(inp, out, size); tanh_f32(inp, out, size)
# f32_pool: avg_pool_f32(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w,
#         pad_top, pad_left, act); max_pool_f32(same)
# f32_mean: mean_f32(inp, out, outer, reduce, inner)
# f32_softmax: softmax_f32(inp, out, rows, depth, beta)
# transpose_conv: transpose_conv_f32(inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
#         stride_h, stride_w, pad_top, pad_left, act)
#
# optional ops (burn.graph.ops.OPTIONAL; a default firmware leaves them out)
# --------------------------------------------------------------------------
# unary: lookup_s8(inp, out, size, table)      int8 ABS, RSQRT, ELU, HARD_SWISH, LEAKY_RELU:
#         out[i] = table[byte of inp[i]], the 256 results made on the host (s8_lookup's kernel)
# unary: unary_f32(inp, out, size, fn, alpha)  float32 NEG, ABS, SQRT, RSQRT, ELU, HARD_SWISH,
#         LEAKY_RELU (slope alpha), by flex_c op code fn (burn.graph.unary.FN)
# prelu: prelu_s8(inp, alpha, out, size, alpha_size, in_zp, alpha_zp, out_zp, pos_mult,
#         pos_shift, neg_mult, neg_shift)
#     TFLite PRELU: x >= 0 ? x : alpha[i % alpha_size] * x (TFLM's BroadcastPrelu4DSlow);
#     viper twin prelu_s8_fast
# prelu: prelu_f32(inp, alpha, out, size, alpha_size)
# log_softmax: log_softmax_s8(inp, out, rows, depth, in_mult, in_left_shift, reverse_mult,
#         reverse_shift, diff_min)
#     TFLite LOG_SOFTMAX over the last axis of [rows, depth] (TFLM's LogSoftmaxQuantized);
#     output scale 16/256, zero point 127; in_mult, in_left_shift, diff_min from
#     softmax_params(1.0, in_scale), reverse_mult, reverse_shift from
#     quantize_multiplier(2**(31 - in_left_shift) / in_mult); viper twin log_softmax_s8_fast
#     (table: log_softmax_table(in_mult, in_left_shift, diff_min))
# log_softmax: log_softmax_f32(inp, out, rows, depth)
# svdf: svdf_f32(inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank, act)
# int16x8 kernels (s16_* modules, docs/bst-format.md): quantize_s16 dequantize_s16
# requantize_s16 requantize_s8_s16 requantize_s16_s8 fully_connected_s16 conv_s16
# depthwise_conv_s16 add_s16 mul_s16 avg_pool_s16 max_pool_s16 softmax_s16
# s16_sigmoid: logistic_s16(inp, out, size, in_mult, in_left_shift, table); tanh_s16(same)
#     TFLM's int16 LOGISTIC and TANH (output scale 1/32768) on any int16 buffers (out may be
#     inp): interpolation in the 256-entry sigmoid table (burn.host.importers.sigmoid16)
#
# Optional ops (burn.graph.ops.OPTIONAL: a default firmware leaves them out)
# -------------------------------------------------------------------------
# strided (module burn.graph.strided): `strided` works on any typed buffer (plain only);
# `strided_s8` takes the same arguments for int8 buffers (viper twin on MicroPython).
#     strided(inp, out, offset, d0, d1, d2, d3, d4, d5, s0, s1, s2, s3, s4, s5)
#         out, in order, is inp[offset + i0*s0 + ... + i5*s5] over the box [d0, ..., d5];
#         strides in elements, of any sign. TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V,
#         UNPACK, DEPTH_TO_SPACE and SPACE_TO_DEPTH import as this copy (one per output),
#         GATHER and MIRROR_PAD as such copies joined by concats.
# optional (burn.graph.ops.OPTIONAL; their arguments in burn.graph.ops, their modules' docs):
# reduce_s8, reduce_f32, resize_s8, resize_f32, arg_s8, arg_f32, l2norm_s8, l2norm_f32,
# batch_matmul_s8, batch_matmul_f32 (modules reduce, resize, arg, l2norm, batch_matmul)
# resize: resize_s16(inp, out, n, ih, iw, c, oh, ow, ys, xs)
#     TFLite RESIZE_NEAREST_NEIGHBOR of int16: each output pixel a copy of the input pixel at
#     (ys[3 * y], xs[3 * x])
# gather: gather_s8(inp, pos, out, outer, size, inner, count); gather_f32(same)
#     TFLite GATHER (positions computed at run time) and EMBEDDING_LOOKUP: out [outer, count,
#     inner] holds inp [outer, size, inner] at the int32 positions pos; a position outside
#     [0, size) is a ValueError, raised before anything is written
# cast: cast_s32_s8(inp, out, size); cast_s32_s16, cast_s16_s8, cast_f32_s8, cast_f32_s16,
#         cast_f32_s32, cast_s32_f32(same)
#     TFLite CAST as TFLM's static_cast: integers narrowed to their low bits, float32
#     truncated toward zero (saturating beyond the target's range, NaN to 0), int32 to the
#     nearest float32
# s8_arith: sub_s8(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
#         out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap)
#     TFLite SUB: out[i] = a[i] - b[i % b_size] (b - a when swap is 1), add's scaling and
#     broadcasting; parameters from burn.host.importers.arith_params.sub_params (TFLM's, in
#     float32)
# s8_arith: squared_difference_s8(a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp,
#         b_mult, b_shift, out_zp, out_mult, out_shift, left_shift, act_min, act_max)
#     TFLite SQUARED_DIFFERENCE: (a - b)**2, left_shift 7, parameters from
#     squared_difference_params
# s8_arith: maximum_s8(a, b, out, size, b_size); minimum_s8(a, b, out, size, b_size)
#     TFLite MAXIMUM, MINIMUM of the stored int8 values, whatever the scales (as TFLM)
# f32_arith: sub_f32(a, b, out, size, b_size, act, swap); squared_difference_f32(a, b, out,
#         size, b_size); maximum_f32(a, b, out, size, b_size); minimum_f32(same)
# logic: compare_s8(a, b, out, size, b_size, op, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift)
#     TFLite EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL (op 0..5, logic.OPS):
#     out[i] = 1 where a[i] op b[i % b_size] holds for the operands rescaled as TFLM does
#     (zero point, << 8, multiplier and shift of the scale), else 0
# logic: compare_f32(a, b, out, size, b_size, op)
#     the same of float32 operands, into int8 0/1
# logic: select_s8(cond, x, y, out, size, c_size, x_size, y_size); select_f32(same);
#         select_s16(same)
#     TFLite SELECT_V2: out[i] = x[i % x_size] where cond[i % c_size] else y[i % y_size]
# div: div_f32(a, b, out, size, b_size, op, swap, act)
#     TFLite DIV, FLOOR_DIV, FLOOR_MOD of float32 (op 0..2): out[i] = act(a[i] op b[i %
#     b_size]), b op a when swap is 1
# div: div_s8(a, b, out, size, b_size, swap, a_zp, b_zp, out_zp, mult, shift, act_min, act_max)
#     TFLite int8 DIV: a[i] / b[i % b_size] (b / a when swap is 1) with TFLM's fixed-point
#     reciprocal, requantized and clamped
# lstm: lstm_f32(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major,
#         cell_clip)
#     TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's micro kernel (four gates, no peephole,
#     projection or layer norm); `state` holds the hidden and cell states between inferences
# lstm: lstm_s8(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major,
#         gate_q, table, in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult,
#         ic_shift, hid_mult, hid_shift)
#     TFLM's integer LSTM (int16 gates and cell state, the int16 sigmoid/tanh `table`)
# lstm: lstm_s16(same arguments as lstm_s8)
#     TFLM's int16x8 LSTM (int16 input and hidden state, int64 gate sums)

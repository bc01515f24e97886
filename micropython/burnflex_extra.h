/* The kernels of the optional ops and the int16x8 ones (burn.graph.ops.optional_kernels),
 * bound in the burnflex_extra_*.c files, for burnflex.c's kernel lists. They live in this
 * header, not in burnflex.c's text, because a native module's build takes its qstrs from
 * the text of its .c files: the armv6m module, which leaves the extra files out, then holds
 * none of these names (it must stay within 24 KB), and the other native modules find them
 * spelt out in a comment of the extra file that binds them. A firmware's qstr scan reads
 * the expanded lists, as for every kernel. */
#ifndef BURNFLEX_EXTRA_H
#define BURNFLEX_EXTRA_H

#define BF_S16_KERNELS(X)                                                      \
    X(MP_QSTR_requantize_s16, requantize_s16)                                  \
    X(MP_QSTR_requantize_s8_s16, requantize_s8_s16)                            \
    X(MP_QSTR_requantize_s16_s8, requantize_s16_s8)                            \
    X(MP_QSTR_fully_connected_s16, fully_connected_s16)                        \
    X(MP_QSTR_conv_s16, conv_s16)                                              \
    X(MP_QSTR_depthwise_conv_s16, depthwise_conv_s16)                          \
    X(MP_QSTR_add_s16, add_s16)                                                \
    X(MP_QSTR_mul_s16, mul_s16)                                                \
    X(MP_QSTR_avg_pool_s16, avg_pool_s16)                                      \
    X(MP_QSTR_max_pool_s16, max_pool_s16)                                      \
    X(MP_QSTR_softmax_s16, softmax_s16)                                        \
    X(MP_QSTR_logistic_s16, logistic_s16)                                      \
    X(MP_QSTR_tanh_s16, tanh_s16)

/* float32 <-> int16: only where the float kernels are (burnflex.c's BF_FLOAT_KERNELS) */
#define BF_S16_FLOAT_KERNELS(X)                                                \
    X(MP_QSTR_quantize_s16, quantize_s16)                                      \
    X(MP_QSTR_dequantize_s16, dequantize_s16)

#define BF_EXTRA_INT8_KERNELS(X)                                               \
    X(MP_QSTR_transpose_conv_s8, transpose_conv_s8)                            \
    X(MP_QSTR_lookup_s8, lookup_s8)                                            \
    X(MP_QSTR_prelu_s8, prelu_s8)                                              \
    X(MP_QSTR_log_softmax_s8, log_softmax_s8)                                  \
    X(MP_QSTR_svdf_s8, svdf_s8)                                                \
    X(MP_QSTR_strided_s8, strided_s8)                                          \
    X(MP_QSTR_reduce_s8, reduce_s8)                                            \
    X(MP_QSTR_resize_s8, resize_s8)                                            \
    X(MP_QSTR_arg_s8, arg_s8)                                                  \
    X(MP_QSTR_l2norm_s8, l2norm_s8)                                            \
    X(MP_QSTR_batch_matmul_s8, batch_matmul_s8)                                \
    BF_S16_KERNELS(X)                                                          \
    X(MP_QSTR_sub_s8, sub_s8)                                                  \
    X(MP_QSTR_squared_difference_s8, squared_difference_s8)                    \
    X(MP_QSTR_maximum_s8, maximum_s8)                                          \
    X(MP_QSTR_minimum_s8, minimum_s8)                                          \
    X(MP_QSTR_compare_s8, compare_s8)                                          \
    X(MP_QSTR_select_s8, select_s8)                                            \
    X(MP_QSTR_div_s8, div_s8)                                                  \
    X(MP_QSTR_lstm_s8, lstm_s8)                                                \
    X(MP_QSTR_gather_s8, gather_s8)

/* the float32 ones: only where the float kernels are (burnflex.c's BF_FLOAT_KERNELS) */
#define BF_EXTRA_FLOAT_KERNELS(X)                                              \
    X(MP_QSTR_transpose_conv_f32, transpose_conv_f32)                          \
    X(MP_QSTR_unary_f32, unary_f32)                                            \
    X(MP_QSTR_prelu_f32, prelu_f32)                                            \
    X(MP_QSTR_log_softmax_f32, log_softmax_f32)                                \
    X(MP_QSTR_svdf_f32, svdf_f32)                                              \
    X(MP_QSTR_strided, strided)                                                \
    X(MP_QSTR_reduce_f32, reduce_f32)                                          \
    X(MP_QSTR_resize_f32, resize_f32)                                          \
    X(MP_QSTR_arg_f32, arg_f32)                                                \
    X(MP_QSTR_l2norm_f32, l2norm_f32)                                          \
    X(MP_QSTR_batch_matmul_f32, batch_matmul_f32)                              \
    BF_S16_FLOAT_KERNELS(X)                                                    \
    X(MP_QSTR_sub_f32, sub_f32)                                                \
    X(MP_QSTR_squared_difference_f32, squared_difference_f32)                  \
    X(MP_QSTR_maximum_f32, maximum_f32)                                        \
    X(MP_QSTR_minimum_f32, minimum_f32)                                        \
    X(MP_QSTR_compare_f32, compare_f32)                                        \
    X(MP_QSTR_select_f32, select_f32)                                          \
    X(MP_QSTR_div_f32, div_f32)                                                \
    X(MP_QSTR_lstm_f32, lstm_f32)                                              \
    X(MP_QSTR_gather_f32, gather_f32)

#endif

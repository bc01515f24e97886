/* The int16x8 kernels of burnflex_extra_s16.c, for burnflex.c's kernel lists. They live in
 * this header, not in burnflex.c's text, because a native module's build takes its qstrs
 * from the text of its .c files: the armv6m module, which leaves burnflex_extra_s16.c out,
 * then holds none of these names (it must stay within 24 KB), and the other native modules
 * find them spelt out in burnflex_extra_s16.c. A firmware's qstr scan reads the expanded
 * lists, as for every kernel. */
#ifndef BURNFLEX_EXTRA_S16_H
#define BURNFLEX_EXTRA_S16_H

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
    X(MP_QSTR_softmax_s16, softmax_s16)

/* float32 <-> int16: only where the float kernels are (burnflex.c's BF_FLOAT_KERNELS) */
#define BF_S16_FLOAT_KERNELS(X)                                                \
    X(MP_QSTR_quantize_s16, quantize_s16)                                      \
    X(MP_QSTR_dequantize_s16, dequantize_s16)

#endif

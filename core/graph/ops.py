"""The ops of a `.bst` graph, described once (docs/adding-an-op.md).

OPS: one row per graph op kind: (kind, in-place rule, TFLite ops it is imported from,
kernels). The in-place rule tells the arena planner how the output may overlap an input
that dies at the op: "e" element by element (same size, read before written), "w" a
sliding window over NHWC rows, "r" row by row, "" never.

KERNELS: one row per argument list: (module of burn.graph, kernel names, arguments). This
order is the kernels' contract on every runtime: the plain and viper twins, the burnflex
module's functions and the host binding (burn.host.flex.graph_kernels). A word "*x" stands
for the arguments GROUPS["x"]. Where a group ends up in one of flex.h's parameter structs,
its order is that struct's field order (checked by tests/core/test_op_table.py).

MicroPython-safe (plain strings and tuples), but nothing on a board imports it: the host
tools derive from it and tests/host/test_op_table.py checks the rest against it, so the
firmware leaves it out of its frozen modules (burn.host.firmware.inputs.NOT_FROZEN).

OPTIONAL: the op kinds a default firmware leaves out, to keep its flash share within budget
(docs/adding-an-op.md, "Optional ops"): their Python kernels and prepare step live in their
own burn.graph module, named after the kind (bst_ops.PREPARE leaves them out), their C
kernels in flex_c/src/extra/ and their burnflex bindings in micropython/burnflex_extra_*.c,
their names in burnflex_extra.h. A firmware gets them with
`burn firmware build --ops-from MODEL.bst` or `--all-ops`. The int16 kernels (int16x8
graphs) are left out the same way (`optional_kernels`), their kinds' prepare step handing
int16 ops to burn.graph.s16_prepare.
"""

OPS = (
    ("conv2d", "w", "CONV_2D", "conv_s8 conv_f32 conv_s16"),
    ("depthwise_conv2d", "w", "DEPTHWISE_CONV_2D",
     "depthwise_conv_s8 depthwise_conv_f32 depthwise_conv_s16"),
    ("fully_connected", "r", "FULLY_CONNECTED",
     "fully_connected_s8 fully_connected_f32 fully_connected_s16"),
    ("add", "e", "ADD ADD_N", "add_s8 add_f32 add_s16 add_s32"),
    ("mul", "e", "MUL SQUARE", "mul_s8 mul_f32 mul_s16 mul_s32"),
    ("avg_pool2d", "w", "AVERAGE_POOL_2D L2_POOL_2D", "avg_pool_s8 avg_pool_f32 avg_pool_s16"),
    ("max_pool2d", "w", "MAX_POOL_2D", "max_pool_s8 max_pool_f32 max_pool_s16"),
    ("mean", "r", "MEAN", "mean_s8 mean_f32"),
    ("softmax", "r", "SOFTMAX", "softmax_s8 softmax_f32 softmax_s16 softmax_s8_s16"),
    ("logistic", "e", "LOGISTIC", "logistic_s8 logistic_f32 logistic_s16"),
    ("tanh", "e", "TANH", "tanh_s8 tanh_f32 tanh_s16"),
    ("quantize", "", "QUANTIZE", "quantize_s8 quantize_s16"),
    ("dequantize", "", "DEQUANTIZE CAST", "dequantize_s8 dequantize_s16 dequantize_u8"),
    ("requantize", "e", "QUANTIZE",
     "requantize_s8 requantize_s16 requantize_s8_s16 requantize_s16_s8 requantize_s8_s32 "
     "requantize_s16_s32 requantize_s32_s8 requantize_s32_s16 requantize_u8_s8 "
     "requantize_s8_u8"),
    ("clamp", "e", "RELU RELU6 RELU_N1_TO_1", "clamp_s8 clamp_f32 clamp_s16"),
    ("copy", "e", "RESHAPE SQUEEZE EXPAND_DIMS", "copy_s8 copy"),
    ("pad", "", "PAD PADV2", "pad_s8 pad"),
    ("concat", "", "CONCATENATION PACK", "concat_s8 concat"),
    ("transpose_conv2d", "", "TRANSPOSE_CONV",
     "transpose_conv_s8 transpose_conv_f32 transpose_conv_s16"),
    ("unary", "e", "ABS NEG SQRT RSQRT ELU HARD_SWISH LEAKY_RELU EXP LOG SIN COS FLOOR CEIL "
     "ROUND", "lookup_s8 unary_f32 leaky_relu_s16"),
    ("prelu", "e", "PRELU", "prelu_s8 prelu_f32 prelu_s16"),
    ("log_softmax", "", "LOG_SOFTMAX", "log_softmax_s8 log_softmax_f32"),
    ("svdf", "", "SVDF", "svdf_s8 svdf_f32"),
    ("strided", "", "TRANSPOSE SLICE STRIDED_SLICE SPLIT SPLIT_V UNPACK DEPTH_TO_SPACE "
     "SPACE_TO_DEPTH GATHER MIRROR_PAD REVERSE_V2 BROADCAST_TO GATHER_ND SPACE_TO_BATCH_ND "
     "BATCH_TO_SPACE_ND FILL DYNAMIC_UPDATE_SLICE CUMSUM", "strided_s8 strided"),
    ("reduce", "", "SUM REDUCE_MAX REDUCE_MIN REDUCE_ALL MEAN",
     "reduce_s8 reduce_f32 reduce_s16"),
    ("resize", "", "RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR", "resize_s8 resize_f32 resize_s16"),
    ("arg", "", "ARG_MAX ARG_MIN", "arg_s8 arg_f32"),
    ("l2norm", "", "L2_NORMALIZATION", "l2norm_s8 l2norm_f32"),
    ("batch_matmul", "", "BATCH_MATMUL", "batch_matmul_s8 batch_matmul_f32 batch_matmul_s16"),
    ("sub", "e", "SUB", "sub_s8 sub_f32 sub_s16 sub_s32"),
    ("squared_difference", "e", "SQUARED_DIFFERENCE",
     "squared_difference_s8 squared_difference_f32 squared_difference_s32 "
     "squared_difference_s16"),
    ("maximum", "e", "MAXIMUM", "maximum_s8 maximum_f32 maximum_s16 maximum_s32"),
    ("minimum", "e", "MINIMUM", "minimum_s8 minimum_f32 minimum_s16 minimum_s32"),
    ("compare", "", "EQUAL NOT_EQUAL LESS LESS_EQUAL GREATER GREATER_EQUAL",
     "compare_s8 compare_f32 compare_s32"),
    ("select", "", "SELECT_V2 SELECT LOGICAL_AND LOGICAL_OR LOGICAL_NOT ZEROS_LIKE",
     "select_s8 select_f32 select_s16"),
    ("div", "", "DIV FLOOR_DIV FLOOR_MOD", "div_s8 div_f32 div_s32"),
    ("lstm", "", "UNIDIRECTIONAL_SEQUENCE_LSTM", "lstm_s8 lstm_f32 lstm_s16"),
    ("gather", "", "EMBEDDING_LOOKUP", "gather_s8 gather_f32"),
    ("cast", "", "CAST", "cast_s32_s8 cast_s32_s16 cast_s16_s8 cast_f32_s8 cast_f32_s16 "
     "cast_f32_s32 cast_s32_f32 cast_u32_s32 cast_s32_u32 cast_f32_u32"),
)

# The op kinds without kernels of their own (burn.graph.control, which the default firmware
# leaves out): control flow, whose ops run subgraphs of the file, resource variables, read and
# written by copies, and `constant`, a blob copied into a tensor (an IF or WHILE operand, a
# subgraph output). (kind, TFLite ops imported as it); VAR_HANDLE only names a variable,
# which the importer resolves (burn.host.importers.tflite_control).
CONTROL = (
    ("call_once", "CALL_ONCE"),
    ("if", "IF"),
    ("while", "WHILE"),
    ("read_variable", "READ_VARIABLE VAR_HANDLE"),
    ("assign_variable", "ASSIGN_VARIABLE"),
    ("constant", ""),
)

OPTIONAL = (
    "transpose_conv2d",
    "unary",
    "prelu",
    "log_softmax",
    "svdf",
    "strided",
    "reduce",
    "resize",
    "arg",
    "l2norm",
    "batch_matmul",
    "sub", "squared_difference", "maximum", "minimum",
    "compare", "select",
    "div",
    "lstm",
    "gather",
    "cast",
)

GROUPS = {
    "nhwc": "n ih iw ic oh ow",
    "win": "stride_h stride_w dil_h dil_w pad_top pad_left",
    "pool": "inp out n ih iw c oh ow kh kw stride_h stride_w pad_top pad_left",
    "q": "in_zp out_zp act_min act_max",
    "ab": "a b out size b_size",
    "sig": "inp out size in_zp in_mult in_left_shift range_radius",
    "svdf": "inp wf wt bias state out batch input_size filters memory rank",
    "axes": "inp out outer reduce mid reduce2 inner",
    "resize": "n ih iw c oh ow",
    "matmul": "a b out batches m k n a_step b_step adj_x adj_y",
    "arith": "a_zp a_mult a_shift b_zp b_mult b_shift out_zp out_mult out_shift left_shift "
             "act_min act_max",
    "lstm": "inp w r bias state out batch steps input_size units time_major",
}

KERNELS = (
    ("s8_conv", "conv_s8", "inp w bias mult shift out *nhwc oc kh kw groups *win *q"),
    ("s8_depthwise_conv", "depthwise_conv_s8",
     "inp w bias mult shift out *nhwc depth_mult kh kw *win *q"),
    ("s8_fully_connected", "fully_connected_s8",
     "inp w bias mult shift out batches in_features out_features *q"),
    ("s8_add", "add_s8", "*ab a_zp a_mult a_shift b_zp b_mult b_shift out_zp out_mult out_shift"
     " left_shift act_min act_max"),
    ("s8_mul", "mul_s8", "*ab a_zp b_zp out_zp mult shift act_min act_max"),
    ("s8_pool", "avg_pool_s8 max_pool_s8", "*pool act_min act_max"),
    ("s8_mean", "mean_s8", "inp out outer reduce inner in_zp out_zp mult shift"),
    ("s8_softmax", "softmax_s8", "inp out rows depth in_mult in_left_shift diff_min"),
    ("s8_logistic", "logistic_s8", "*sig"),
    ("s8_tanh", "tanh_s8", "*sig"),
    ("s8_quantize", "quantize_s8 dequantize_s8", "inp out size scale zp"),
    ("s8_quantize", "requantize_s8", "inp out size in_zp out_zp mult shift"),
    ("s8_quantize", "clamp_s8", "inp out size act_min act_max"),
    ("layout", "copy copy_s8", "src dst size"),
    ("layout", "pad pad_s8", "inp out d0 d1 d2 d3 b0 b1 b2 b3 a0 a1 a2 a3 value"),
    ("layout", "concat concat_s8", "inputs inner_sizes out outer"),
    ("f32_conv", "conv_f32", "inp w bias out *nhwc oc kh kw groups *win act"),
    ("f32_depthwise_conv", "depthwise_conv_f32",
     "inp w bias out *nhwc depth_mult kh kw *win act"),
    ("f32_fully_connected", "fully_connected_f32",
     "inp w bias out batches in_features out_features act"),
    ("f32_elementwise", "add_f32 mul_f32", "*ab act"),
    ("f32_elementwise", "clamp_f32", "inp out size act"),
    ("f32_elementwise", "logistic_f32 tanh_f32", "inp out size"),
    ("f32_pool", "avg_pool_f32 max_pool_f32", "*pool act"),
    ("f32_mean", "mean_f32", "inp out outer reduce inner"),
    ("f32_softmax", "softmax_f32", "inp out rows depth beta"),
    ("transpose_conv2d", "transpose_conv_s8 transpose_conv_s16",
     "inp w bias mult shift out *nhwc oc kh kw stride_h stride_w pad_top pad_left *q"),
    ("transpose_conv2d", "transpose_conv_f32",
     "inp w bias out *nhwc oc kh kw stride_h stride_w pad_top pad_left act"),
    ("unary", "lookup_s8", "inp out size table"),
    ("unary", "unary_f32", "inp out size fn alpha"),
    ("prelu", "prelu_s8 prelu_s16", "inp alpha out size alpha_size in_zp alpha_zp out_zp pos_mult"
     " pos_shift neg_mult neg_shift"),
    ("prelu", "prelu_f32", "inp alpha out size alpha_size"),
    ("log_softmax", "log_softmax_s8",
     "inp out rows depth in_mult in_left_shift reverse_mult reverse_shift diff_min"),
    ("log_softmax", "log_softmax_f32", "inp out rows depth"),
    ("svdf", "svdf_s8", "*svdf in_zp state_zp out_zp state_mult state_shift out_mult out_shift"
     " state_bits"),
    ("svdf", "svdf_f32", "*svdf act"),
    ("s16_quantize", "quantize_s16 dequantize_s16 dequantize_u8", "inp out size scale zp"),
    ("s16_quantize", "requantize_s16 requantize_s8_s16 requantize_s16_s8 requantize_s8_s32 "
     "requantize_s16_s32 requantize_s32_s8 requantize_s32_s16 requantize_u8_s8 "
     "requantize_s8_u8", "inp out size in_zp out_zp mult shift"),
    ("s16_quantize", "clamp_s16", "inp out size act_min act_max"),
    ("s16_fully_connected", "fully_connected_s16",
     "inp w bias mult shift out batches in_features out_features wide *q"),
    ("s16_conv", "conv_s16",
     "inp w bias mult shift out *nhwc oc kh kw groups *win wide act_min act_max"),
    ("s16_depthwise_conv", "depthwise_conv_s16",
     "inp w bias mult shift out *nhwc depth_mult kh kw *win act_min act_max"),
    ("s16_elementwise", "add_s16 squared_difference_s16", "*ab a_zp a_mult a_shift b_zp b_mult "
     "b_shift out_zp out_mult out_shift left_shift act_min act_max"),
    ("s16_elementwise", "sub_s16", "*ab a_zp a_mult a_shift b_zp b_mult b_shift out_zp "
     "out_mult out_shift left_shift act_min act_max swap"),
    ("s16_elementwise", "mul_s16", "*ab a_zp b_zp out_zp mult shift act_min act_max"),
    ("s16_elementwise", "maximum_s16 minimum_s16", "*ab"),
    ("s16_pool", "avg_pool_s16 max_pool_s16", "*pool act_min act_max"),
    ("s16_softmax", "softmax_s16", "inp out rows depth in_mult in_left_shift exp_lut inv_lut"),
    ("s16_softmax", "softmax_s8_s16", "inp out rows depth in_mult in_left_shift diff_min"),
    ("strided", "strided strided_s8", "inp out offset d0 d1 d2 d3 d4 d5 s0 s1 s2 s3 s4 s5"),
    ("reduce", "reduce_s8", "*axes op in_zp out_zp mult shift"),
    ("reduce", "reduce_f32", "*axes op"),
    ("s16_reduce", "reduce_s16", "*axes in_zp out_zp mult shift"),
    ("resize", "resize_s8", "inp out *resize ys xs"),
    ("resize", "resize_f32", "inp out *resize ys xs fy fx"),
    ("resize", "resize_s16", "inp out *resize ys xs"),
    ("arg", "arg_s8 arg_f32", "inp out outer reduce inner op"),
    ("l2norm", "l2norm_s8", "inp out rows depth in_zp"),
    ("l2norm", "l2norm_f32", "inp out rows depth"),
    ("batch_matmul", "batch_matmul_s8 batch_matmul_s16", "*matmul a_zp b_zp out_zp mult shift"),
    ("batch_matmul", "batch_matmul_f32", "*matmul"),
    ("s8_arith", "sub_s8", "*ab *arith swap"),
    ("s8_arith", "squared_difference_s8", "*ab *arith"),
    ("s8_arith", "maximum_s8 minimum_s8", "*ab"),
    ("f32_arith", "sub_f32", "*ab act swap"),
    ("f32_arith", "squared_difference_f32 maximum_f32 minimum_f32", "*ab"),
    ("logic", "compare_s8", "*ab op a_zp a_mult a_shift b_zp b_mult b_shift"),
    ("logic", "compare_f32", "*ab op"),
    ("s32_arith", "add_s32 mul_s32", "*ab act_min act_max"),
    ("s32_arith", "sub_s32 div_s32", "*ab act_min act_max swap"),
    ("s32_arith", "maximum_s32 minimum_s32 squared_difference_s32", "*ab"),
    ("s32_arith", "compare_s32", "*ab op"),
    ("logic", "select_s8 select_f32 select_s16", "cond x y out size c_size x_size y_size"),
    ("s16_sigmoid", "logistic_s16 tanh_s16", "inp out size in_mult in_left_shift table"),
    ("s16_unary", "leaky_relu_s16", "inp out size in_zp out_zp pos_mult pos_shift neg_mult"
     " neg_shift"),
    ("div", "div_f32", "*ab op swap act"),
    ("div", "div_s8", "*ab swap a_zp b_zp out_zp mult shift act_min act_max"),
    ("lstm", "lstm_f32", "*lstm cell_clip"),
    ("lstm", "lstm_s8 lstm_s16", "*lstm gate_q table in_zp out_zp cell_clip cell_power "
     "fc_mult fc_shift ic_mult ic_shift hid_mult hid_shift"),
    ("gather", "gather_s8 gather_f32", "inp pos out outer size inner count"),
    ("cast", "cast_s32_s8 cast_s32_s16 cast_s16_s8 cast_f32_s8 cast_f32_s16 cast_f32_s32 "
     "cast_s32_f32 cast_u32_s32 cast_s32_u32 cast_f32_u32", "inp out size"),
)

# What the exporter and the quantizer need to know of a kind: it has weights (a filter,
# a bias and per-channel scales); its output may take a fused activation clamp; its output
# tensor may take any shape of its size (its kernels read sizes only, not the layout).
WEIGHTED = ("conv2d", "depthwise_conv2d", "fully_connected", "transpose_conv2d")
FUSES_ACTIVATION = WEIGHTED + ("max_pool2d", "avg_pool2d", "add", "mul", "sub")
ANY_SHAPE = ("fully_connected", "add", "mul", "mean", "logistic", "tanh", "clamp", "copy",
             "concat", "unary", "sub", "batch_matmul", "maximum", "minimum")

# Kernels with no C kernel, so no flex binding: copies are buffer assignments; an int8 clamp
# has no C kernel of its own (a fused activation does the same in every C kernel); the casts
# to and from uint32 and the uint8 (de)quantizations run in Python (burn.graph.cast,
# burn.graph.s16_quantize).
PYTHON_ONLY = ("copy", "copy_s8", "clamp_s8", "cast_u32_s32", "cast_s32_u32", "cast_f32_u32",
               "dequantize_u8", "requantize_u8_s8", "requantize_s8_u8")

# The steps of a flex_c plan (flex_plan_run, flex.h), in the order of their FLEX_OP codes
# from 1: (flex_c function, the kernels whose binding calls it, its parameters that point at
# data the binding makes on its stack, as "name=words"). burn.host.codegen writes the codes,
# the step sizes, the step calls of plan.c and burnflex's recorders from each function's
# declaration in flex.h. A byte copy (FLEX_OP_COPY) follows the last. The steps whose
# kernels all need an FPU (needs_fpu) are left out of builds without the float kernels.
PLAN_STEPS = (
    ("flex_s8_conv2d", "conv_s8", ""),
    ("flex_s8_depthwise_conv2d", "depthwise_conv_s8", ""),
    ("flex_s8_fully_connected", "fully_connected_s8", ""),
    ("flex_s8_add", "add_s8", ""),
    ("flex_s8_mul", "mul_s8", ""),
    ("flex_s8_avg_pool2d", "avg_pool_s8", ""),
    ("flex_s8_max_pool2d", "max_pool_s8", ""),
    ("flex_s8_mean", "mean_s8", ""),
    ("flex_s8_softmax", "softmax_s8", ""),
    ("flex_s8_logistic", "logistic_s8", ""),
    ("flex_s8_tanh", "tanh_s8", ""),
    ("flex_s8_requantize", "requantize_s8", ""),
    ("flex_pad", "pad_s8 pad", "pads=8 pad_value=1"),
    ("flex_concat", "concat_s8 concat", ""),
    ("flex_f32_nhwc_conv2d", "conv_f32", ""),
    ("flex_f32_nhwc_depthwise_conv2d", "depthwise_conv_f32", ""),
    ("flex_f32_fully_connected", "fully_connected_f32", ""),
    ("flex_f32_add_act", "add_f32", ""),
    ("flex_f32_mul_act", "mul_f32", ""),
    ("flex_f32_nhwc_avg_pool2d", "avg_pool_f32", ""),
    ("flex_f32_nhwc_max_pool2d", "max_pool_f32", ""),
    ("flex_f32_mean", "mean_f32", ""),
    ("flex_f32_softmax_beta", "softmax_f32", ""),
    ("flex_f32_unary", "logistic_f32 tanh_f32", ""),
    ("flex_f32_act", "clamp_f32", ""),
)


# The kernels whose bindings burn.host.codegen writes from their flex_c call (GraphKernels'
# method and burnflex's C function): (kernels, their flex_c functions, one word per parameter
# of the function's flex.h declaration, lengths aside). A word is a kernel argument ("-x":
# minus it) or a number; "x[count]" passes argument x as a buffer of `count` elements (a
# product of arguments and numbers, "a*b*2"), its element type the parameter's, and
# "x?[count]" one that may be None; "&" fills the parameter struct the parameter points at
# from the kernel's arguments by name (burn.host.flex.params.STRUCTS). A `size_t <p>_len`
# parameter after a buffer takes the buffer's count; an upper-case word is a flex.h constant;
# a `void *` buffer's elements are of the kernel's type (its name's suffix). A fourth item, a
# hint with arguments in braces, is added to the host binding's error messages. The optional and
# int16 kernels' C bindings go to micropython/burnflex_extra_generated.c, the default float
# ones' to burnflex_f32.c; a default integer kernel keeps its hand-written binding.
CALLS = (
    ("lookup_s8", "flex_s8_lookup", "size inp[size] table[256] out[size]"),
    ("prelu_s8 prelu_s16", "flex_s8_prelu flex_s16_prelu",
     "size inp[size] alpha[alpha_size] & out[size]"),
    ("prelu_f32", "flex_f32_prelu", "size inp[size] alpha[alpha_size] out[size]"),
    ("l2norm_s8", "flex_s8_l2norm", "rows depth inp[rows*depth] in_zp out[rows*depth]"),
    ("l2norm_f32", "flex_f32_l2norm", "rows depth inp[rows*depth] out[rows*depth]"),
    ("log_softmax_s8", "flex_s8_log_softmax", "rows depth inp[rows*depth] in_mult in_left_shift"
     " reverse_mult reverse_shift diff_min out[rows*depth]"),
    ("log_softmax_f32", "flex_f32_log_softmax", "rows depth 1 inp[rows*depth] out[rows*depth]"),
    ("add_s16 squared_difference_s16", "flex_s16_add flex_s16_squared_difference",
     "size a[size] b[b_size] & out[size]"),
    ("mul_s16", "flex_s16_mul", "size a[size] b[b_size] & out[size]"),
    ("sub_s16", "flex_s16_sub", "size a[size] b[b_size] & swap out[size]"),
    ("add_s32 mul_s32", "flex_s32_add flex_s32_mul",
     "size a[size] b[b_size] act_min act_max out[size]"),
    ("sub_s32 div_s32", "flex_s32_sub flex_s32_div",
     "size a[size] b[b_size] act_min act_max swap out[size]",
     "every divisor must be non-zero"),
    ("maximum_s32 minimum_s32 squared_difference_s32",
     "flex_s32_maximum flex_s32_minimum flex_s32_squared_difference",
     "size a[size] b[b_size] out[size]"),
    ("compare_s32", "flex_s32_compare", "size a[size] b[b_size] op out[size]"),
    ("reduce_s16", "flex_s16_reduce_sum", "outer reduce mid reduce2 inner"
     " inp[outer*reduce*mid*reduce2*inner] in_zp mult shift out_zp out[outer*mid*inner]"),
    ("clamp_s16", "flex_s16_clamp", "size inp[size] act_min act_max out[size]"),
    ("softmax_s8_s16", "flex_s8_softmax_s16", "rows depth inp[rows*depth] in_mult"
     " in_left_shift diff_min out[rows*depth]"),
    ("maximum_s16", "flex_s16_arith", "FLEX_ARITH_MAXIMUM size a[size] b[b_size] out[size]"),
    ("minimum_s16", "flex_s16_arith", "FLEX_ARITH_MINIMUM size a[size] b[b_size] out[size]"),
    ("softmax_s16", "flex_s16_softmax", "rows depth inp[rows*depth] in_mult in_left_shift"
     " exp_lut[513] inv_lut[513] out[rows*depth]"),
    ("logistic_s16 tanh_s16", "flex_s16_logistic flex_s16_tanh",
     "size inp[size] in_mult in_left_shift table[256] out[size]"),
    ("leaky_relu_s16", "flex_s16_leaky_relu",
     "size inp[size] in_zp out_zp pos_mult pos_shift neg_mult neg_shift out[size]"),
    ("quantize_s8 quantize_s16", "flex_s8_quantize flex_s16_quantize",
     "size inp[size] scale zp out[size]"),
    ("dequantize_s8 dequantize_s16", "flex_s8_dequantize flex_s16_dequantize",
     "size inp[size] scale zp out[size]"),
    ("fully_connected_f32", "flex_f32_fully_connected", "batches in_features out_features"
     " inp[batches*in_features] w[out_features*in_features] bias?[out_features] act"
     " out[batches*out_features]"),
    ("add_f32 mul_f32", "flex_f32_add_act flex_f32_mul_act",
     "size a[size] b[b_size] act out[size]"),
    ("clamp_f32", "flex_f32_act", "size inp[size] act out[size]"),
    ("logistic_f32", "flex_f32_unary", "FLEX_UNARY_SIGMOID size inp[size] out[size]"),
    ("tanh_f32", "flex_f32_unary", "FLEX_UNARY_TANH size inp[size] out[size]"),
    ("mean_f32", "flex_f32_mean", "outer reduce inner inp[outer*reduce*inner] out[outer*inner]"),
    ("softmax_f32", "flex_f32_softmax_beta", "rows depth inp[rows*depth] beta out[rows*depth]"),
    ("gather_s8", "flex_gather", "1 outer size inner count inp[outer*size*inner] pos[count]"
     " out[outer*count*inner]", "each position must lie in [0, {size})"),
    ("gather_f32", "flex_gather", "4 outer size inner count inp[outer*size*inner] pos[count]"
     " out[outer*count*inner]", "each position must lie in [0, {size})"),
    ("select_s16", "flex_select", "2 size cond[c_size] x[x_size] y[y_size] out[size]"),
    ("resize_s16", "flex_s16_resize_nearest", "n ih iw c oh ow inp[n*ih*iw*c] ys[oh*3] xs[ow*3]"
     " out[n*oh*ow*c]"),
    ("cast_s32_s8 cast_s32_s16 cast_s16_s8 cast_f32_s8 cast_f32_s16 cast_f32_s32 cast_s32_f32",
     "flex_cast_s32_s8 flex_cast_s32_s16 flex_cast_s16_s8 flex_cast_f32_s8 flex_cast_f32_s16 "
     "flex_cast_f32_s32 flex_cast_s32_f32", "size inp[size] out[size]"),
)


def kinds(rule=None):
    """The op kinds, in table order; only those with in-place rule `rule` when given."""
    return [op[0] for op in OPS if rule is None or op[1] == rule]


def tflite_ops(kind):
    """The TFLite builtin ops imported as op kind `kind`, the one it exports to first."""
    for op in OPS:
        if op[0] == kind:
            return op[2].split()
    raise KeyError(kind)


def kernels(kind_names=None):
    """The kernel names of the op kinds `kind_names` (default: every kind), in table order."""
    return [k for op in OPS if kind_names is None or op[0] in kind_names for k in op[3].split()]


def optional_kernels():
    """The kernels a default firmware leaves out, in table order: the optional kinds' and
    the int16, int32 and uint8 ones (names with "_s16", "_s32" or "_u8": int16x8 graphs and
    TFLM's quantized uint8 are rare on a board)."""
    left_out = kernels(OPTIONAL)
    return [k for k in kernels() if k in left_out or "_s16" in k or "_s32" in k or "_u8" in k]


def kernel_args(name):
    """(module, argument names) of kernel `name`; KeyError when the table lacks it."""
    for module, names, args in KERNELS:
        if name in names.split():
            out = []
            for a in args.split():
                out += GROUPS[a[1:]].split() if a[0] == "*" else [a]
            return module, out
    raise KeyError(name)


def kernel_calls():
    """[(kernel, flex_c function, words, hint)]: CALLS, one entry per kernel, in table order;
    `hint` ("" when the row gives none) adds to the host binding's error messages."""
    return [(k, f, row[2], row[3] if len(row) > 3 else "") for row in CALLS
            for k, f in zip(row[0].split(), row[1].split())]


def needs_fpu(name):
    """Whether kernel `name` works on float32 data, so that builds for a CPU without an FPU
    leave it out: the float kernels (`_f32`), the conversions between float32 and the
    integer types (quantize, dequantize, and the casts with `_f32` in their names), and the
    layout kernels without a type suffix, which serve float graphs (their `_s8` twins serve
    int8 ones)."""
    if name.startswith(("quantize_", "dequantize_")) or "_f32" in name:
        return True
    return not name.endswith(("_s8", "_s16", "_s32", "_u8", "_u32"))

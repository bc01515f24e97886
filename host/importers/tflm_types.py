"""The tensor types tflite-micro's reference kernels accept, op by op: what burn's import
coverage is measured against (burn.host.importers.op_coverage.pair_coverage).

Read from the type checks of the Prepare and Eval functions (and their *_common.cc helpers)
of the reference kernels in tensorflow/lite/micro/kernels/ of github.com/tensorflow/tflite-micro
at commit 90b983c2b3f1480642e040bbd2ddb37b998f3424; the optimized kernel folders are left
out. The ops are those MicroMutableOpResolver registers as builtin operators.

ROWS: (op, input types, output type, note). The input types, space-separated, are those of
the op's data input (the one the kernel switches on); each makes a pair with the output
type, or with itself where the output is SAME. Operands that only give a shape, an axis or
indices, and the weights of the ops that have them, are in the note: for those ops a pair
is the activation types (CONV_2D int16 -> int16 runs with int8 weights, "int16x8"). No
reference kernel runs float32 activations with int8 weights ("hybrid"), but for
EMBEDDING_LOOKUP's int8 table read into float32.

Type words are TFLite's type names, lower case, and three more: "any" (the kernel moves
bytes and takes any type; pair_types() spells it out as each type the other rows name),
"none" (no tensor on that side) and "resource" (a resource variable's handle).
"""

SAME = "same"  # the output has the input's type

ROWS = (
    ("ABS", "float32 int8 int16", SAME, "int16 quantized or plain"),
    ("ADD", "float32 int8 int16 int32", SAME, "int32 without quantization"),
    ("ADD_N", "float32 int8", SAME, "all inputs of one type (int8: one scale and zero point)"),
    ("ARG_MAX", "float32 int8", "int32", "axis int32"),
    ("ARG_MIN", "float32 int8", "int32", "axis int32"),
    ("ASSIGN_VARIABLE", "any", "none", "the value; the variable's id is a resource or int32"),
    ("AVERAGE_POOL_2D", "float32 int8 int16", SAME, ""),
    ("BATCH_MATMUL", "float32 int8 int16", SAME, "both operands of the input type"),
    ("BATCH_TO_SPACE_ND", "float32 int8", SAME, "block shape and crops int32"),
    ("BROADCAST_ARGS", "int32 int64", SAME, "two shapes and the output of one type"),
    ("BROADCAST_TO", "any", SAME, "not string; shape int32 or int64"),
    ("CALL_ONCE", "none", "none", "runs its init subgraph once; no tensors"),
    ("CAST", "float32 int8 int16 int32 uint32 bool", "float32", "values converted as C does"),
    ("CAST", "float32 int8 int16 int32 uint32 bool", "int8", "values converted as C does"),
    ("CAST", "float32 int8 int16 int32 uint32 bool", "int16", "values converted as C does"),
    ("CAST", "float32 int8 int16 int32 uint32 bool", "int32", "values converted as C does"),
    ("CAST", "float32 int8 int16 int32 uint32 bool", "uint32", "values converted as C does"),
    ("CEIL", "float32", SAME, ""),
    ("CONCATENATION", "float32 int8 int16 int32 int64 bool", SAME,
     "int8 inputs of the output's scale and zero point; int16 zero points 0"),
    ("CONV_2D", "float32", SAME, "float32 weights"),
    ("CONV_2D", "int8", SAME, "int8 or int4 weights"),
    ("CONV_2D", "int16", SAME, "int8 weights (int16x8), int32 or int64 bias"),
    ("COS", "float32", SAME, ""),
    ("CUMSUM", "float32 int8", SAME, "axis int32"),
    ("DEPTHWISE_CONV_2D", "float32", SAME, "float32 weights"),
    ("DEPTHWISE_CONV_2D", "int8", SAME, "int8 or int4 weights"),
    ("DEPTHWISE_CONV_2D", "int16", SAME, "int8 weights (int16x8)"),
    ("DEPTH_TO_SPACE", "float32 int8", SAME, ""),
    ("DEQUANTIZE", "int8 int16 uint8", "float32", ""),
    ("DIV", "float32 int8 int32", SAME, "int32 without quantization"),
    ("DYNAMIC_UPDATE_SLICE", "float32 int8 int16 int32", SAME,
     "update of the operand's type; start indices int32 or int64"),
    ("ELU", "float32 int8", SAME, ""),
    ("EMBEDDING_LOOKUP", "float32 int8", SAME, "the table's type; ids int32"),
    ("EMBEDDING_LOOKUP", "int8", "float32", "hybrid: the int8 table dequantized; ids int32"),
    ("EQUAL", "float32 int8 int32 int64 bool", "bool", ""),
    ("EXP", "float32", SAME, ""),
    ("EXPAND_DIMS", "float32 int8 int16", SAME, "axis a constant int32"),
    ("FILL", "float32 int8 int32", SAME,
     "the scalar value's type; dims a constant int8, int16, int32 or int64"),
    ("FLOOR", "float32", SAME, ""),
    ("FLOOR_DIV", "float32", SAME, ""),
    ("FLOOR_MOD", "float32", SAME, ""),
    ("FULLY_CONNECTED", "float32", SAME, "float32 weights"),
    ("FULLY_CONNECTED", "int8", SAME, "int8 or int4 weights"),
    ("FULLY_CONNECTED", "int16", SAME, "int8 weights (int16x8), int32 or int64 bias"),
    ("GATHER", "float32 int8", SAME, "positions int32"),
    ("GATHER_ND", "float32 int8", SAME, "indices int32"),
    ("GREATER", "float32 int8 int16 int32 int64", "bool", ""),
    ("GREATER_EQUAL", "float32 int8 int32 int64", "bool", ""),
    ("HARD_SWISH", "float32 int8", SAME, ""),
    ("IF", "bool", "any", "the condition; the other operands and the outputs, of any type, "
     "pass to and from the branch subgraphs"),
    ("L2_NORMALIZATION", "float32 int8", SAME, ""),
    ("L2_POOL_2D", "float32", SAME, ""),
    ("LEAKY_RELU", "float32 int8 int16", SAME, ""),
    ("LESS", "float32 int8 int32 int64", "bool", ""),
    ("LESS_EQUAL", "float32 int8 int32 int64", "bool", ""),
    ("LOG", "float32", SAME, ""),
    ("LOGICAL_AND", "bool", SAME, "no type check: the data are read as bool"),
    ("LOGICAL_NOT", "bool", SAME, ""),
    ("LOGICAL_OR", "bool", SAME, "no type check: the data are read as bool"),
    ("LOGISTIC", "float32 int8 int16", SAME, ""),
    ("LOG_SOFTMAX", "float32 int8", SAME, ""),
    ("MAXIMUM", "float32 int8 int16 int32 int64", SAME, ""),
    ("MAX_POOL_2D", "float32 int8 int16", SAME, ""),
    ("MEAN", "float32 int8 int16", SAME, "axis int32"),
    ("MINIMUM", "float32 int8 int16 int32 int64", SAME, ""),
    ("MIRROR_PAD", "float32 int8", SAME, "paddings int32 or int64"),
    ("MUL", "float32 int8 int16 int32", SAME, "int16 zero points 0"),
    ("NEG", "float32", SAME, ""),
    ("NOT_EQUAL", "float32 int8 int32 int64 bool", "bool", ""),
    ("PACK", "float32 int8 int16 int32 int64", SAME, ""),
    ("PAD", "float32 int8 int16 int32", SAME, ""),
    ("PADV2", "float32 int8 int16 int32", SAME, "the pad value of the input's type"),
    ("PRELU", "float32 int8 int16", SAME, "int16 input: int8 alpha"),
    ("QUANTIZE", "float32 int8 int16 int32 uint8", "int8",
     "Prepare lets float32 to int32 or uint8 through, Eval refuses them"),
    ("QUANTIZE", "float32 int8 int16 int32", "int16", ""),
    ("QUANTIZE", "int8 int16", "int32", ""),
    ("QUANTIZE", "int8", "uint8", ""),
    ("READ_VARIABLE", "resource", "any", "the variable's value"),
    ("REDUCE_ALL", "bool", SAME, "axis int32"),
    ("REDUCE_MAX", "float32 int8", SAME, "axis int32"),
    ("REDUCE_MIN", "float32 int8", SAME, "axis int32"),
    ("RELU", "float32 int8 int16", SAME, ""),
    ("RELU6", "float32 int8 int16", SAME, ""),
    ("RESHAPE", "any", SAME, "a byte copy; the shape operand int32"),
    ("RESIZE_BILINEAR", "float32 int8", SAME, "size int32"),
    ("RESIZE_NEAREST_NEIGHBOR", "float32 int8 int16", SAME, "size int32"),
    ("REVERSE_V2", "float32 int8 int16 int32 int64 uint8 bool", SAME, "axis int32"),
    ("ROUND", "float32", SAME, ""),
    ("RSQRT", "float32 int8", SAME, "Eval has an int16 branch that Prepare never lets in"),
    ("SELECT_V2", "float32 int8 int16", SAME, "condition bool"),
    ("SHAPE", "any", "int32", "reads only the input's shape"),
    ("SIN", "float32", SAME, ""),
    ("SLICE", "float32 int8 int16 int32 bool", SAME, "begin and size int32 or int64"),
    ("SOFTMAX", "float32 int8 int16", SAME, ""),
    ("SOFTMAX", "int8", "int16", ""),
    ("SPACE_TO_BATCH_ND", "float32 int8", SAME, "block shape and paddings int32"),
    ("SPACE_TO_DEPTH", "float32 int8", SAME, ""),
    ("SPLIT", "float32 int8 int16 int32", SAME, "axis int32"),
    ("SPLIT_V", "float32 int8 int16 int32", SAME, ""),
    ("SQRT", "float32", SAME, ""),
    ("SQUARE", "float32", SAME, ""),
    ("SQUARED_DIFFERENCE", "float32 int8 int16 int32", SAME, ""),
    ("SQUEEZE", "any", SAME, "not string"),
    ("STRIDED_SLICE", "float32 int8 int16 int32 bool", SAME, ""),
    ("SUB", "float32 int8 int16 int32", SAME, "int32 without quantization"),
    ("SUM", "float32 int8 int16", SAME, "axis int32"),
    ("SVDF", "float32", SAME, "float32 weights and state"),
    ("SVDF", "int8", SAME,
     "int8 feature weights, int16 or int8 time weights and state, int32 bias"),
    ("TANH", "float32 int8 int16", SAME, ""),
    ("TRANSPOSE", "float32 int8 int16", SAME, ""),
    ("TRANSPOSE_CONV", "float32", SAME, "float32 weights"),
    ("TRANSPOSE_CONV", "int8", SAME, "int8 weights"),
    ("TRANSPOSE_CONV", "int16", SAME, "int8 weights (int16x8), int16 or int64 bias"),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "float32", SAME, "float32 weights and cell state"),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "int8", SAME,
     "int8 weights, int16 cell state, int32 bias"),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "int16", SAME,
     "int8 weights, int16 cell state, int64 bias"),
    ("UNPACK", "float32 int8 int16 int32", SAME, ""),
    ("VAR_HANDLE", "none", "resource", ""),
    ("WHILE", "any", SAME, "the loop's tensors keep their types"),
    ("ZEROS_LIKE", "float32 int8 int32 int64", SAME, ""),
)

COMMIT = "90b983c2b3f1480642e040bbd2ddb37b998f3424"


def _type_order(name):
    """Sort key: bool, float32, then the integer types by kind and width."""
    kind = name.rstrip("0123456789")
    return kind, int(name[len(kind):] or 0)


def named_types():
    """The tensor types the rows name (bool, float32, int8 ...): what "any" stands for."""
    words = {w for _op, ins, out, _note in ROWS for w in ins.split() + [out]}
    return tuple(sorted(words - {"any", "none", "resource", SAME}, key=_type_order))


def pair_types():
    """{op: ((input type, output type), ...)}: every pair TFLM accepts, "any" spelled out,
    in table order."""
    anys = named_types()
    found = {}
    for op, ins, out, _note in ROWS:
        pairs = found.setdefault(op, [])
        for a in ins.split():
            for x in anys if a == "any" else (a,):
                for y in (x,) if out == SAME else anys if out == "any" else (out,):
                    if (x, y) not in pairs:
                        pairs.append((x, y))
    return {op: tuple(pairs) for op, pairs in found.items()}

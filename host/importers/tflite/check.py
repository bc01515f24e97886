"""The checks around the conversion: the TFLite model's structure before any op is converted
(`check_structure`), and each converted graph op's parameters and its int32, int64, uint8 and
uint32 tensors after."""

import math

from burn.bst import PLAIN_INTS
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite.common import INT32
from burn.host.importers.tflite.registry import CONVERTERS, SUPPORTED, Fail
from burn.host.importers.tflite_read import unreadable_tensors
from burn.shape import numel

MAX_OPS = 1024         # far beyond any microcontroller model; keeps planning quick
MAX_ARENA = 64 << 20   # burn.load's default arena limit on the host


# the ops that may have no output (CALL_ONCE, ASSIGN_VARIABLE; an IF or WHILE of no tensors)
NO_OUTPUT = ("CALL_ONCE", "ASSIGN_VARIABLE", "IF", "WHILE")


def check_structure(tf, main=True):
    """Refuse what no conversion can use: unsupported ops (all named at once), too many
    ops, missing inputs or outputs (a subgraph, `main` False, may have none), and ops
    without the tensors they need."""
    odd = unreadable_tensors(tf)
    if odd:
        raise TFLiteImportError("tensors of unsupported types: " + ", ".join(
            "%d (%s) %s" % (i, tf.tensors[i].name, tf.tensors[i].type_name) for i in odd))
    bad = [n for n in tf.ops if n.name not in SUPPORTED]
    if bad:
        raise TFLiteImportError("unsupported ops: " + ", ".join(
            n.where() for n in bad))
    if len(tf.ops) > MAX_OPS:
        raise TFLiteImportError("%d ops: more than %d" % (len(tf.ops), MAX_OPS))
    if main and (not tf.inputs or not tf.outputs):
        raise TFLiteImportError("the model needs at least one input and one output")
    for n in tf.ops:
        spec = CONVERTERS.get(n.name)  # None: a folded op, which renames its one input
        need = spec.arity if spec else 1
        many = spec is not None and spec.many_outputs
        outs = "outputs" if many else "one output"
        if len(n.inputs) < need or any(t < 0 for t in n.inputs[:need]) or \
                (not n.outputs and n.name not in NO_OUTPUT) or \
                (len(n.outputs) != 1 and not many) or min(n.outputs, default=0) < 0:
            raise TFLiteImportError("%s: needs %d inputs and %s, has %s -> %s"
                                    % (n.where(), need, outs, n.inputs, n.outputs))
        for t in n.inputs + n.outputs:
            tt = tf.tensors[t] if t >= 0 else None
            if tt is not None and tt.data is None and tt.dtype is not None and \
                    not 0 < numel(tt.shape) * tt.dtype.itemsize <= MAX_ARENA:
                raise TFLiteImportError("%s: tensor %d (%s) has shape %s: empty or too large"
                                        % (n.where(), t, tt.name, tt.shape))


# multipliers that may be negative: int16 LEAKY_RELU's of a negative slope (TFLM multiplies
# by it as it is)
_SIGNED = {("unary", "neg_mult")}


def check_op(op):
    """Refuse parameters no .bst kernel can take: integers beyond int32, multipliers and
    shifts out of range, numbers that are not finite."""
    values = dict(op.params)
    for name in ("mult", "shift"):
        if name in op.consts:
            values[name] = op.consts[name].tolist()
    for name, v in values.items():
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, float) and not math.isfinite(x):
                raise Fail("parameter %s is %r" % (name, x))
            if isinstance(x, int) and not INT32[0] <= x <= INT32[1]:
                raise Fail("parameter %s = %d is beyond int32" % (name, x))
            if name.endswith("shift") and name != "left_shift" and not -31 <= x <= 31:
                raise Fail("requantization shift %d out of range (scales too far apart)"
                           % x)
            low = -(1 << 31) if (op.op, name) in _SIGNED else 0
            if name.endswith("mult") and not low <= x < (1 << 31):
                raise Fail("requantization multiplier %d out of range" % x)


# the op kinds that take int32 tensors, and where: (input positions, output positions),
# negative ones counted from the end
_INT32_USES = {"arg": ((), (0,)), "copy": ((0,), (0,)), "gather": ((-1,), ())}
# the kinds that take int32 tensors anywhere where the TFLite op's converter runs on int32
# data (`int32=True`): the moves, whose kernels carry elements of any size, the
# requantizations to and from int32, the int32 arithmetic (burn.graph.s32_arith) and the
# casts (burn.graph.cast)
MOVES = ("copy", "concat", "pad", "strided")
INT32_DATA = MOVES + ("requantize", "add", "mul", "sub", "div", "maximum", "minimum",
                      "squared_difference", "compare", "cast", "if", "while", "call_once",
                      "read_variable", "assign_variable", "constant")


def check_int32(c, op, data=False):
    """Refuse an int32 tensor where the op's kernels do not take one: int32 indices (ARG_MAX's
    output, GATHER's positions) and, where the TFLite op runs on int32 data (`data`), the
    kinds of INT32_DATA."""
    if data and op.op in INT32_DATA:
        return
    ins, outs = _INT32_USES.get(op.op, ((), ()))
    for where, tids, ok in (("input", op.inputs, ins), ("output", op.outputs, outs)):
        for k, t in enumerate(tids):
            if c.tensors[t].dtype == "int32" and k not in ok and k - len(tids) not in ok:
                raise Fail("int32 %s %d: this op takes int32 tensors only as indices (ARG_MAX "
                           "and ARG_MIN outputs, GATHER and EMBEDDING_LOOKUP positions)"
                           % (where, k))


# the kinds that take int64, uint8 and uint32 tensors (burn.bst.PLAIN_INTS) where the TFLite
# op's converter takes their type (`plain_ints`): the moves and the control ops, int64
# comparisons, maximum and minimum (burn.graph.s32_arith's Python kernels), uint32 casts,
# uint8 (de)quantizations (burn.graph.s16_quantize's)
PLAIN_DATA = MOVES + ("if", "while", "call_once", "read_variable", "assign_variable",
                      "constant", "compare", "maximum", "minimum", "cast", "requantize",
                      "dequantize")


def check_plain_ints(c, op, types=()):
    """Refuse an int64, uint8 or uint32 tensor where the op's kernels take none: they run
    only in the kinds of PLAIN_DATA, and only the `types` the TFLite op takes."""
    for t in op.inputs + op.outputs:
        dtype = c.tensors[t].dtype
        if dtype in PLAIN_INTS and (op.op not in PLAIN_DATA or dtype not in types):
            raise Fail("%s tensors are not supported by this op" % dtype)

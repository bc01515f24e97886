"""The engine of the TFLite importer: the converter state handed to each op's converter (the
graph's tensors and ops so far), the folding of reshape-like ops, and `build_graph`, which
converts, checks and plans a model's whole graph.

Reshape-like ops are folded away (they only rename a buffer); where the consumer needs the
new shape (a window, a pad, a softmax row) the buffer is copied into a tensor of that shape
instead, which the arena planner lays over the original. Ops the runtime cannot run are all
reported at once, each with its node index.
"""

import numpy as np

import burn
from burn.bst import PLAIN_INTS
from burn.graph import quant_params as qp
from burn.host.arena_plan import plan_arena
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, SubGraph, encode_bst
from burn.host.importers import tflite_control, tflite_move
from burn.host.importers.errors import TFLiteImportError

# importing the handler modules registers their converters
from burn.host.importers.tflite import (  # noqa: F401
    ops_activation,
    ops_control,
    ops_conv,
    ops_elementwise,
    ops_logic,
    ops_matrix,
    ops_reduce,
    ops_shape,
)
from burn.host.importers.tflite.check import (
    MAX_ARENA,
    check_int32,
    check_op,
    check_plain_ints,
    check_structure,
)
from burn.host.importers.tflite.common import sane_scale
from burn.host.importers.tflite.registry import CONVERTERS, FOLDED, Fail
from burn.shape import numel

# the value range of each quantized activation type
_RANGE = {np.dtype(np.int8): (-128, 127), np.dtype(np.int16): (-32768, 32767),
          np.dtype(np.int32): (-(1 << 31), (1 << 31) - 1), np.dtype(np.uint8): (0, 255)}


def _quantized(tt):
    """Whether TFLite tensor `tt` is a quantized one of the .bst: int8 and int16 always,
    uint8 where it has a scale (TFLM's QUANTIZE and DEQUANTIZE; else plain data)."""
    return tt.dtype in (np.int8, np.int16) or (tt.dtype == np.uint8 and bool(tt.scales))


def _short(name):
    """The first of the names a converter joins with ';' (the model file keeps it in RAM)."""
    return name.split(";")[0][-48:]


class Converter:
    """What the converters read and build: the TFLite model `tf` and the graph's tensors
    and ops so far."""

    def __init__(self, tf, alias, tensors=None, control=None):
        self.tf = tf
        self.alias = alias  # reshape output -> the tensor it renames
        self.tensors = [] if tensors is None else tensors  # shared by a model's subgraphs
        self.index = {}   # TFLite tensor index -> graph tensor index
        self.copies = {}  # reshape output -> graph tensor of its own shape
        self.ops = []
        self.shaped = False  # does the op being converted need its inputs' own shapes?
        self.control = control  # tflite_control.Control: subgraphs and variables
        self.sub = tf.index  # the TFLite subgraph being converted

    def stored(self, t):
        """The data of constant tensor t as the .bst holds it (BOOL as int8 0/1)."""
        return ops_control.stored(self.tf.tensors[t].data, self.tf.tensors[t].dtype)

    def operand(self, t):
        """The graph tensor of t, an activation or a constant: a constant is copied into a
        tensor of its own by a `constant` op (an IF or WHILE operand, a subgraph output)."""
        tt = self.tf.tensors[t]
        if tt.data is None:
            return self.act(t)
        data = self.stored(t)
        if _quantized(tt):
            scale, zp = self.quant(t)
            g = GraphTensor(_short(tt.name), tt.shape, tt.dtype.name, scale, zp)
        elif tt.dtype == np.bool_:
            g = GraphTensor(_short(tt.name), tt.shape, "int8", 1.0, 0, is_bool=True)
        else:
            g = GraphTensor(_short(tt.name), tt.shape, tt.dtype.name)
        self.tensors.append(g)
        self.ops.append(GraphOp("constant", [], [len(self.tensors) - 1],
                                consts={"value": data.reshape(-1)}))
        return len(self.tensors) - 1

    def act(self, t):
        """The graph tensor of activation t (made on first use)."""
        if t in self.alias:
            src = self.alias[t]
            if not self.shaped or self.shape(t) == self.shape(src):
                return self.act(src)
            if t not in self.copies:
                x = self.act(src)
                self.copies[t] = self._new(t)
                self.ops.append(GraphOp("copy", [x], [self.copies[t]]))
            return self.copies[t]
        if t not in self.index:
            if self.tf.tensors[t].data is not None:  # filled by a `constant` op before use
                self.index[t] = self.operand(t)
            else:
                self.index[t] = self._new(t)
        return self.index[t]

    def _new(self, t):
        """A new graph tensor for TFLite activation t, of its type and quantization."""
        tt = self.tf.tensors[t]
        if tt.data is not None:
            raise Fail("constant tensor %d (%s) used as an activation" % (t, tt.name))
        if _quantized(tt):
            scale, zp = self.quant(t)
            g = GraphTensor(_short(tt.name), tt.shape, tt.dtype.name, scale, zp)
        elif tt.dtype == np.bool_:  # int8 0/1 (docs/import.md)
            g = GraphTensor(_short(tt.name), tt.shape, "int8", 1.0, 0, is_bool=True)
        elif tt.dtype in (np.float32, np.int32) or tt.dtype.name in PLAIN_INTS:
            g = GraphTensor(_short(tt.name), tt.shape, tt.dtype.name)  # no quantization
        else:
            raise Fail("tensor %d (%s) is %s; activations must be int8, int16, int32, int64, "
                       "uint8, uint32, float32 or bool" % (t, tt.name, tt.dtype.name))
        self.tensors.append(g)
        return len(self.tensors) - 1

    def quant(self, t):
        """(scale, zero point) of quantized tensor t, checked."""
        tt = self.tf.tensors[t]
        if len(tt.scales) != 1 or len(tt.zero_points) != 1:
            raise Fail("tensor %d (%s) needs one scale and zero point" % (t, tt.name))
        scale, zp = tt.scales[0], tt.zero_points[0]
        lo, hi = _RANGE.get(tt.dtype, _RANGE[np.dtype(np.int8)])
        if not sane_scale(scale) or not lo <= zp <= hi:
            raise Fail("tensor %d (%s): bad quantization %r, %r" % (t, tt.name, scale, zp))
        return scale, zp

    def const(self, t, what):
        """The data of constant tensor t (`what` names it in the error)."""
        if t < 0 or self.tf.tensors[t].data is None:
            raise Fail(what + " must be a constant tensor")
        return self.tf.tensors[t].data

    def shape(self, t):
        """The TFLite shape of tensor t."""
        return self.tf.tensors[t].shape

    def shape4(self, t):
        """The NHWC shape of tensor t, which must be 4-D."""
        shape = self.shape(t)
        if len(shape) != 4:
            raise Fail("tensor %d must be 4-D (NHWC), got shape %s" % (t, shape))
        return shape

    def emit(self, op, node, consts=None, params=None, ins=None, outs=None):
        """Append graph op `op` of TFLite node `node`: its inputs `ins` (default: the
        first), its outputs `outs` (default: all)."""
        inputs = [self.act(t) for t in (ins if ins is not None else node.inputs[:1])]
        outputs = [self.act(t) for t in (outs if outs is not None else node.outputs)]
        self.ops.append(GraphOp(op, inputs, outputs, consts, params))

    def is_int8(self, node):
        """Whether node's first input is int8."""
        return self.tf.tensors[node.inputs[0]].dtype == np.int8

    def fused(self, node):
        """The node's fused activation code, checked."""
        code = node.options["FusedActivationFunction"] if node.options else 0
        if code not in (0, 1, 2, 3):  # NONE, RELU, RELU_N1_TO_1, RELU6: burn's codes too
            raise Fail("fused activation %d not supported" % code)
        return code

    def is_int16(self, node):
        """Whether node's first input is int16."""
        return self.tf.tensors[node.inputs[0]].dtype == np.int16

    def is_int32(self, node):
        """Whether node's first input is int32."""
        return self.tf.tensors[node.inputs[0]].dtype == np.int32

    def out_quant_params(self, node, code):
        """The output zero point and the clamp of fused activation `code`, quantized."""
        out_scale, out_zp = self.quant(node.outputs[0])
        lo, hi = qp.quant_activation_range(code, out_scale, out_zp,
                                           *_RANGE[self.tf.tensors[node.outputs[0]].dtype])
        return {"out_zp": out_zp, "act_min": lo, "act_max": hi}


def _identity_move(tf, node):
    """Whether `node` is a data-movement op that copies its input unchanged (a transpose or
    slice that keeps everything in order) into an output of the same quantization."""
    if node.name not in tflite_move.OPS or len(node.outputs) != 1:
        return False
    try:
        params = tflite_move.boxes(tf, node)[0]
    except (tflite_move.MoveError, *_MALFORMED):
        return False  # its conversion reports what is wrong
    a, b = tf.tensors[tflite_move.data_input(node)], tf.tensors[node.outputs[0]]
    return (a.scales, a.zero_points) == (b.scales, b.zero_points) and \
        tflite_move.is_identity(params, numel(a.shape))


def _fold_aliases(tf):
    """Map the output of each reshape-like op, and of each identity move, to the tensor it
    renames; returns {out: in}."""
    alias = {}
    for node in tf.ops:
        if node.name in tflite_move.OPS and _identity_move(tf, node):
            src = tflite_move.data_input(node)
            alias[node.outputs[0]] = alias.get(src, src)
        elif node.name in FOLDED:
            where = node.where()
            if not node.inputs or node.inputs[0] < 0 or len(node.outputs) != 1:
                raise TFLiteImportError("%s: needs one input and one output" % where)
            src = alias.get(node.inputs[0], node.inputs[0])
            a, b = tf.tensors[src], tf.tensors[node.outputs[0]]
            if a.dtype != b.dtype or (a.dtype in (np.int8, np.int16) and
                                      (a.scales, a.zero_points) != (b.scales, b.zero_points)):
                raise TFLiteImportError("%s: input and output quantization differ" % where)
            if np.prod(a.shape, dtype=np.int64) != np.prod(b.shape, dtype=np.int64):
                raise TFLiteImportError("%s: %s and %s differ in size" % (where, a.shape,
                                                                           b.shape))
            alias[node.outputs[0]] = src
    return alias


def _convert(tf, alias, tensors=None, control=None):
    """The graph's tensors and ops; every node that cannot be converted is reported at once.
    A subgraph's (tf.index > 0) inputs and outputs leave its resource handles out, and its
    constant outputs become `constant` ops."""
    conv = Converter(tf, alias, tensors, control)
    errors = []
    for node in tf.ops:
        if node.name in FOLDED or (node.outputs and node.outputs[0] in alias):
            continue
        first = len(conv.ops)
        try:
            spec = CONVERTERS[node.name]
            conv.shaped = spec.shaped
            # the data input, not an op's own int16 parts (SVDF's weights_time and state) nor
            # outputs, which the op's converter checks with TFLM's reasons (ARG_MAX's index)
            if not spec.int16 and node.inputs and node.inputs[0] >= 0 and \
                    tf.tensors[node.inputs[0]].dtype == np.int16:
                raise Fail("int16 tensors are not supported by this op yet")
            if not spec.bool_inputs and \
                    any(t >= 0 and tf.tensors[t].dtype == np.bool_ for t in node.inputs):
                raise Fail("BOOL inputs are not supported by this op")
            spec.convert(conv, node)
            for op in conv.ops[first:]:
                check_op(op)
                check_int32(conv, op, spec.int32)
                check_plain_ints(conv, op, spec.plain_ints)
        except Fail as e:
            errors.append("%s: %s" % (node.where(), e))
        except _MALFORMED as e:
            errors.append("%s: malformed: %s: %s" % (node.where(), type(e).__name__, e))
    if errors:
        raise TFLiteImportError("cannot import: " + "; ".join(errors), errors)
    conv.shaped = False
    main = tf.index == 0
    try:
        inputs = [(conv.act(t), tf.tensors[t].shape) for t in tf.inputs
                  if main or not tflite_control.is_resource(tf, t)]
        outputs = [(conv.act(t) if main else conv.operand(t), tf.tensors[t].shape)
                   for t in tf.outputs if main or not tflite_control.is_resource(tf, t)]
    except Fail as e:
        raise TFLiteImportError("%sgraph inputs/outputs: %s" % (
            "" if main else "subgraph %d " % tf.index, e)) from e
    return conv, inputs, outputs


# What numpy and the conversion functions raise on inconsistent (hostile) models, beyond
# the checks made on purpose.
_MALFORMED = (ValueError, IndexError, TypeError, ArithmeticError, KeyError)


def build_graph(tf, labels=(), metadata=None):
    """The checked, planned Graph (no tests yet) of a TfModel, whichever front end made it
    (the TFLite reader, or the ONNX QDQ one), and its arena plan {region: bytes}. Raises
    TFLiteImportError naming every op that cannot be converted."""
    control = tflite_control.plan(tf)  # the subgraphs that run, the variables
    check_structure(tf)
    for s in control.order:
        check_structure(tf.subgraphs[s], main=False)
    conv, inputs, outputs = _convert(tf, _fold_aliases(tf), None, control)
    subgraphs = []
    for s in control.order:
        sub = tf.subgraphs[s]
        sconv, ins, outs = _convert(sub, _fold_aliases(sub), conv.tensors, control)
        subgraphs.append(SubGraph(sconv.ops, [t for t, _s in ins], [t for t, _s in outs]))
    graph = Graph(conv.tensors, conv.ops, inputs, outputs, labels=labels,
                  metadata=dict(metadata or {}), subgraphs=subgraphs,
                  variables=control.variables())
    try:
        _offsets, arena = plan_arena(graph)
    except ValueError as e:
        raise TFLiteImportError("the graph cannot be planned: %s" % e) from e
    if sum(arena.values()) > MAX_ARENA:
        raise TFLiteImportError("the activations need %d bytes, more than %d"
                                % (sum(arena.values()), MAX_ARENA))
    try:
        burn.load(encode_bst(graph))
    except ValueError as e:
        raise TFLiteImportError("burn's runtime refuses the converted graph: %s" % e) from e
    return graph, arena

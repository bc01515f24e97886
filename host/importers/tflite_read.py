"""Read a TFLite flatbuffer (with the `tflite` package) into plain Python objects.

Every vector length is checked against the file size before it is walked, so a hostile file
cannot make the reader loop or allocate without bound. Every field the importer uses is read
here, options included, so the flatbuffer accessors (which fail in many ways on hostile
bytes) run nowhere else; anything malformed is a `TFLiteImportError`.
"""

import struct

import numpy as np
import tflite
from tflite.BuiltinOptions import BuiltinOptions
from tflite.TensorType import TensorType

from burn.host.importers.errors import TFLiteImportError

# TFLite TensorType codes -> numpy dtypes.
_TYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_,
          7: np.int16, 9: np.int8, 15: np.uint32}
_TYPE_NAMES = {code: name for name, code in vars(TensorType).items() if not name.startswith("_")}

_WINDOW = ("Padding", "StrideH", "StrideW", "FusedActivationFunction")
_DILATION = ("DilationHFactor", "DilationWFactor")
# The options table of each op the importer reads, and the fields it reads from it.
_OPTIONS = {
    "CONV_2D": ("Conv2DOptions", _WINDOW + _DILATION + ("QuantizedBiasType",)),
    "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", _WINDOW + _DILATION),
    "FULLY_CONNECTED": ("FullyConnectedOptions", ("FusedActivationFunction", "WeightsFormat",
                                                  "QuantizedBiasType")),
    "ADD": ("AddOptions", ("FusedActivationFunction",)),
    "MUL": ("MulOptions", ("FusedActivationFunction",)),
    "AVERAGE_POOL_2D": ("Pool2DOptions", _WINDOW + ("FilterHeight", "FilterWidth")),
    "MAX_POOL_2D": ("Pool2DOptions", _WINDOW + ("FilterHeight", "FilterWidth")),
    "SOFTMAX": ("SoftmaxOptions", ("Beta",)),
    "CONCATENATION": ("ConcatenationOptions", ("Axis", "FusedActivationFunction")),
    "PACK": ("PackOptions", ("ValuesCount", "Axis")),
    "TRANSPOSE_CONV": ("TransposeConvOptions", ("Padding", "StrideH", "StrideW",
                                                "FusedActivationFunction")),
    "LEAKY_RELU": ("LeakyReluOptions", ("Alpha",)),
    "SVDF": ("SVDFOptions", ("Rank", "FusedActivationFunction")),
    "STRIDED_SLICE": ("StridedSliceOptions", ("BeginMask", "EndMask", "EllipsisMask",
                                              "NewAxisMask", "ShrinkAxisMask", "Offset")),
    "SPLIT": ("SplitOptions", ("NumSplits",)),
    "SPLIT_V": ("SplitVOptions", ("NumSplits",)),
    "UNPACK": ("UnpackOptions", ("Num", "Axis")),
    "DEPTH_TO_SPACE": ("DepthToSpaceOptions", ("BlockSize",)),
    "SPACE_TO_DEPTH": ("SpaceToDepthOptions", ("BlockSize",)),
    "GATHER": ("GatherOptions", ("Axis", "BatchDims")),
    "MIRROR_PAD": ("MirrorPadOptions", ("Mode",)),
    "RESIZE_BILINEAR": ("ResizeBilinearOptions", ("AlignCorners", "HalfPixelCenters")),
    "RESIZE_NEAREST_NEIGHBOR": ("ResizeNearestNeighborOptions",
                                ("AlignCorners", "HalfPixelCenters")),
    "L2_NORMALIZATION": ("L2NormOptions", ("FusedActivationFunction",)),
    "BATCH_MATMUL": ("BatchMatMulOptions", ("AdjX", "AdjY")),
    "SUB": ("SubOptions", ("FusedActivationFunction",)),
    "DIV": ("DivOptions", ("FusedActivationFunction",)),
    "L2_POOL_2D": ("Pool2DOptions", _WINDOW + ("FilterHeight", "FilterWidth")),
    "CUMSUM": ("CumsumOptions", ("Exclusive", "Reverse")),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": ("UnidirectionalSequenceLSTMOptions",
                                     ("FusedActivationFunction", "CellClip", "TimeMajor")),
    "IF": ("IfOptions", ("ThenSubgraphIndex", "ElseSubgraphIndex")),
    "WHILE": ("WhileOptions", ("CondSubgraphIndex", "BodySubgraphIndex")),
    "CALL_ONCE": ("CallOnceOptions", ("InitSubgraphIndex",)),
    "VAR_HANDLE": ("VarHandleOptions", ("Container", "SharedName")),
}
RESOURCE = "RESOURCE"  # the type name of a resource variable's handle (VAR_HANDLE's output)


class TfTensor:
    """A tensor of the subgraph: name, shape, numpy dtype, constant data (or None) and
    quantization (scales and zero points as lists, the quantized dimension), and whether it
    is a variable tensor (state kept between invocations, TFLite's is_variable). A tensor of a
    TFLite type numpy cannot hold has dtype None, no data, and its type in `type_name`
    ('STRING', 'COMPLEX64', ...); `type_name` is the numpy dtype's name otherwise."""

    def __init__(self, name, shape, dtype, data, scales, zero_points, qdim, type_name=None,
                 variable=False):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.data = data
        self.scales = scales
        self.zero_points = zero_points
        self.qdim = qdim
        self.type_name = type_name or dtype.name
        self.variable = variable


class TfOp:
    """An operator: index, name ('CONV_2D', 'CUSTOM(foo)'), input and output tensor indices
    (-1 marks an omitted optional input) and its builtin options as a dict of the fields the
    importer uses (None when the file has no options table for it). `label` names the op in
    errors when another front end (ONNX) made it; by default 'node 3 (CONV_2D)'."""

    def __init__(self, index, name, inputs, outputs, options, label=None):
        self.index = index
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.options = options
        self.label = label

    def where(self):
        """How errors name the op."""
        return self.label or "node %d (%s)" % (self.index, self.name)


class TfModel:
    """A subgraph of a TFLite model: tensors, operators, inputs, outputs. The model's is
    its first subgraph's, and `subgraphs` lists every subgraph in the file's order (the
    first is the model itself), which IF, WHILE and CALL_ONCE name by index; `index` is
    the subgraph's."""

    def __init__(self, tensors, ops, inputs, outputs, description, subgraphs=None, index=0,
                 name=""):
        self.tensors = tensors
        self.ops = ops
        self.inputs = inputs
        self.outputs = outputs
        self.description = description
        self.subgraphs = subgraphs if subgraphs is not None else [self]
        self.index = index
        self.name = name


def _count(n, size, what):
    """A vector length `n` that cannot exceed the file (each element takes >= 1 byte)."""
    if n < 0 or n > size:
        raise TFLiteImportError("%s: length %d exceeds the file size" % (what, n))
    return n


def _ints(getter, n, size, what):
    return [int(getter(i)) for i in range(_count(n, size, what))]


def _buffer_data(model, buf, index, size):
    if index <= 0 or index >= model.BuffersLength():
        return None
    b = model.Buffers(index)
    offset = b.Offset()
    if offset > 1:
        length = b.Size()
        if offset + length > size:
            raise TFLiteImportError("buffer %d lies outside the file" % index)
        return memoryview(buf)[offset:offset + length]
    n = _count(b.DataLength(), size, "buffer %d" % index)
    if n == 0:
        return None
    return b.DataAsNumpy()


def _tensor(model, sg, buf, i, size):
    t = sg.Tensors(i)
    code = t.Type()
    dtype = _TYPES.get(code)
    shape = tuple(_ints(t.Shape, t.ShapeLength(), size, "tensor %d shape" % i))
    if len(shape) > 8 or any(d < 0 or d > (1 << 24) for d in shape):
        raise TFLiteImportError("tensor %d: absurd shape %s" % (i, shape))
    name = (t.Name() or b"").decode("utf-8", "replace")
    if dtype is None:
        return TfTensor(name, shape, None, None, [], [], 0,
                        _TYPE_NAMES.get(code, "type code %d" % code))
    numel = int(np.prod(shape, dtype=np.int64))
    raw = _buffer_data(model, buf, t.Buffer(), size)
    data = None
    if raw is not None:
        data = np.frombuffer(raw, dtype=np.uint8)
        if data.size != numel * np.dtype(dtype).itemsize:
            raise TFLiteImportError("tensor %d: %d bytes of data for shape %s of %s" % (
                i, data.size, shape, np.dtype(dtype).name))
        data = data.view(dtype).reshape(shape)
    scales, zps, qdim = [], [], 0
    q = t.Quantization()
    if q is not None:
        n = _count(q.ScaleLength(), size, "tensor %d scales" % i)
        scales = [float(q.Scale(k)) for k in range(n)]
        zps = _ints(q.ZeroPoint, q.ZeroPointLength(), size, "tensor %d zero points" % i)
        qdim = int(q.QuantizedDimension())
    return TfTensor(name, shape, np.dtype(dtype), data, scales, zps, qdim,
                    variable=bool(t.IsVariable()))


def _op_name(model, op, size):
    index = op.OpcodeIndex()
    if index >= _count(model.OperatorCodesLength(), size, "operator codes"):
        raise TFLiteImportError("opcode index %d out of range" % index)
    oc = model.OperatorCodes(index)
    code = max(int(oc.BuiltinCode()), int(oc.DeprecatedBuiltinCode()))
    if code == 32:
        return "CUSTOM(%s)" % (oc.CustomCode() or b"").decode("utf-8", "replace")
    return tflite.BUILTIN_OPCODE2NAME.get(code, "UNKNOWN(%d)" % code)


def _options(i, name, op):
    if name not in _OPTIONS:
        return None
    cls_name, fields = _OPTIONS[name]
    table = op.BuiltinOptions()
    if table is None:
        return None
    if op.BuiltinOptionsType() != getattr(BuiltinOptions, cls_name):
        raise TFLiteImportError("node %d (%s): options of type %d, expected %s"
                                % (i, name, op.BuiltinOptionsType(), cls_name))
    opts = getattr(tflite, cls_name)()
    opts.Init(table.Bytes, table.Pos)
    found = {f: getattr(opts, f)() for f in fields}
    return {f: v.decode("utf-8", "replace") if isinstance(v, bytes) else v
            for f, v in found.items()}


def _read(buf, where):
    size = len(buf)
    if size < 8 or bytes(buf[4:8]) != b"TFL3":
        raise TFLiteImportError("not a TFLite model (no TFL3 identifier)")
    model = tflite.Model.GetRootAsModel(buf, 0)
    count = _count(model.SubgraphsLength(), size, "subgraphs")
    if count < 1:
        raise TFLiteImportError("the model has no subgraph")
    desc = (model.Description() or b"").decode("utf-8", "replace")
    subgraphs = []
    for s in range(count):
        subgraphs.append(_subgraph(model, buf, size, s, desc, subgraphs, where))
    return subgraphs[0]


def _subgraph(model, buf, size, s, desc, subgraphs, where):
    """Subgraph `s` of the model as a TfModel; its ops are labelled with the subgraph
    ('subgraph 2 node 0 (ADD)') but in the first."""
    sg = model.Subgraphs(s)
    at = "" if s == 0 else "subgraph %d " % s
    n_tensors = _count(sg.TensorsLength(), size, at + "tensors")
    tensors = []
    for i in range(n_tensors):
        where[0] = at + "tensor %d" % i
        tensors.append(_tensor(model, sg, buf, i, size))
    ops = []
    for i in range(_count(sg.OperatorsLength(), size, at + "operators")):
        where[0] = at + "node %d" % i
        op = sg.Operators(i)
        name = _op_name(model, op, size)
        ins = _ints(op.Inputs, op.InputsLength(), size, "node %d inputs" % i)
        outs = _ints(op.Outputs, op.OutputsLength(), size, "node %d outputs" % i)
        for t in ins + outs:
            if t < -1 or t >= n_tensors:
                raise TFLiteImportError("%snode %d (%s): tensor index %d out of range"
                                        % (at, i, name, t))
        label = "%snode %d (%s)" % (at, i, name) if s else None
        ops.append(TfOp(i, name, ins, outs, _options(i, name, op), label))
    where[0] = at + "the subgraph's inputs and outputs"
    inputs = _ints(sg.Inputs, sg.InputsLength(), size, "inputs")
    outputs = _ints(sg.Outputs, sg.OutputsLength(), size, "outputs")
    for t in inputs + outputs:
        if t < 0 or t >= n_tensors:
            raise TFLiteImportError("%sgraph input/output tensor index %d out of range"
                                    % (at, t))
    name = (sg.Name() or b"").decode("utf-8", "replace")
    return TfModel(tensors, ops, inputs, outputs, desc, subgraphs, s, name)


def unreadable_tensors(tf):
    """The indices of the tensors of a TfModel whose TFLite type numpy cannot hold, but
    for resource handles (burn.host.importers.tflite_control resolves them)."""
    return [i for i, t in enumerate(tf.tensors) if t.dtype is None and
            t.type_name != RESOURCE]


def read_tflite(buf):
    """Parse TFLite bytes into a TfModel; any malformation is a TFLiteImportError."""
    where = ["the model's tables"]
    try:
        return _read(buf, where)
    except TFLiteImportError:
        raise
    except struct.error as e:
        raise TFLiteImportError("malformed TFLite model: in %s, an offset points outside the "
                                "file" % where[0]) from e
    except Exception as e:  # the flatbuffers accessors fail in many ways on hostile bytes
        raise TFLiteImportError("malformed TFLite model: in %s: %s: %s"
                                % (where[0], type(e).__name__, e)) from e

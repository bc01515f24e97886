"""Write TFLite flatbuffers with the `flatbuffers` builder and the `tflite` schema package.

    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4, 4, 3), "int8", scale=0.05, zero_point=-3)
    w = mb.tensor("w", (8, 3, 3, 3), "int8", data=wq, scale=[...], zero_point=[0] * 8,
                  quantized_dimension=0)
    y = mb.tensor("y", (1, 4, 4, 8), "int8", scale=0.1, zero_point=5)
    s = mb.tensor("s", (1, 40), "int16", scale=0.01, zero_point=0, variable=True)
    mb.op("CONV_2D", [x, w, b], [y], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1)
    data = mb.finish([x], [y])           # bytes of a TFLite model with one subgraph

Options are given by their schema names (`Conv2DOptions`, field `StrideH` ...); a list
value becomes an int32 vector. Every constant gets its own buffer, aligned to 16 bytes.
`variable=True` marks a tensor that keeps its value between invocations (TFLite's
`is_variable`, e.g. the state of SVDF): no data, zero at the start.
The `.tflite` exporter (burn.host.export.tflite) and the tests' models use this writer.
"""

import importlib

import flatbuffers
import numpy as np
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.TensorType import TensorType

_TYPES = {
    "float32": (TensorType.FLOAT32, np.float32),
    "int8": (TensorType.INT8, np.int8),
    "int32": (TensorType.INT32, np.int32),
    "int16": (TensorType.INT16, np.int16),
    "int64": (TensorType.INT64, np.int64),
    "bool": (TensorType.BOOL, np.bool_),
    "uint8": (TensorType.UINT8, np.uint8),
    "uint32": (TensorType.UINT32, np.uint32),
}
SCHEMA_VERSION = 3
_BUFFER_ALIGN = 16


def _schema(name):
    return importlib.import_module("tflite." + name)


def _vector(b, start_fn, values, prepend):
    start_fn(b, len(values))
    for v in reversed(values):
        prepend(v)
    return b.EndVector()


def _bytes_vector(b, data):
    """A ubyte vector of `data` (bytes), aligned for any element type, copied in one go."""
    b.StartVector(1, len(data), _BUFFER_ALIGN)
    b.head = b.head - len(data)
    b.Bytes[b.head:b.head + len(data)] = data
    return b.EndVector()


class ModelBuilder:
    """Collects tensors and operators of one subgraph; `finish` serialises the model."""

    def __init__(self):
        self.tensors = []
        self.ops = []
        self.opcodes = []

    def tensor(self, name, shape, dtype, data=None, scale=None, zero_point=None,
               quantized_dimension=0, variable=False):
        """Add a tensor; `data` (array-like) makes it a constant, `variable` a variable
        tensor (state kept between invocations). Returns its index."""
        if dtype not in _TYPES:
            raise ValueError("tensor %s: dtype %r is not one of %s" % (name, dtype,
                                                                     tuple(_TYPES)))
        if data is not None:
            data = np.ascontiguousarray(np.asarray(data, dtype=_TYPES[dtype][1]))
            if data.size != int(np.prod(shape)):
                raise ValueError("tensor " + name + ": data size does not match shape")
        self.tensors.append(dict(name=name, shape=tuple(int(d) for d in shape), dtype=dtype,
                                 data=data, scale=scale, zero_point=zero_point,
                                 qdim=quantized_dimension, variable=bool(variable)))
        return len(self.tensors) - 1

    def op(self, opname, inputs, outputs, options_name=None, **options):
        """Add an operator by BuiltinOperator name, with its builtin options table."""
        code = getattr(BuiltinOperator, opname)
        if code not in self.opcodes:
            self.opcodes.append(code)
        self.ops.append(dict(code=self.opcodes.index(code), inputs=list(inputs),
                             outputs=list(outputs), options_name=options_name,
                             options=options))

    def _quant(self, b, t):
        Q = _schema("QuantizationParameters")
        scales = t["scale"] if isinstance(t["scale"], (list, tuple)) else [t["scale"]]
        zps = t["zero_point"] if isinstance(t["zero_point"], (list, tuple)) else [t["zero_point"]]
        sv = _vector(b, Q.StartScaleVector, [float(s) for s in scales], b.PrependFloat32)
        zv = _vector(b, Q.StartZeroPointVector, [int(z) for z in zps], b.PrependInt64)
        Q.Start(b)
        Q.AddScale(b, sv)
        Q.AddZeroPoint(b, zv)
        Q.AddQuantizedDimension(b, t["qdim"])
        return Q.End(b)

    def _options(self, b, op):
        if op["options_name"] is None:
            return None
        mod = _schema(op["options_name"])
        vectors = {}
        for key, value in op["options"].items():
            if isinstance(value, (list, tuple)):
                vectors[key] = _vector(b, getattr(mod, "Start" + key + "Vector"),
                                       [int(v) for v in value], b.PrependInt32)
        mod.Start(b)
        for key, value in op["options"].items():
            getattr(mod, "Add" + key)(b, vectors.get(key, value))
        return mod.End(b)

    def _tensor(self, b, t, buf_index):
        T = _schema("Tensor")
        name = b.CreateString(t["name"])
        shape = _vector(b, T.StartShapeVector, list(t["shape"]), b.PrependInt32)
        quant = self._quant(b, t) if t["scale"] is not None else None
        T.Start(b)
        T.AddShape(b, shape)
        T.AddType(b, _TYPES[t["dtype"]][0])
        T.AddBuffer(b, buf_index)
        T.AddName(b, name)
        if quant is not None:
            T.AddQuantization(b, quant)
        if t["variable"]:
            T.AddIsVariable(b, True)
        return T.End(b)

    def _operator(self, b, op):
        Op = _schema("Operator")
        iv = _vector(b, Op.StartInputsVector, op["inputs"], b.PrependInt32)
        ov = _vector(b, Op.StartOutputsVector, op["outputs"], b.PrependInt32)
        opts = self._options(b, op)
        Op.Start(b)
        Op.AddOpcodeIndex(b, op["code"])
        Op.AddInputs(b, iv)
        Op.AddOutputs(b, ov)
        if opts is not None:
            Op.AddBuiltinOptionsType(b, getattr(BuiltinOptions, op["options_name"]))
            Op.AddBuiltinOptions(b, opts)
        return Op.End(b)

    def finish(self, inputs, outputs, description="burn"):
        """Serialise the model with the given subgraph inputs/outputs; returns bytes."""
        b = flatbuffers.Builder(1024)
        Buf, OC, SG, M = (_schema(n) for n in ("Buffer", "OperatorCode", "SubGraph", "Model"))
        # Buffer 0 is the empty sentinel; each constant tensor gets its own buffer.
        Buf.Start(b)
        buffers = [Buf.End(b)]
        tensor_offsets = []
        for t in self.tensors:
            buf_index = 0
            if t["data"] is not None:
                dv = _bytes_vector(b, t["data"].astype(t["data"].dtype.newbyteorder("<"))
                                   .tobytes())
                Buf.Start(b)
                Buf.AddData(b, dv)
                buffers.append(Buf.End(b))
                buf_index = len(buffers) - 1
            tensor_offsets.append(self._tensor(b, t, buf_index))
        op_offsets = [self._operator(b, op) for op in self.ops]
        tv = _vector(b, SG.StartTensorsVector, tensor_offsets, b.PrependUOffsetTRelative)
        ov = _vector(b, SG.StartOperatorsVector, op_offsets, b.PrependUOffsetTRelative)
        iv = _vector(b, SG.StartInputsVector, list(inputs), b.PrependInt32)
        outv = _vector(b, SG.StartOutputsVector, list(outputs), b.PrependInt32)
        SG.Start(b)
        SG.AddTensors(b, tv)
        SG.AddOperators(b, ov)
        SG.AddInputs(b, iv)
        SG.AddOutputs(b, outv)
        subgraph = SG.End(b)
        code_offsets = []
        for code in self.opcodes:
            OC.Start(b)
            OC.AddDeprecatedBuiltinCode(b, min(code, 127))
            OC.AddBuiltinCode(b, code)
            OC.AddVersion(b, 1)
            code_offsets.append(OC.End(b))
        cv = _vector(b, M.StartOperatorCodesVector, code_offsets, b.PrependUOffsetTRelative)
        sv = _vector(b, M.StartSubgraphsVector, [subgraph], b.PrependUOffsetTRelative)
        bv = _vector(b, M.StartBuffersVector, buffers, b.PrependUOffsetTRelative)
        desc = b.CreateString(description)
        M.Start(b)
        M.AddVersion(b, SCHEMA_VERSION)
        M.AddOperatorCodes(b, cv)
        M.AddSubgraphs(b, sv)
        M.AddDescription(b, desc)
        M.AddBuffers(b, bv)
        b.Finish(M.End(b), file_identifier=b"TFL3")
        return bytes(b.Output())

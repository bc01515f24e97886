"""Build small .tflite models in tests with the real flatbuffers builder and `tflite` schema.

    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4, 4, 3), "int8", scale=0.05, zero_point=-3)
    w = mb.tensor("w", (8, 3, 3, 3), "int8", data=wq, scale=[...], zero_point=[0] * 8,
                  quantized_dimension=0)
    y = mb.tensor("y", (1, 4, 4, 8), "int8", scale=0.1, zero_point=5)
    mb.op("CONV_2D", [x, w, b], [y], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1)
    data = mb.finish([x], [y])           # bytes of a valid TFLite flatbuffer

and `run_tflm(data, [input arrays])` runs it in the tflite-micro interpreter.
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
}


def _schema(name):
    return importlib.import_module("tflite." + name)


class ModelBuilder:
    """Collects tensors and operators of one subgraph; `finish` serialises the model."""

    def __init__(self):
        self.tensors = []
        self.ops = []
        self.opcodes = []

    def tensor(self, name, shape, dtype, data=None, scale=None, zero_point=None,
               quantized_dimension=0):
        """Add a tensor; `data` (array-like) makes it a constant. Returns its index."""
        if data is not None:
            data = np.ascontiguousarray(np.asarray(data, dtype=_TYPES[dtype][1]))
            if data.size != int(np.prod(shape)):
                raise ValueError("tensor " + name + ": data size does not match shape")
        self.tensors.append(dict(name=name, shape=tuple(int(d) for d in shape), dtype=dtype,
                                 data=data, scale=scale, zero_point=zero_point,
                                 qdim=quantized_dimension))
        return len(self.tensors) - 1

    def op(self, opname, inputs, outputs, options_name=None, **options):
        """Add an operator by BuiltinOperator name, with its builtin options table."""
        code = getattr(BuiltinOperator, opname)
        if code not in self.opcodes:
            self.opcodes.append(code)
        self.ops.append(dict(code=self.opcodes.index(code), inputs=list(inputs),
                             outputs=list(outputs), options_name=options_name,
                             options=options))

    def _int_vector(self, b, start_fn, values, prepend):
        start_fn(b, len(values))
        for v in reversed(values):
            prepend(v)
        return b.EndVector()

    def _quant(self, b, t):
        Q = _schema("QuantizationParameters")
        scales = t["scale"] if isinstance(t["scale"], (list, tuple)) else [t["scale"]]
        zps = t["zero_point"] if isinstance(t["zero_point"], (list, tuple)) else [t["zero_point"]]
        sv = self._int_vector(b, Q.StartScaleVector, [float(s) for s in scales], b.PrependFloat32)
        zv = self._int_vector(b, Q.StartZeroPointVector, [int(z) for z in zps], b.PrependInt64)
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
                vectors[key] = self._int_vector(b, getattr(mod, "Start" + key + "Vector"),
                                                list(value), b.PrependInt32)
        mod.Start(b)
        for key, value in op["options"].items():
            getattr(mod, "Add" + key)(b, vectors.get(key, value))
        return mod.End(b)

    def finish(self, inputs, outputs):
        """Serialise the model with the given subgraph inputs/outputs; returns bytes."""
        b = flatbuffers.Builder(1024)
        Buf, T, Op, OC = (_schema(n) for n in ("Buffer", "Tensor", "Operator", "OperatorCode"))
        SG, M = _schema("SubGraph"), _schema("Model")
        # Buffer 0 is the empty sentinel; each constant tensor gets its own buffer.
        buffers = []
        Buf.Start(b)
        buffers.append(Buf.End(b))
        tensor_offsets = []
        for t in self.tensors:
            buf_index = 0
            if t["data"] is not None:
                b.StartVector(1, t["data"].nbytes, 16)
                for byte in reversed(t["data"].tobytes()):
                    b.PrependUint8(byte)
                dv = b.EndVector()
                Buf.Start(b)
                Buf.AddData(b, dv)
                buffers.append(Buf.End(b))
                buf_index = len(buffers) - 1
            name = b.CreateString(t["name"])
            shape = self._int_vector(b, T.StartShapeVector, list(t["shape"]), b.PrependInt32)
            quant = self._quant(b, t) if t["scale"] is not None else None
            T.Start(b)
            T.AddShape(b, shape)
            T.AddType(b, _TYPES[t["dtype"]][0])
            T.AddBuffer(b, buf_index)
            T.AddName(b, name)
            if quant is not None:
                T.AddQuantization(b, quant)
            tensor_offsets.append(T.End(b))
        op_offsets = []
        for op in self.ops:
            iv = self._int_vector(b, Op.StartInputsVector, op["inputs"], b.PrependInt32)
            ov = self._int_vector(b, Op.StartOutputsVector, op["outputs"], b.PrependInt32)
            opts = self._options(b, op)
            Op.Start(b)
            Op.AddOpcodeIndex(b, op["code"])
            Op.AddInputs(b, iv)
            Op.AddOutputs(b, ov)
            if opts is not None:
                Op.AddBuiltinOptionsType(b, getattr(BuiltinOptions, op["options_name"]))
                Op.AddBuiltinOptions(b, opts)
            op_offsets.append(Op.End(b))
        tv = self._int_vector(b, SG.StartTensorsVector, tensor_offsets, b.PrependUOffsetTRelative)
        ov = self._int_vector(b, SG.StartOperatorsVector, op_offsets, b.PrependUOffsetTRelative)
        iv = self._int_vector(b, SG.StartInputsVector, list(inputs), b.PrependInt32)
        outv = self._int_vector(b, SG.StartOutputsVector, list(outputs), b.PrependInt32)
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
        cv = self._int_vector(b, M.StartOperatorCodesVector, code_offsets,
                              b.PrependUOffsetTRelative)
        sv = self._int_vector(b, M.StartSubgraphsVector, [subgraph], b.PrependUOffsetTRelative)
        bv = self._int_vector(b, M.StartBuffersVector, buffers, b.PrependUOffsetTRelative)
        desc = b.CreateString("burn test model")
        M.Start(b)
        M.AddVersion(b, 3)
        M.AddOperatorCodes(b, cv)
        M.AddSubgraphs(b, sv)
        M.AddDescription(b, desc)
        M.AddBuffers(b, bv)
        b.Finish(M.End(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def run_tflm(model_bytes, inputs, n_outputs=1, arena_size=None):
    """Run a model in the tflite-micro interpreter (in this process; `arena_size` None is
    the Python wrapper's default, 10x the file); returns the list of output arrays."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_size)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    return [np.array(interp.get_output(i)) for i in range(n_outputs)]

"""Small float32 `.bst` models, one TFLite op each (two for GREATER -> SELECT_V2), for the op
kinds that tests/host/bst_fuzz_models.py's models leave out, imported by the product's TFLite
importer so that their parameters are the importer's own."""

import numpy as np
from tflite_builder import ModelBuilder

from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite

SHAPE = (1, 4, 4, 2)


def _binary(op, options=None, **kw):
    mb = ModelBuilder()
    a, b = mb.tensor("a", SHAPE, "float32"), mb.tensor("b", SHAPE, "float32")
    y = mb.tensor("y", SHAPE, "float32")
    mb.op(op, [a, b], [y], options, **kw)
    return mb.finish([a, b], [y])


def _unary(op, out_shape, consts=(), options=None, **kw):
    """`op` of the input x of SHAPE and constant int32 inputs `consts` (name, values)."""
    mb = ModelBuilder()
    x = mb.tensor("x", SHAPE, "float32")
    ins = [x] + [mb.tensor(name, (len(v),), "int32", data=np.array(v, np.int32))
                 for name, v in consts]
    y = mb.tensor("y", out_shape, "int32" if op == "ARG_MAX" else "float32")
    mb.op(op, ins, [y], options, **kw)
    return mb.finish([x], [y])


def _select():
    mb = ModelBuilder()
    a, b = mb.tensor("a", SHAPE, "float32"), mb.tensor("b", SHAPE, "float32")
    cond = mb.tensor("cond", SHAPE, "bool")
    y = mb.tensor("y", SHAPE, "float32")
    mb.op("GREATER", [a, b], [cond])
    mb.op("SELECT_V2", [cond, a, b], [y])
    return mb.finish([a, b], [y])


def _lookup():
    mb = ModelBuilder()
    ids = mb.tensor("ids", (3,), "int32")
    table = np.arange(10, dtype=np.float32).reshape(5, 2)
    v = mb.tensor("table", table.shape, "float32", data=table)
    y = mb.tensor("y", (3, 2), "float32")
    mb.op("EMBEDDING_LOOKUP", [ids, v], [y])
    return mb.finish([ids], [y])


def _transpose_conv():
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 2, 2, 3), "float32")
    w = mb.tensor("w", (2, 3, 3, 3), "float32", data=np.full((2, 3, 3, 3), 0.5, np.float32))
    s = mb.tensor("s", (4,), "int32", data=np.array(SHAPE, np.int32))
    y = mb.tensor("y", SHAPE, "float32")
    mb.op("TRANSPOSE_CONV", [s, w, x], [y], "TransposeConvOptions", Padding=0, StrideH=2,
          StrideW=2, FusedActivationFunction=0)
    return mb.finish([x], [y])


def _cast():
    """A CAST of float32 to int32 (the `cast` op: truncation toward zero)."""
    mb = ModelBuilder()
    x, y = mb.tensor("x", SHAPE, "float32"), mb.tensor("y", SHAPE, "int32")
    mb.op("CAST", [x], [y])
    return mb.finish([x], [y])


def models():
    """[.bst bytes]: sub, squared_difference, maximum, minimum, div, compare and select,
    arg, gather, l2norm, log_softmax, reduce, resize, transpose_conv2d and cast."""
    tflite = [
        _binary("SUB", "SubOptions", FusedActivationFunction=0),
        _binary("SQUARED_DIFFERENCE"), _binary("MAXIMUM"), _binary("MINIMUM"),
        _binary("DIV", "DivOptions", FusedActivationFunction=0),
        _select(),
        _unary("ARG_MAX", SHAPE[:3], [("axis", [3])], "ArgMaxOptions"),
        _lookup(),
        _unary("L2_NORMALIZATION", SHAPE, options="L2NormOptions", FusedActivationFunction=0),
        _unary("LOG_SOFTMAX", SHAPE),
        _unary("SUM", (1, 1, 1, 2), [("axes", [1, 2])], "ReducerOptions", KeepDims=True),
        _unary("RESIZE_NEAREST_NEIGHBOR", (1, 8, 8, 2), [("size", [8, 8])],
               "ResizeNearestNeighborOptions"),
        _transpose_conv(),
        _cast(),
    ]
    return [encode_bst(import_tflite(data, tests=0)) for data in tflite]

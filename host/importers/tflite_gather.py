"""GATHER at positions computed at run time, or of a constant table, and EMBEDDING_LOOKUP:
the optional `gather` op (burn.graph.gather), with int32 positions and int8 or float32
data. A GATHER of an activation at constant positions stays a strided copy
(burn.host.importers.tflite_move). What TFLM's Prepare refuses is refused with its reason;
a position outside the table is an error at run time, as in TFLM.

EMBEDDING_LOOKUP of a constant int8 table into float32 (TFLM's hybrid lookup, which
dequantizes each row it reads, float32(q) * scale, and takes zero point 0 only) is a float32
gather of the table dequantized here, the same float32 values: the product of two float32s
rounds once from its exact double.
"""

import numpy as np


class GatherError(ValueError):
    """A GATHER or EMBEDDING_LOOKUP that burn cannot run."""


def is_runtime_gather(tf, node):
    """Is `node` a GATHER for the gather op (computed positions, or constant data)?"""
    return node.name == "GATHER" and (tf.tensors[node.inputs[1]].data is None or
                                      tf.tensors[node.inputs[0]].data is not None)


# the ops whose int8 table burn dequantizes into float32 (hybrid: int8 in, float32 out)
HYBRID = ("EMBEDDING_LOOKUP",)


def _check_types(data, positions, out, what):
    if positions.dtype != np.int32:
        raise GatherError("Positions of type '%s' are not supported by %s (burn takes int32)"
                          % (positions.dtype.name, what))
    if data.dtype not in (np.int8, np.float32):
        raise GatherError("Type '%s' is not supported by %s (burn takes int8 and float32)"
                          % (data.dtype.name, what))
    if out.dtype != data.dtype and not _hybrid(data, out, what):
        raise GatherError("output type %s differs from the data's %s (a hybrid %s)"
                          % (out.dtype.name, data.dtype.name, what))


def _hybrid(data, out, what):
    """Whether `data` to `out` is a hybrid lookup: a constant int8 table of one scale into
    float32, of an op of HYBRID."""
    if what not in HYBRID or (data.dtype, out.dtype) != (np.int8, np.float32):
        return False
    if data.data is None or len(data.scales) != 1 or list(data.zero_points) != [0]:
        raise GatherError("a hybrid %s needs a constant int8 table of one scale and zero "
                          "point 0 (TFLM)" % what)
    return True


def _emit(c, node, data_t, pos_t, outer, size, inner, count):
    data = c.tf.tensors[data_t]
    params = {"outer": outer, "size": size, "inner": inner, "count": count}
    if data.data is None:
        c.emit("gather", node, params=params, ins=[data_t, pos_t])
    else:
        table = np.ascontiguousarray(data.data).reshape(outer, size, inner)
        if c.tf.tensors[node.outputs[0]].dtype != data.dtype:  # hybrid: dequantized, as TFLM
            table = (table * np.float64(np.float32(data.scales[0]))).astype(np.float32)
        c.emit("gather", node, params=params, ins=[pos_t], consts={"params": table})


def convert(c, node):
    """Emit the gather op of GATHER or EMBEDDING_LOOKUP `node` through importer `c`."""
    tensors = c.tf.tensors
    if node.name == "EMBEDDING_LOOKUP":
        pos_t, data_t = node.inputs[:2]
        data, positions, out = tensors[data_t], tensors[pos_t], tensors[node.outputs[0]]
        if len(positions.shape) != 1:
            raise GatherError("lookup ids must have 1 dim, got %d" % len(positions.shape))
        if len(data.shape) < 2:
            raise GatherError("the table must have at least 2 dims, got %d" % len(data.shape))
        _check_types(data, positions, out, "EMBEDDING_LOOKUP")
        axis, shape = 0, tuple(data.shape)
    else:
        data_t, pos_t = node.inputs[:2]
        data, positions, out = tensors[data_t], tensors[pos_t], tensors[node.outputs[0]]
        o = node.options or {}
        if o.get("BatchDims", 0):
            raise GatherError("batch_dims %d is not supported" % o["BatchDims"])
        _check_types(data, positions, out, "gather")
        shape = tuple(data.shape)
        if not shape:
            raise GatherError("params has no dimensions")
        axis = int(o.get("Axis", 0))
        if not -len(shape) <= axis < len(shape):
            raise GatherError("axis %d is out of range for %d dims" % (axis, len(shape)))
        axis %= len(shape)
    want = shape[:axis] + tuple(positions.shape) + shape[axis + 1:]
    if tuple(out.shape) != want:
        raise GatherError("output has shape %s, expected %s" % (tuple(out.shape), want))
    count = int(np.prod(positions.shape, dtype=np.int64))
    if count < 1:
        raise GatherError("no positions")
    _emit(c, node, data_t, pos_t, int(np.prod(shape[:axis], dtype=np.int64)),
          int(shape[axis]), int(np.prod(shape[axis + 1:], dtype=np.int64)), count)

"""CAST, as TFLM's CAST converts raw values (C's static_cast). Where an existing op computes
it exactly, it is that op: an int8, int16 or BOOL (int8 0/1 in burn) value becomes a float32
through `dequantize` with scale 1 and zero point 0, an int8 or BOOL value an int16, and an
int8, BOOL or int16 value an int32, through a `requantize` of scale 1, a BOOL value an int8
and a value of any type one of the same type through a `copy`. The others are the optional
op `cast` (burn.graph.cast): int32 and int16 narrowed to int16 or int8 keep their low bits
(burn's requantize would saturate), float32 to int8, int16 or int32 truncates toward zero
(burn's quantize would round; beyond the target's range TFLM's result is undefined, and
burn saturates), int32 to float32 rounds to the nearest float32; uint32 from and to each
of those as C converts (burn.graph.cast), a float32 below 0 saturating to 0.

The other pairs are refused by name: a cast to BOOL tests for non-zero, and the casts of
uint8 and int64 tensors (which TFLM lacks). A cast's integer tensors usually carry no quantization:
they get scale 1 and zero point 0, their raw values.
"""

import numpy as np

from burn.host.bst_writer import GraphOp, GraphTensor

_SAME = ("requantize", {"in_zp": 0, "out_zp": 0, "mult": 1 << 30, "shift": 1})  # times 1
# (from, to): (op, params) of the exact conversions
_EXACT = {
    ("int8", "float32"): ("dequantize", {"scale": 1.0, "zp": 0}),
    ("bool", "float32"): ("dequantize", {"scale": 1.0, "zp": 0}),
    ("int16", "float32"): ("dequantize", {"scale": 1.0, "zp": 0}),
    ("int8", "int16"): _SAME,
    ("bool", "int16"): _SAME,
    ("int8", "int32"): _SAME,
    ("bool", "int32"): _SAME,
    ("int16", "int32"): _SAME,
    ("bool", "int8"): ("copy", None),
    ("int8", "int8"): ("copy", None),
    ("int16", "int16"): ("copy", None),
    ("int32", "int32"): ("copy", None),
    ("float32", "float32"): ("copy", None),
    ("uint32", "uint32"): ("copy", None),
}
# (from, to) of the `cast` op's kernels (burn.graph.cast)
_CAST_OP = (("int32", "int8"), ("int32", "int16"), ("int16", "int8"), ("float32", "int8"),
            ("float32", "int16"), ("float32", "int32"), ("int32", "float32"),
            ("uint32", "int8"), ("uint32", "int16"), ("uint32", "int32"), ("uint32", "float32"),
            ("int8", "uint32"), ("int16", "uint32"), ("int32", "uint32"), ("bool", "uint32"),
            ("float32", "uint32"))
_EXACT.update((pair, ("cast", None)) for pair in _CAST_OP)


class CastError(ValueError):
    """A CAST that no existing op computes exactly."""


def _raw(c, t):
    """The graph tensor of TFLite tensor `t`; an integer one without quantization gets
    scale 1 and zero point 0 (its raw values), made here on its first use."""
    tt = c.tf.tensors[t]
    if tt.dtype in (np.int8, np.int16) and not tt.scales and t not in c.index and \
            t not in c.alias and tt.data is None:
        c.tensors.append(GraphTensor(tt.name.split(";")[0][-48:], tt.shape, tt.dtype.name,
                                     1.0, 0))
        c.index[t] = len(c.tensors) - 1
    return c.act(t)


def convert(c, node):
    """Emit the op of CAST node `node` through importer `c` (burn.host.importers.
    tflite.convert), or raise CastError naming the types."""
    src, dst = (c.tf.tensors[t] for t in (node.inputs[0], node.outputs[0]))
    pair = (src.dtype.name, dst.dtype.name)
    if pair not in _EXACT:
        raise CastError("CAST from %s to %s is not supported: burn casts %s" % (
            pair[0].upper(), pair[1].upper(), ", ".join(
                "%s to %s" % (a.upper(), b.upper()) for a, b in _EXACT)))
    if int(np.prod(src.shape)) != int(np.prod(dst.shape)):
        raise CastError("input %s and output %s differ in size" % (src.shape, dst.shape))
    op, params = _EXACT[pair]
    ins, outs = [_raw(c, node.inputs[0])], [_raw(c, node.outputs[0])]
    c.ops.append(GraphOp(op, ins, outs, params=dict(params) if params else None))

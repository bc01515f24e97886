"""CAST where an existing op computes it exactly: TFLM's CAST converts raw values (C's
static_cast), so an int8, int16 or BOOL (int8 0/1 in burn) value becomes a float32 through
`dequantize` with scale 1 and zero point 0, an int8 or BOOL value an int16 through a
`requantize` of scale 1, and a BOOL value an int8 through a `copy`.

The other pairs are refused by name: float32 to an integer truncates toward zero (burn's
quantize rounds), int16 to int8 wraps around (burn's requantize saturates), a cast to BOOL
tests for non-zero, and int32 is no activation type of burn. A cast's integer tensors
usually carry no quantization: they get scale 1 and zero point 0, their raw values.
"""

import numpy as np

from burn.host.bst_writer import GraphOp, GraphTensor

# (from, to): (op, params) of the exact conversions
_EXACT = {
    ("int8", "float32"): ("dequantize", {"scale": 1.0, "zp": 0}),
    ("bool", "float32"): ("dequantize", {"scale": 1.0, "zp": 0}),
    ("int16", "float32"): ("dequantize", {"scale": 1.0, "zp": 0}),
    # mult 2^30 with shift 1 multiplies by exactly 1
    ("int8", "int16"): ("requantize", {"in_zp": 0, "out_zp": 0, "mult": 1 << 30, "shift": 1}),
    ("bool", "int16"): ("requantize", {"in_zp": 0, "out_zp": 0, "mult": 1 << 30, "shift": 1}),
    ("bool", "int8"): ("copy", None),
}


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

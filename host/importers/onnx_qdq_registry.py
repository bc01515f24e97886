"""The registry of the quantized ONNX translation (see onnx_qdq): the values the handlers
(onnx_qdq_ops, onnx_qlinear) and the engine (`onnx_qdq.Translator`) pass between them, the
layout helpers, and HANDLERS / PRECHECKS, filled by `handles` and the handler modules."""

import math

import numpy as np

from .onnx_read import MAX_ACTIVATION

HANDLERS = {}  # ONNX op -> handler(translator, node)
# Checks of a node's own attributes, run even when an input failed, so that every node
# with its own problem is reported.
PRECHECKS = {}


def handles(*ops):
    """Register a handler for the ONNX `ops`."""
    def register(fn):
        for op in ops:
            HANDLERS[op] = fn
        return fn
    return register


class Fail(ValueError):
    """Why one node cannot be translated."""


class QConst:
    """A dequantized constant: integers `q`, per-axis or single `scales` and `zps` (float
    and int arrays, 1-D) along `axis`."""

    def __init__(self, q, scales, zps, axis):
        self.q = q
        self.scales = scales
        self.zps = zps
        self.axis = axis


class Act:
    """An activation: TfModel tensor `t`, ONNX `shape`, `view` (the ONNX value is the
    dequantized float view of the int8 tensor) and `order` (None: the graph holds the
    elements in the canonical order of `shape`, NHWC for 4-D)."""

    def __init__(self, t, shape, view, order=None):
        self.t = t
        self.shape = tuple(shape)
        self.view = view
        self.order = order


class Pending:
    """The float output of `node`, of ONNX `shape`, waiting for its quantization: `emit(out,
    code)` writes the op(s) into TfModel tensor `out` with fused activation `code`."""

    def __init__(self, node, shape, emit, order=None, code=0):
        self.node = node
        self.shape = tuple(shape)
        self.emit = emit
        self.order = order
        self.code = code


def checked(shape):
    """`shape`, refused (before anything of that size is made) when a dim is below 1 or the
    elements exceed MAX_ACTIVATION."""
    count = 1
    for d in shape:
        count *= int(d)
        if d < 1 or count > MAX_ACTIVATION:
            raise Fail("a value of shape %s: empty or more than %d elements"
                       % (tuple(shape), MAX_ACTIVATION))
    return shape


def graph_shape(shape):
    """The graph (NHWC for 4-D) shape of an ONNX shape."""
    shape = tuple(int(d) for d in shape)
    return (shape[0], shape[2], shape[3], shape[1]) if len(shape) == 4 else shape


def canonical_order(shape):
    """ONNX position of each element in the graph layout of `shape` (NHWC for 4-D); None
    when it is the identity."""
    if len(shape) != 4 or shape[1] == 1 or shape[2] * shape[3] == 1:
        return None
    return np.arange(int(np.prod(shape))).reshape(shape).transpose(0, 2, 3, 1).reshape(-1)


def order_for(order, shape):
    """The `order` of a value of `shape` whose graph elements hold ONNX positions `order`
    (None: the identity); None when that is the canonical order of `shape`."""
    canon = canonical_order(shape)
    if order is None and canon is None:
        return None
    n = int(np.prod(shape))
    have = order if order is not None else np.arange(n)
    return None if np.array_equal(have, canon if canon is not None else np.arange(n)) \
        else have


def scalar_quant(tr, i_scale, i_zp):
    """(scale, zero point) of a per-tensor int8 QuantizeLinear / DequantizeLinear."""
    scale = tr.constant(i_scale, "scale")
    zp = tr.constant(i_zp, "zero point")
    if zp is None or zp.dtype != np.int8:
        raise Fail("activations must be int8 (zero point of type int8; uint8 is not "
                   "supported: quantize with QuantType.QInt8)")
    if scale.size != 1 or zp.size != 1:
        raise Fail("activations must be quantized per tensor (one scale and zero point)")
    s = float(np.float32(scale.reshape(-1)[0]))
    if not (math.isfinite(s) and 1e-30 < s < 1e30):
        raise Fail("bad scale %r" % s)
    return s, int(zp.reshape(-1)[0])

"""The QLinear operator form of quantized ONNX (QLinearConv, QLinearMatMul, and
onnxruntime's com.microsoft QGemm, QLinearAdd, QLinearMul, QLinearGlobalAveragePool,
QLinearAveragePool, QLinearSigmoid, QLinearSoftmax): each is what a QDQ graph spells as
DequantizeLinear inputs, the float op and a QuantizeLinear, and is translated that way, by
the float op's own handler (onnx_qdq_ops) between int8 values."""

import numpy as np

from .onnx_qdq_registry import HANDLERS, Act, Fail, QConst, handles, scalar_quant
from .onnx_read import Node

_MS = "com.microsoft."
# op -> (float op, [(input, its scale input, its zero point input)], output scale, output zp);
# a scale input of None marks an int32 bias at scale input 0 x input 1.
QLINEAR = {
    "QLinearConv": ("Conv", [(0, 1, 2), (3, 4, 5), (8, None, None)], 6, 7),
    "QLinearMatMul": ("MatMul", [(0, 1, 2), (3, 4, 5)], 6, 7),
    _MS + "QGemm": ("Gemm", [(0, 1, 2), (3, 4, 5), (6, None, None)], 7, 8),
    _MS + "QLinearAdd": ("Add", [(0, 1, 2), (3, 4, 5)], 6, 7),
    _MS + "QLinearMul": ("Mul", [(0, 1, 2), (3, 4, 5)], 6, 7),
    _MS + "QLinearGlobalAveragePool": ("GlobalAveragePool", [(0, 1, 2)], 3, 4),
    _MS + "QLinearAveragePool": ("AveragePool", [(0, 1, 2)], 3, 4),
    _MS + "QLinearSigmoid": ("Sigmoid", [(0, 1, 2)], 3, 4),
    _MS + "QLinearSoftmax": ("Softmax", [(0, 1, 2)], 3, 4),
}


def _weight_axis(op, attrs):
    """The axis of a weight's output channels in the float op's ONNX layout."""
    if op == "Conv":
        return 0
    return 0 if op == "Gemm" and attrs.get("transB", 0) else 1


def _input(tr, node, op, i, i_scale, i_zp, scales):
    """The float op's view of input i: an Act's dequantized view or a QConst."""
    v = tr.get(i)
    if v is None:
        return None
    if i_scale is None:  # int32 bias at the product of the first two inputs' scales
        if not isinstance(v, np.ndarray) or v.dtype != np.int32 or len(scales) < 2:
            raise Fail("bias (input %d) must be an int32 constant" % i)
        s = np.float32(scales[0]) * np.asarray(scales[1], np.float32) * \
            np.ones(v.size, np.float32)
        return QConst(v.reshape(-1), s.astype(np.float64), np.zeros(v.size, np.int64), 0)
    if isinstance(v, np.ndarray):
        if v.dtype != np.int8:
            raise Fail("constant input %d must be int8" % i)
        s = np.asarray(tr.constant(i_scale, "scale"), np.float64).reshape(-1)
        zps = np.asarray(tr.constant(i_zp, "zero point"), np.int64).reshape(-1)
        if s.size != zps.size or not np.isfinite(s).all() or (s <= 0).any():
            raise Fail("bad scales or zero points of input %d" % i)
        scales.append(s)
        return QConst(v, s, zps, _weight_axis(op, node.attrs))
    x = tr.int8(i)
    if scalar_quant(tr, i_scale, i_zp) != tr.quant(x.t):
        raise Fail("the scale and zero point of input %d differ from the int8 value's" % i)
    scales.append(tr.quant(x.t)[0])
    return Act(x.t, x.shape, True, x.order)


def _qlinear(tr, node):
    op, inputs, i_scale, i_zp = QLINEAR[node.op]
    if node.attrs.get("channels_last", 0):
        raise Fail("channels_last is not supported")
    if tr.get(i_scale) is None:
        raise Fail("a float output is not supported")
    names, scales = [], []
    for k, (i, s, z) in enumerate(inputs):
        value = _input(tr, node, op, i, s, z, scales)
        names.append((node.index, k) if value is not None else "")
        if value is not None:
            tr.values[names[-1]] = value
    out = (node.index, "out")  # value names no file can hold
    tr.uses[out] = 1
    float_node = Node(node.index, op, node.name, names, [out], node.attrs)
    float_node.where = node.where
    tr.node = float_node
    try:
        HANDLERS[op](tr, float_node)
    finally:
        tr.node = node
    scale, zp = scalar_quant(tr, i_scale, i_zp)
    tr.set(tr.resolve(tr.values.pop(out), scale, zp))
    for name in names:
        tr.values.pop(name, None)


handles(*QLINEAR)(_qlinear)

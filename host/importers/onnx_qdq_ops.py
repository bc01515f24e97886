"""One handler per ONNX op of a quantized model (see onnx_qdq): each checks its node, then
binds the outputs to values, emitting TfModel ops (TFLite names and options) now or, for a
float op, when its QuantizeLinear comes."""

import math

import numpy as np

from .onnx_qdq_registry import (
    PRECHECKS,
    Act,
    Fail,
    Pending,
    QConst,
    canonical_order,
    checked,
    graph_shape,
    handles,
    order_for,
    scalar_quant,
)

_CODES = {(0.0, None): 1, (-1.0, 1.0): 2, (0.0, 6.0): 3}  # clamp -> TFLite activation code
_CLAMPS = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}  # TFLite activation code -> its op
_NHWC_AXIS = (0, 3, 1, 2)  # graph axis of each NCHW axis


def _check_quantize(tr, node):
    """(scale, zero point) of a QuantizeLinear node, checked."""
    if node.attrs.get("block_size", 0):
        raise Fail("blocked quantization is not supported")
    if node.attrs.get("output_dtype", 3) != 3:
        raise Fail("output type %d is not int8" % node.attrs["output_dtype"])
    return scalar_quant(tr, 1, 2)


@handles("QuantizeLinear")
def _quantize(tr, node):
    scale, zp = _check_quantize(tr, node)
    x = tr.get(0)
    if isinstance(x, np.ndarray):
        tr.set(np.clip(np.nan_to_num(np.rint(x / scale)) + zp, -128, 127).astype(np.int8))
    elif isinstance(x, Pending):
        tr.set(tr.resolve(x, scale, zp))
    elif isinstance(x, Act) and tr.is_float(x.t):
        out = tr.activation(x.shape, scale, zp)
        tr.op("QUANTIZE", [x.t], [out])
        tr.set(Act(out, x.shape, False, x.order))
    elif isinstance(x, Act) and x.view:
        tr.set(Act(tr.requantized(x, scale, zp), x.shape, False, x.order))
    else:
        raise Fail("input 0 must be a float value")


PRECHECKS["QuantizeLinear"] = _check_quantize


@handles("DequantizeLinear")
def _dequantize(tr, node):
    x = tr.get(0)
    if isinstance(x, np.ndarray):
        if x.dtype not in (np.int8, np.int32):
            raise Fail("constant of type %s: int8 weights or int32 biases only" % x.dtype)
        scales = np.asarray(tr.constant(1, "scale"), np.float64).reshape(-1)
        zp = tr.constant(2, "zero point", np.zeros(1, x.dtype))
        zps = np.asarray(zp, np.int64).reshape(-1)
        if scales.size != zps.size or not np.isfinite(scales).all() or (scales <= 0).any():
            raise Fail("bad scales or zero points")
        axis = node.attrs.get("axis", 1) if scales.size > 1 else 0
        if scales.size > 1 and (not -x.ndim <= axis < x.ndim or
                                x.shape[axis % x.ndim] != scales.size):
            raise Fail("%d scales do not fit axis %d of shape %s" % (scales.size, axis,
                                                                     x.shape))
        tr.set(QConst(x, scales, zps, axis % max(x.ndim, 1)))
        return
    if not isinstance(x, Act) or x.view or tr.is_float(x.t):
        raise Fail("input 0 must be an int8 value (QuantizeLinear's or a constant)")
    if scalar_quant(tr, 1, 2) != tr.quant(x.t):
        raise Fail("its scale and zero point differ from the int8 value's")
    tr.set(Act(x.t, x.shape, True, x.order))


# -- weighted ops ----------------------------------------------------------------------

def _channel_quant(w, oc, axis):
    """(scales, zero points) lists of weights `w` (QConst) per output channel along `axis`
    of its ONNX layout; a single pair stays single."""
    if w.scales.size > 1 and w.axis != axis:
        raise Fail("weights quantized along axis %d; per output channel is axis %d"
                   % (w.axis, axis))
    if w.scales.size not in (1, oc):
        raise Fail("%d weight scales for %d output channels" % (w.scales.size, oc))
    return [float(s) for s in w.scales], [int(z) for z in w.zps]


def _bias(tr, b, oc, in_scale, w_scales):
    """TfModel tensor of the int32 bias (-1 when absent): a DequantizeLinear of int32 at
    scale in_scale * w_scale, or a float constant quantized to it (half to even, as
    onnxruntime's quantizer does)."""
    if b is None:
        return -1
    want = np.float32(in_scale) * np.asarray(w_scales, np.float32) * np.ones(oc, np.float32)
    if isinstance(b, QConst) and b.q.dtype == np.int32:
        if b.zps.any():
            raise Fail("bias zero point must be 0")
        real = b.q.reshape(-1).astype(np.float64) * b.scales
    elif isinstance(b, np.ndarray) and b.dtype.kind == "f":
        real = b.reshape(-1).astype(np.float64)
    else:
        raise Fail("bias must be a DequantizeLinear of int32 or a float constant")
    if real.size != oc:
        raise Fail("bias has %d values for %d output channels" % (real.size, oc))
    q = np.rint(real / want.astype(np.float64))
    if not np.isfinite(q).all() or np.abs(q).max(initial=0) >= 2 ** 31:
        raise Fail("bias does not fit int32 at scale input x weight")
    return tr.const(q.astype(np.int32))


def _window(node, spatial, kernel):
    """(strides, dilations, pads (top, left, bottom, right), output size) of a 2-D window."""
    a = node.attrs
    strides = a.get("strides") or [1, 1]
    dils = a.get("dilations") or [1, 1]
    if len(strides) != 2 or len(dils) != 2 or min(strides + dils + list(kernel)) < 1:
        raise Fail("needs 2-D strides, dilations and kernel of at least 1")
    if a.get("ceil_mode", 0):
        raise Fail("ceil_mode is not supported")
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, dils)]
    auto = a.get("auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * 4
        for i in range(2):
            out = -(-spatial[i] // strides[i])
            total = max(0, (out - 1) * strides[i] + eff[i] - spatial[i])
            pads[i] = total // 2 if auto == "SAME_UPPER" else total - total // 2
            pads[i + 2] = total - pads[i]
    elif auto == "VALID":
        pads = [0] * 4
    elif auto == "NOTSET":
        pads = list(a.get("pads") or [0] * 4)
    else:
        raise Fail("unknown auto_pad %s" % ascii(auto))
    if len(pads) != 4 or any(not 0 <= p < eff[i % 2] for i, p in enumerate(pads)):
        raise Fail("pads %s: 4 pads, each shorter than the window" % (pads,))
    out = [(spatial[i] + pads[i] + pads[i + 2] - eff[i]) // strides[i] + 1 for i in range(2)]
    if min(out) < 1:
        raise Fail("the window is larger than the padded input")
    return strides, dils, pads, out


def _conv_emit(tr, x, w, b):
    """(output ONNX shape, emit) of a convolution of Act x by QConst w with bias b."""
    tr.canonical(x)
    if len(x.shape) != 4 or w.q.ndim != 4 or w.q.dtype != np.int8:
        raise Fail("needs a 4-D input and 4-D int8 weights")
    group = tr.node.attrs.get("group", 1)
    oc, icg, kh, kw = w.q.shape
    if icg * group != x.shape[1] or oc % group:
        raise Fail("weights %s do not fit %d input channels in %d groups"
                   % (w.q.shape, x.shape[1], group))
    strides, dils, pads, (oh, ow) = _window(tr.node, x.shape[2:], (kh, kw))
    scales, zps = _channel_quant(w, oc, 0)
    depthwise = group > 1 and icg == 1
    data = w.q.transpose(1, 2, 3, 0) if depthwise else w.q.transpose(0, 2, 3, 1)
    wt = tr.const(data, (scales, zps), 3 if depthwise else 0)
    bt = _bias(tr, b, oc, tr.quant(x.t)[0], scales)
    options = {"Padding": 1, "StrideH": strides[0], "StrideW": strides[1],
               "DilationHFactor": dils[0], "DilationWFactor": dils[1], "Pads": pads}

    def emit(out, code):
        tr.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x.t, wt, bt], [out],
              dict(options, FusedActivationFunction=code))
    return (x.shape[0], oc, oh, ow), emit


def _fc_emit(tr, x, w, b, axis):
    """(output shape, emit) of x @ W.T + b for QConst `w` laid out [out, in] in the graph,
    whose output channels lie along `axis` of the ONNX weights."""
    q = w.q if axis == 0 else w.q.T
    if q.ndim != 2 or q.dtype != np.int8 or x.shape[-1] != q.shape[1]:
        raise Fail("int8 weights %s do not fit input %s" % (w.q.shape, x.shape))
    if x.order is not None:
        if int(np.prod(x.shape)) != q.shape[1]:
            raise Fail("a reshaped 4-D input must be one row")
        q = q[:, x.order]
    oc = q.shape[0]
    scales, zps = _channel_quant(w, oc, axis)
    wt = tr.const(np.ascontiguousarray(q), (scales, zps))
    bt = _bias(tr, b, oc, tr.quant(x.t)[0], scales)

    def emit(out, code):
        tr.op("FULLY_CONNECTED", [x.t, wt, bt], [out],
              {"FusedActivationFunction": code, "WeightsFormat": 0})
    return x.shape[:-1] + (oc,), emit


@handles("Conv")
def _conv(tr, node):
    tr.defer(*_conv_emit(tr, tr.view(0), tr.weights(1), tr.get(2)))


@handles("Gemm")
def _gemm(tr, node):
    a = node.attrs
    if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or \
            (tr.get(2) is not None and a.get("beta", 1.0) != 1.0):
        raise Fail("transA, alpha and beta other than 0, 1, 1 are not supported")
    x = tr.view(0)
    if len(x.shape) != 2:
        raise Fail("input must be 2-D")
    tr.defer(*_fc_emit(tr, x, tr.weights(1), tr.get(2), 0 if a.get("transB", 0) else 1))


@handles("MatMul")
def _matmul(tr, node):
    tr.defer(*_fc_emit(tr, tr.view(0), tr.weights(1, "the second operand"), None, 1))


# -- elementwise and reductions ----------------------------------------------------------

@handles("Add", "Mul")
def _binary(tr, node):
    for i in (0, 1):
        if isinstance(tr.get(i), (np.ndarray, QConst)):
            raise Fail("constant operands are not supported")
    a, b = tr.view(0), tr.view(1)
    if a.shape == b.shape and a.order is not None and np.array_equal(a.order, b.order):
        order = a.order
    else:
        tr.canonical(a)
        tr.canonical(b, 1)
        order = None
    shape = np.broadcast_shapes(a.shape, b.shape)

    def emit(out, code):
        tr.op(node.op.upper(), [a.t, b.t], [out], {"FusedActivationFunction": code})
    tr.defer(shape, emit, order)


@handles("Relu", "Clip")
def _clip(tr, node):
    if node.op == "Relu":
        bounds = (0.0, None)
    else:
        lo, hi = (tr.constant(i, "clip bound") for i in (1, 2))
        bounds = tuple(None if v is None else float(v.reshape(-1)[0]) for v in (lo, hi))
        bounds = (bounds[0], None if bounds[1] == math.inf else bounds[1])
    code = _CODES.get(bounds)
    if code is None:
        raise Fail("clip to %s: only Relu, [0, 6] and [-1, 1] are supported" % (bounds,))
    x = tr.get(0)
    if isinstance(x, Pending):
        both = {x.code, code} - {0}
        if len(both) > 1 and both != {1, 3}:  # Relu and Clip(0, 6) make Relu6
            raise Fail("two different activations in a row")
        if tr.uses.get(node.outputs[0], 0) != 1:
            raise Fail("its float output must be read by one QuantizeLinear only")
        x.code = max(both)
        tr.set(x)
        return
    x = tr.view(0)

    def emit(out, _code):  # a clamp keeps its input's quantization, then a requantize
        tr.fixed_output(_CLAMPS[code], x, out, tr.quant(x.t))
    tr.defer(x.shape, emit, x.order)


@handles("Sigmoid", "Tanh")
def _sigmoid(tr, node):
    x = tr.view(0)
    kind, fixed = ("LOGISTIC", (1.0 / 256, -128)) if node.op == "Sigmoid" else \
        ("TANH", (1.0 / 128, 0))

    def emit(out, code):
        _no_act(code)
        tr.fixed_output(kind, x, out, fixed)
    tr.defer(x.shape, emit, x.order)


def _no_act(code):
    if code:
        raise Fail("an activation after this op is not supported")


@handles("Softmax")
def _softmax(tr, node):
    x = tr.canonical(tr.view(0))
    axis = node.attrs.get("axis", -1) % len(x.shape)
    if axis != (1 if len(x.shape) == 4 else len(x.shape) - 1):
        raise Fail("softmax over axis %d: only the last (channels in NCHW) is supported"
                   % axis)

    def emit(out, code):
        _no_act(code)
        tr.fixed_output("SOFTMAX", x, out, (1.0 / 256, -128), {"Beta": 1.0})
    tr.defer(x.shape, emit)


@handles("GlobalAveragePool", "ReduceMean")
def _mean(tr, node):
    x = tr.canonical(tr.view(0))
    rank = len(x.shape)
    if node.op == "GlobalAveragePool":
        axes, keep = list(range(2, rank)), 1
    else:
        given = tr.constant(1, "axes")
        axes = node.attrs.get("axes") if given is None else given.reshape(-1).tolist()
        axes = sorted(int(a) % rank for a in (axes or range(rank)))
        keep = node.attrs.get("keepdims", 1)
    graph_axes = sorted(_NHWC_AXIS[a] for a in axes) if rank == 4 else axes
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    shape = kept if keep else tuple(d for i, d in enumerate(x.shape) if i not in axes)
    at = tr.const(np.asarray(graph_axes, np.int32))
    order = order_for(canonical_order(kept), shape)

    def emit(out, code):
        _no_act(code)
        tr.op("MEAN", [x.t, at], [out])
    tr.defer(shape, emit, order)


@handles("MaxPool", "AveragePool")
def _pool(tr, node):
    raw = tr.get(0)
    if node.op == "MaxPool" and isinstance(raw, Act) and not raw.view and \
            not tr.is_float(raw.t):  # an int8 MaxPool (QLinear models): same quantization
        shape, emit = _pool_emit(tr, node, tr.canonical(raw))
        out = tr.activation(shape, *tr.quant(raw.t))
        emit(out, 0)
        tr.set(Act(out, shape, False))
        return
    tr.defer(*_pool_emit(tr, node, tr.canonical(tr.view(0))))


def _pool_emit(tr, node, x):
    if len(node.outputs) > 1 and node.outputs[1]:
        raise Fail("the indices output is not supported")
    kernel = node.attrs.get("kernel_shape") or []
    if len(x.shape) != 4 or len(kernel) != 2:
        raise Fail("needs a 4-D input and a 2-D kernel")
    if any(d != 1 for d in node.attrs.get("dilations") or [1, 1]):
        raise Fail("dilations are not supported")
    strides, _dils, pads, (oh, ow) = _window(node, x.shape[2:], kernel)
    if node.op == "AveragePool" and node.attrs.get("count_include_pad", 0) and any(pads):
        raise Fail("count_include_pad with padding is not supported")
    options = {"Padding": 1, "StrideH": strides[0], "StrideW": strides[1],
               "FilterHeight": kernel[0], "FilterWidth": kernel[1], "Pads": pads}
    kind = "MAX_POOL_2D" if node.op == "MaxPool" else "AVERAGE_POOL_2D"

    def emit(out, code):
        tr.op(kind, [x.t], [out], dict(options, FusedActivationFunction=code))
    return (x.shape[0], x.shape[1], oh, ow), emit


@handles("Concat")
def _concat(tr, node):
    xs = [tr.canonical(tr.view(i), i) for i in range(len(node.inputs))]
    rank = len(xs[0].shape)
    axis = node.attrs.get("axis", 0) % rank
    if any(len(x.shape) != rank for x in xs):
        raise Fail("inputs differ in rank")
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)

    def emit(out, code):
        _no_act(code)
        ins = [tr.requantized(x, *tr.quant(out)) for x in xs]
        tr.op("CONCATENATION", ins, [out], {"Axis": _NHWC_AXIS[axis] if rank == 4 else axis,
                                            "FusedActivationFunction": 0})
    tr.defer(shape, emit)


@handles("Pad")
def _pad(tr, node):
    x = tr.canonical(tr.view(0))
    if node.attrs.get("mode", "constant") != "constant" or tr.get(3) is not None:
        raise Fail("only constant padding of every axis is supported")
    pads = tr.constant(1, "pads").reshape(-1).astype(np.int64)
    value = tr.constant(2, "pad value", np.zeros(1))
    rank = len(x.shape)
    if pads.size != 2 * rank or (pads < 0).any() or float(value.reshape(-1)[0]) != 0.0:
        raise Fail("only non-negative pads with the value 0 are supported")
    before, after = pads[:rank], pads[rank:]
    shape = tuple(int(d + b + a) for d, b, a in zip(x.shape, before, after))
    pairs = np.stack([before, after], 1)
    if rank == 4:
        pairs = pairs[[0, 2, 3, 1]]
    pt = tr.const(pairs.astype(np.int32))

    def emit(out, code):
        _no_act(code)
        tr.op("PAD", [x.t, pt], [out])
    tr.defer(shape, emit)


# -- reshapes ----------------------------------------------------------------------------

def _reshaped(tr, x, shape):
    """Bind the node's output to Act `x` reshaped to ONNX `shape` (a renamed buffer)."""
    shape = tuple(int(d) for d in checked(shape))
    if int(np.prod(shape)) != int(np.prod(x.shape)):
        raise Fail("cannot reshape %s to %s" % (x.shape, shape))
    if shape == x.shape:
        tr.set(x)
        return
    src = tr.tensors[x.t]
    out = tr.tensor(graph_shape(shape), src.dtype, (src.scales, src.zero_points))
    tr.op("RESHAPE", [x.t], [out])
    have = x.order if x.order is not None else canonical_order(x.shape)
    tr.set(Act(out, shape, x.view, order_for(have, shape)))


def _act(tr):
    x = tr.get(0)
    if not isinstance(x, Act):
        raise Fail("input 0 must be an activation (quantized or dequantized)")
    return x


@handles("Reshape")
def _reshape(tr, node):
    x = _act(tr)
    want = [int(d) for d in tr.constant(1, "shape").reshape(-1)]
    if not node.attrs.get("allowzero", 0):
        want = [x.shape[i] if d == 0 and i < len(x.shape) else d for i, d in enumerate(want)]
    if want.count(-1) > 1 or any(d < -1 for d in want):
        raise Fail("bad shape %s" % want)
    if -1 in want:
        known = int(np.prod([d for d in want if d != -1]))
        if known == 0 or int(np.prod(x.shape)) % known:
            raise Fail("cannot reshape %s to %s" % (x.shape, want))
        want[want.index(-1)] = int(np.prod(x.shape)) // known
    _reshaped(tr, x, want)


@handles("Flatten")
def _flatten(tr, node):
    x = _act(tr)
    axis = node.attrs.get("axis", 1) % (len(x.shape) + 1)
    _reshaped(tr, x, (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))))


@handles("Squeeze", "Unsqueeze")
def _squeeze(tr, node):
    x = _act(tr)
    given = tr.constant(1, "axes")
    axes = node.attrs.get("axes") if given is None else given.reshape(-1).tolist()
    shape = list(x.shape)
    if node.op == "Unsqueeze":
        rank = len(shape) + len(axes or [])
        for a in sorted(int(a) % rank for a in axes or []):
            shape.insert(a, 1)
    else:
        drop = {int(a) % len(shape) for a in axes} if axes else \
            {i for i, d in enumerate(shape) if d == 1}
        shape = [d for i, d in enumerate(shape) if i not in drop]
    _reshaped(tr, x, shape)


@handles("Identity", "Dropout")
def _identity(tr, node):
    if isinstance(tr.get(0), Pending):
        raise Fail("a float output must go straight to its QuantizeLinear")
    tr.set(tr.get(0))

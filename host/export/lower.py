"""Lower a Trace to a `.bst` Graph: float32 ops as they are, or int8 ops quantized as
TensorFlow Lite does it.

int8: weights symmetric per output channel in [-127, 127]; biases int32 at scale
`in_scale * w_scale[c]`; activations asymmetric per tensor (the range widened to hold 0,
the zero point nudged to an integer); pools and lone clamps keep their input's
quantization (a concatenation's inputs and output share one, covering all their ranges);
softmax / logistic / tanh outputs have TFLM's fixed scales. Requantization
multipliers, shifts and clamps come from `burn.graph.quant_params`, so the file holds the
integers TFLM's Prepare() would compute. Every scale is rounded to float32 first, as a
TFLite file stores it.
"""

import numpy as np

from burn.graph import quant_params, unary
from burn.graph.ops import FUSES_ACTIVATION, WEIGHTED

from ..bst_writer import Graph, GraphOp, GraphTensor
from ..importers import arith_params, unary_tables

_SHARED_QUANT = ("max_pool2d", "avg_pool2d", "clamp", "pad", "copy", "concat", "strided")
_FIXED_QUANT = {"softmax": (1.0 / 256, -128), "logistic": (1.0 / 256, -128),
                "tanh": (1.0 / 128, 0)}
IO_DTYPES = ("int8", "float32")
_UNARY_NAMES = {getattr(unary, name): name for name in unary_tables.OPS}  # fn code -> op


def _f32(x):
    return float(np.float32(x))


def _round_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def activation_qparams(lo, hi):
    """(scale, zero_point) of an int8 activation covering [lo, hi] (TFLite's
    ChooseQuantizationParams: the range always holds 0, so 0.0 is exact)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi == lo:
        return 1.0, 0
    scale = _f32((hi - lo) / 255.0)
    from_min, from_max = -128 - lo / scale, 127 - hi / scale
    err_min, err_max = 128 + abs(lo / scale), 127 + abs(hi / scale)
    zp = from_min if err_min < err_max else from_max
    return scale, int(min(127, max(-128, _round_away(zp))))


def weight_scales(w, axis):
    """Per-channel symmetric scales (float32-exact) of `w` along `axis`."""
    other = tuple(a for a in range(w.ndim) if a != axis)
    peak = np.abs(w).max(axis=other).astype(np.float64)
    return np.array([_f32(p / 127.0) if p > 0 else 1.0 for p in peak])


def quantize_weights(w, axis):
    """(int8 weights, per-channel scales): symmetric, in [-127, 127]."""
    scales = weight_scales(w, axis)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = _round_away(w.astype(np.float64) / scales.reshape(shape))
    return np.clip(q, -127, 127).astype(np.int8), scales


def quantize_bias(b, in_scale, w_scales):
    """int32 bias at scale in_scale * w_scale[c]."""
    q = _round_away(b.astype(np.float64) / (in_scale * w_scales))
    return np.clip(q, -2**31, 2**31 - 1).astype(np.int32)


def quantize_input(x, scale, zero_point):
    """int8 inputs of a float array as the `quantize` op computes them (TFLM's
    AffineQuantize: the division in float32, rounded half away from zero)."""
    q = _round_away(np.float32(x) / np.float32(scale)).astype(np.int64) + int(zero_point)
    return np.clip(q, -128, 127).astype(np.int8)


def _quantization(trace, ranges):
    """[(scale, zero_point)] of every value: values that must share a quantization (a
    pool's input and output, a concatenation's inputs and output, ...) form one group whose
    range covers all of theirs; a group holding a softmax / logistic / tanh output takes
    that op's fixed quantization."""
    group = list(range(len(trace.values)))

    def root(v):
        while group[v] != v:
            group[v] = group[group[v]]
            v = group[v]
        return v

    fixed = {}
    for layer in trace.layers:
        if layer.kind in _SHARED_QUANT:
            for v in layer.ins:
                group[root(v)] = root(layer.dst)
    for layer in trace.layers:
        if layer.kind in _FIXED_QUANT:
            fixed[root(layer.dst)] = _FIXED_QUANT[layer.kind]
    span = {}
    for v in range(len(trace.values)):
        lo, hi = ranges[v]
        old = span.get(root(v), (lo, hi))
        span[root(v)] = (min(old[0], lo), max(old[1], hi))
    return [fixed.get(root(v)) or activation_qparams(*span[root(v)])
            for v in range(len(trace.values))]


def _int8_op(layer, qp):
    (in_scale, in_zp), (out_scale, out_zp) = qp[layer.src], qp[layer.dst]
    ins = list(layer.ins)
    params = dict(layer.params)
    consts = {}
    kind = layer.kind
    lo, hi = quant_params.quant_activation_range(layer.act, out_scale, out_zp)
    if kind in WEIGHTED:
        w, w_scales = quantize_weights(layer.w, 3 if kind == "depthwise_conv2d" else 0)
        mult, shift = quant_params.conv_output_multipliers(in_scale, list(w_scales), out_scale)
        consts = {"w": w, "bias": quantize_bias(layer.b, in_scale, w_scales),
                  "mult": np.array(mult, np.int32), "shift": np.array(shift, np.int32)}
        params.update({"in_zp": in_zp, "out_zp": out_zp, "act_min": lo, "act_max": hi})
    elif kind in ("max_pool2d", "avg_pool2d", "clamp"):
        params.update({"act_min": lo, "act_max": hi})
    elif kind == "pad":
        params["value"] = int(quantize_input(params["value"], in_scale, in_zp))
    elif kind == "add":
        (a_scale, a_zp), (b_scale, b_zp) = qp[ins[0]], qp[ins[1]]
        left, am, ash, bm, bsh, om, osh = quant_params.add_params(a_scale, b_scale, out_scale)
        params.update({"a_zp": a_zp, "a_mult": am, "a_shift": ash, "b_zp": b_zp,
                       "b_mult": bm, "b_shift": bsh, "out_zp": out_zp, "out_mult": om,
                       "out_shift": osh, "left_shift": left, "act_min": lo, "act_max": hi})
    elif kind == "sub":  # TFLM SUB's parameters, as the TFLite importer computes them
        (a_scale, a_zp), (b_scale, b_zp) = qp[ins[0]], qp[ins[1]]
        left, am, ash, bm, bsh, om, osh = arith_params.sub_params(a_scale, b_scale, out_scale)
        params.update({"a_zp": a_zp, "a_mult": am, "a_shift": ash, "b_zp": b_zp,
                       "b_mult": bm, "b_shift": bsh, "out_zp": out_zp, "out_mult": om,
                       "out_shift": osh, "left_shift": left, "act_min": lo, "act_max": hi})
    elif kind == "mul":
        (a_scale, a_zp), (b_scale, b_zp) = qp[ins[0]], qp[ins[1]]
        mult, shift = quant_params.mul_params(a_scale, b_scale, out_scale)
        params.update({"a_zp": a_zp, "b_zp": b_zp, "out_zp": out_zp, "mult": mult,
                       "shift": shift, "act_min": lo, "act_max": hi})
    elif kind == "batch_matmul":
        (a_scale, a_zp), (b_scale, b_zp) = qp[ins[0]], qp[ins[1]]
        mult, shift = arith_params.batch_matmul_params(a_scale, b_scale, out_scale)
        params.update({"a_zp": a_zp, "b_zp": b_zp, "out_zp": out_zp, "mult": mult,
                       "shift": shift})
    elif kind in ("concat", "copy", "strided"):
        pass
    elif kind == "mean":
        params["mult"], params["shift"] = quant_params.mean_params(in_scale, out_scale,
                                                         params["reduce"])
        params.update({"in_zp": in_zp, "out_zp": out_zp})
    elif kind == "softmax":
        m, ls, dmin = quant_params.softmax_params(1.0, in_scale)
        params.update({"in_mult": m, "in_left_shift": ls, "diff_min": dmin})
    elif kind == "unary" and params["fn"] == unary.HARD_SIGMOID:  # from the float function
        alpha = params.pop("alpha")
        del params["fn"]
        consts = {"table": unary_tables.function_table(
            lambda x: np.clip(alpha * x + 0.5, 0.0, 1.0), (in_scale, in_zp),
            (out_scale, out_zp))}
    elif kind == "unary" and params["fn"] in _UNARY_NAMES:  # int8: TFLM's 256 results
        name = _UNARY_NAMES[params.pop("fn")]
        consts = {"table": unary_tables.table(name, (in_scale, in_zp), (out_scale, out_zp),
                                              params.pop("alpha", 0.0))}
    elif kind in ("logistic", "tanh"):
        helper = quant_params.logistic_params if kind == "logistic" else quant_params.tanh_params
        m, ls, radius = helper(in_scale)
        params.update({"in_zp": in_zp, "in_mult": m, "in_left_shift": ls,
                       "range_radius": radius})
    else:
        raise ValueError("no int8 lowering for op %s (%s)" % (kind, layer.path))
    return GraphOp(kind, ins, [layer.dst], consts, params)


def _float_op(layer):
    params = dict(layer.params)
    consts = {}
    if layer.kind in WEIGHTED:
        consts = {"w": layer.w, "bias": layer.b}
    if layer.kind in FUSES_ACTIVATION + ("clamp",):
        params["act"] = layer.act
    elif layer.kind == "softmax":
        params["beta"] = 1.0
    return GraphOp(layer.kind, layer.ins, [layer.dst], consts, params)


def _io(trace):
    v = trace.values
    return [(trace.input, v[trace.input].shape)], [(trace.output, trace.output_shape)]


def float_graph(trace, metadata=None):
    """The float32 Graph of `trace` (no reference tests yet)."""
    tensors = [GraphTensor(v.name, v.shape, "float32") for v in trace.values]
    ops = [_float_op(layer) for layer in trace.layers]
    inputs, outputs = _io(trace)
    return Graph(tensors, ops, inputs, outputs, metadata=metadata)


def int8_graph(trace, ranges, io="int8", metadata=None):
    """The int8 Graph of `trace` quantized with the calibration `ranges` ({value index:
    (lo, hi)}). `io="float32"` adds a quantize op in front and a dequantize op at the end,
    so the model takes and returns float32; `io="int8"` leaves both to the caller."""
    if io not in IO_DTYPES:
        raise ValueError("io must be one of %s, got %r" % (IO_DTYPES, io))
    missing = [v.name for v in trace.values if v.index not in ranges]
    if missing:
        raise ValueError("calibration saw no range for " + ", ".join(missing))
    qp = _quantization(trace, ranges)
    tensors = [GraphTensor(v.name, v.shape, "int8", *qp[v.index]) for v in trace.values]
    ops = [_int8_op(layer, qp) for layer in trace.layers]
    inputs, outputs = _io(trace)
    if io == "float32":
        first, last = inputs[0][0], outputs[0][0]
        tensors.append(GraphTensor("input_f32", tensors[first].shape, "float32"))
        tensors.append(GraphTensor("output_f32", tensors[last].shape, "float32"))
        fin, fout = len(tensors) - 2, len(tensors) - 1
        scale, zp = qp[first]
        ops.insert(0, GraphOp("quantize", [fin], [first], params={"scale": scale, "zp": zp}))
        scale, zp = qp[last]
        ops.append(GraphOp("dequantize", [last], [fout], params={"scale": scale, "zp": zp}))
        inputs = [(fin, inputs[0][1])]
        outputs = [(fout, outputs[0][1])]
    return Graph(tensors, ops, inputs, outputs, metadata=metadata)

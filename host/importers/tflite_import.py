"""TFLite -> `.bst` graph: `import_tflite(bytes)` returns a `burn.host.bst_writer.Graph`.

int8 models keep TFLite's quantization; the requantization multipliers, shifts and clamps
are computed here exactly as TFLM's Prepare() computes them (`burn.graph.fixedpoint`).
float32 models keep float weights. Reshape-like ops are folded away (they only rename a
buffer). Ops the runtime cannot run are all reported at once, each with its node index.
Reference vectors for the file's self-test come from the TFLM interpreter.
"""

import struct

import numpy as np

from burn.graph import fixedpoint as fp
from burn.graph import geometry
from burn.host.arena_plan import plan_arena
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, runtime_tests
from burn.host.importers.tflite_read import read_tflite

_FOLDED = ("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
_CLAMPS = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
SUPPORTED = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "MUL",
             "AVERAGE_POOL_2D", "MAX_POOL_2D", "MEAN", "SOFTMAX", "LOGISTIC", "TANH",
             "QUANTIZE", "DEQUANTIZE", "PAD", "PADV2", "CONCATENATION") + _FOLDED + \
    tuple(_CLAMPS)


def _short(name):
    """The first of the names a converter joins with ';' (the model file keeps it in RAM)."""
    return name.split(";")[0][-48:]


class _Fail(ValueError):
    """An op the importer cannot convert."""


class _Converter:
    def __init__(self, tf):
        self.tf = tf
        self.tensors = []
        self.index = {}   # TFLite tensor index -> graph tensor index
        self.ops = []

    # -- tensors --------------------------------------------------------------------------
    def act(self, t):
        """The graph tensor of activation t (made on first use)."""
        if t in self.index:
            return self.index[t]
        tt = self.tf.tensors[t]
        if tt.data is not None:
            raise _Fail("constant tensor %d (%s) used as an activation" % (t, tt.name))
        if tt.dtype == np.int8:
            scale, zp = self.quant(t)
            g = GraphTensor(_short(tt.name), tt.shape, "int8", scale, zp)
        elif tt.dtype == np.float32:
            g = GraphTensor(_short(tt.name), tt.shape, "float32")
        else:
            raise _Fail("tensor %d (%s) is %s; activations must be int8 or float32"
                        % (t, tt.name, tt.dtype.name))
        self.tensors.append(g)
        self.index[t] = len(self.tensors) - 1
        return self.index[t]

    def quant(self, t):
        tt = self.tf.tensors[t]
        if len(tt.scales) != 1 or len(tt.zero_points) != 1:
            raise _Fail("tensor %d (%s) needs one scale and zero point" % (t, tt.name))
        scale, zp = tt.scales[0], tt.zero_points[0]
        if not scale > 0 or not -128 <= zp <= 127:
            raise _Fail("tensor %d (%s): bad quantization %r, %r" % (t, tt.name, scale, zp))
        return scale, zp

    def const(self, t, what):
        if t < 0 or self.tf.tensors[t].data is None:
            raise _Fail(what + " must be a constant tensor")
        return self.tf.tensors[t].data

    def shape(self, t):
        return self.tf.tensors[t].shape

    # -- helpers --------------------------------------------------------------------------
    def emit(self, op, node, consts=None, params=None, ins=None):
        inputs = [self.act(t) for t in (ins if ins is not None else node.inputs[:1])]
        outputs = [self.act(t) for t in node.outputs]
        self.ops.append(GraphOp(op, inputs, outputs, consts, params))

    def is_int8(self, node):
        return self.tf.tensors[node.inputs[0]].dtype == np.int8

    def fused(self, node):
        code = node.options.FusedActivationFunction() if node.options else 0
        if code not in (0, 1, 2, 3):  # NONE, RELU, RELU_N1_TO_1, RELU6: burn's codes too
            raise _Fail("fused activation %d not supported" % code)
        return code

    def out_quant_params(self, node, code):
        out_scale, out_zp = self.quant(node.outputs[0])
        lo, hi = fp.quant_activation_range(code, out_scale, out_zp)
        return {"out_zp": out_zp, "act_min": lo, "act_max": hi}

    def window(self, node, kh, kw, dil_h=1, dil_w=1):
        o = node.options
        if o is None:
            raise _Fail("missing options")
        _n, ih, iw, _c = self.shape(node.inputs[0])
        _n2, oh, ow, _c2 = self.shape(node.outputs[0])
        same = o.Padding() == 0
        sh, sw = o.StrideH(), o.StrideW()
        if sh < 1 or sw < 1:
            raise _Fail("bad strides %d, %d" % (sh, sw))
        want = (geometry.out_size(ih, kh, sh, dil_h, same),
                geometry.out_size(iw, kw, sw, dil_w, same))
        if want != (oh, ow):
            raise _Fail("output %dx%d, expected %dx%d" % (oh, ow, want[0], want[1]))
        return {"stride_h": sh, "stride_w": sw,
                "pad_top": geometry.pad_before(ih, kh, sh, dil_h, oh),
                "pad_left": geometry.pad_before(iw, kw, sw, dil_w, ow)}

    def requant(self, node, w_index, oc):
        """mult, shift arrays (int32, per output channel) of a conv-like int8 op."""
        in_scale, _ = self.quant(node.inputs[0])
        out_scale, _ = self.quant(node.outputs[0])
        w_scales = self.tf.tensors[w_index].scales
        if len(w_scales) == 1:
            w_scales = w_scales * oc
        if len(w_scales) != oc:
            raise _Fail("%d weight scales for %d output channels" % (len(w_scales), oc))
        mult, shift = fp.conv_output_multipliers(in_scale, w_scales, out_scale)
        return np.array(mult, np.int32), np.array(shift, np.int32)

    def dequantized(self, t, w):
        """float32 weights of a hybrid model's int8 constant (real = scale * (q - zp)),
        per channel along the tensor's quantized dimension."""
        info = self.tf.tensors[t]
        if not info.scales:
            raise _Fail("int8 weights without quantization scales")
        scales = np.asarray(info.scales, np.float64)
        zps = np.asarray(info.zero_points or [0] * len(scales), np.float64)
        if len(scales) > 1:
            view = [1] * w.ndim
            view[info.qdim] = len(scales)
            if w.shape[info.qdim] != len(scales):
                raise _Fail("%d weight scales for dimension %d of size %d"
                            % (len(scales), info.qdim, w.shape[info.qdim]))
            scales, zps = scales.reshape(view), zps.reshape(view)
        return ((w.astype(np.float64) - zps) * scales).astype(np.float32)

    def bias(self, node, oc, dtype):
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            b = self.const(node.inputs[2], "bias").reshape(-1)
            if b.size != oc or b.dtype != dtype:
                raise _Fail("bias must be %d values of %s" % (oc, np.dtype(dtype).name))
            return b
        return np.zeros(oc, dtype)

    def weighted(self, kind, node, w, params):
        """Emit a conv / depthwise / fully connected op with its weights `w`."""
        oc = w.shape[0] if kind != "depthwise_conv2d" else w.shape[3]
        code = self.fused(node)
        if self.is_int8(node):
            if w.dtype != np.int8:
                raise _Fail("int8 op with %s weights (hybrid models are not supported)"
                            % w.dtype.name)
            if any(self.tf.tensors[node.inputs[1]].zero_points):
                raise _Fail("weights must be symmetric (zero point 0)")
            mult, shift = self.requant(node, node.inputs[1], oc)
            consts = {"w": w, "bias": self.bias(node, oc, np.int32), "mult": mult,
                      "shift": shift}
            params.update(self.out_quant_params(node, code))
            params["in_zp"] = self.quant(node.inputs[0])[1]
        else:
            if w.dtype == np.int8:
                w = self.dequantized(node.inputs[1], w)
            if w.dtype != np.float32:
                raise _Fail("float op with %s weights" % w.dtype.name)
            consts = {"w": w, "bias": self.bias(node, oc, np.float32)}
            params["act"] = code
        self.emit(kind, node, consts, params)


# -- one function per TFLite op ------------------------------------------------------------

def _conv(c, node):
    w = c.const(node.inputs[1], "filter")
    o = node.options
    dh, dw = (o.DilationHFactor(), o.DilationWFactor()) if o else (1, 1)
    ic = c.shape(node.inputs[0])[3]
    if w.ndim != 4 or w.shape[3] < 1 or ic % w.shape[3]:
        raise _Fail("filter %s does not fit %d input channels" % (w.shape, ic))
    params = c.window(node, w.shape[1], w.shape[2], dh, dw)
    params.update({"groups": ic // w.shape[3], "dil_h": dh, "dil_w": dw})
    c.weighted("conv2d", node, w, params)


def _depthwise(c, node):
    w = c.const(node.inputs[1], "filter")
    o = node.options
    dh, dw = (o.DilationHFactor(), o.DilationWFactor()) if o else (1, 1)
    ic = c.shape(node.inputs[0])[3]
    if w.ndim != 4 or w.shape[3] % ic:
        raise _Fail("filter %s does not fit %d input channels" % (w.shape, ic))
    params = c.window(node, w.shape[1], w.shape[2], dh, dw)
    params.update({"depth_mult": w.shape[3] // ic, "dil_h": dh, "dil_w": dw})
    c.weighted("depthwise_conv2d", node, w, params)


def _fully_connected(c, node):
    w = c.const(node.inputs[1], "weights")
    if node.options is not None and node.options.WeightsFormat() != 0:
        raise _Fail("shuffled weights are not supported")
    if w.ndim != 2:
        raise _Fail("weights must be 2-D, got %s" % (w.shape,))
    c.weighted("fully_connected", node, w, {})


def _binary(c, node):
    kind = node.name.lower()
    a, b = node.inputs[:2]
    for t in (a, b):
        if c.tf.tensors[t].data is not None:
            raise _Fail("constant operands are not supported")
    na, nb = (int(np.prod(c.shape(t))) for t in (a, b))
    if na < nb:
        a, b, na, nb = b, a, nb, na
    sa, sb = c.shape(a), c.shape(b)
    if int(np.prod(c.shape(node.outputs[0]))) != na:
        raise _Fail("broadcast of %s with %s is not supported" % (sa, sb))
    if na != nb and tuple(sa[len(sa) - len(sb):]) != tuple(sb) and nb != 1:
        raise _Fail("broadcast of %s over %s is not supported" % (sb, sa))
    code = c.fused(node)
    if not c.is_int8(node):
        c.emit(kind, node, params={"act": code}, ins=[a, b])
        return
    (a_scale, a_zp), (b_scale, b_zp) = c.quant(a), c.quant(b)
    out_scale, _ = c.quant(node.outputs[0])
    params = c.out_quant_params(node, code)
    params.update({"a_zp": a_zp, "b_zp": b_zp})
    if kind == "add":
        ls, am, ash, bm, bsh, om, osh = fp.add_params(a_scale, b_scale, out_scale)
        params.update({"left_shift": ls, "a_mult": am, "a_shift": ash, "b_mult": bm,
                       "b_shift": bsh, "out_mult": om, "out_shift": osh})
    else:
        params["mult"], params["shift"] = fp.mul_params(a_scale, b_scale, out_scale)
    c.emit(kind, node, params=params, ins=[a, b])


def _pool(c, node):
    o = node.options
    if o is None:
        raise _Fail("missing options")
    kh, kw = o.FilterHeight(), o.FilterWidth()
    if kh < 1 or kw < 1:
        raise _Fail("bad filter %dx%d" % (kh, kw))
    params = c.window(node, kh, kw)
    params.update({"kh": kh, "kw": kw})
    code = c.fused(node)
    if c.is_int8(node):
        if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
            raise _Fail("input and output quantization differ")
        p = c.out_quant_params(node, code)
        params.update({"act_min": p["act_min"], "act_max": p["act_max"]})
    else:
        params["act"] = code
    c.emit("avg_pool2d" if node.name == "AVERAGE_POOL_2D" else "max_pool2d", node,
           params=params)


def _mean(c, node):
    shape = c.shape(node.inputs[0])
    axes = sorted(int(a) % len(shape) for a in c.const(node.inputs[1], "axes").reshape(-1))
    if not axes or axes != list(range(axes[0], axes[-1] + 1)):
        raise _Fail("mean over axes %s: only one contiguous block of axes" % axes)
    outer = int(np.prod(shape[:axes[0]], dtype=np.int64))
    reduce = int(np.prod(shape[axes[0]:axes[-1] + 1], dtype=np.int64))
    inner = int(np.prod(shape[axes[-1] + 1:], dtype=np.int64))
    params = {"outer": outer, "reduce": reduce, "inner": inner}
    if c.is_int8(node):
        (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
            c.quant(node.outputs[0])
        params["mult"], params["shift"] = fp.mean_params(in_scale, out_scale, reduce)
        params.update({"in_zp": in_zp, "out_zp": out_zp})
    c.emit("mean", node, params=params)


def _softmax(c, node):
    beta = float(node.options.Beta()) if node.options else 1.0
    if not c.is_int8(node):
        c.emit("softmax", node, params={"beta": beta})
        return
    if c.quant(node.outputs[0]) != (1.0 / 256, -128):
        raise _Fail("int8 output must have scale 1/256 and zero point -128")
    m, ls, dmin = fp.softmax_params(beta, c.quant(node.inputs[0])[0])
    c.emit("softmax", node, params={"in_mult": m, "in_left_shift": ls, "diff_min": dmin})


def _sigmoid_like(c, node):
    kind = node.name.lower()
    if not c.is_int8(node):
        c.emit(kind, node)
        return
    want = (1.0 / 256, -128) if kind == "logistic" else (1.0 / 128, 0)
    if c.quant(node.outputs[0]) != want:
        raise _Fail("int8 output must have scale %r and zero point %d" % want)
    in_scale, in_zp = c.quant(node.inputs[0])
    m, ls, radius = fp.logistic_params(in_scale) if kind == "logistic" else \
        fp.tanh_params(in_scale)
    c.emit(kind, node, params={"in_zp": in_zp, "in_mult": m, "in_left_shift": ls,
                               "range_radius": radius})


def _quantize(c, node):
    src = c.tf.tensors[node.inputs[0]].dtype
    if node.name == "DEQUANTIZE":
        scale, zp = c.quant(node.inputs[0])
        c.emit("dequantize", node, params={"scale": scale, "zp": zp})
    elif src == np.float32:
        scale, zp = c.quant(node.outputs[0])
        c.emit("quantize", node, params={"scale": scale, "zp": zp})
    else:
        (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
            c.quant(node.outputs[0])
        m, s = fp.requantize_params(in_scale, out_scale)
        c.emit("requantize", node, params={"in_zp": in_zp, "out_zp": out_zp, "mult": m,
                                           "shift": s})


def _clamp(c, node):
    code = _CLAMPS[node.name]
    if not c.is_int8(node):
        c.emit("clamp", node, params={"act": code})
        return
    if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
        raise _Fail("int8 %s that rescales is not supported" % node.name)
    p = c.out_quant_params(node, code)
    c.emit("clamp", node, params={"act_min": p["act_min"], "act_max": p["act_max"]})


def _pad(c, node):
    shape = c.shape(node.inputs[0])
    pads = c.const(node.inputs[1], "paddings").reshape(-1, 2)
    if len(shape) > 4 or pads.shape[0] != len(shape) or (pads < 0).any():
        raise _Fail("paddings %s do not fit shape %s" % (pads.tolist(), shape))
    lead = [[0, 0]] * (4 - len(shape))
    pads = lead + pads.tolist()
    params = {"before": [int(p[0]) for p in pads], "after": [int(p[1]) for p in pads]}
    if c.is_int8(node):
        if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
            raise _Fail("input and output quantization differ")
        value = c.quant(node.outputs[0])[1]
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            value = int(c.const(node.inputs[2], "pad value").reshape(-1)[0])
    else:
        value = 0.0
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            value = float(c.const(node.inputs[2], "pad value").reshape(-1)[0])
    params["value"] = value
    c.emit("pad", node, params=params)


def _concat(c, node):
    shape = c.shape(node.outputs[0])
    axis = node.options.Axis() % len(shape) if node.options else 0
    if c.fused(node):
        raise _Fail("fused activation on concatenation is not supported")
    if c.is_int8(node):
        q = c.quant(node.outputs[0])
        if any(c.quant(t) != q for t in node.inputs):
            raise _Fail("int8 inputs must share the output's scale and zero point")
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = [int(np.prod(c.shape(t)[axis:], dtype=np.int64)) for t in node.inputs]
    c.emit("concat", node, params={"outer": outer, "inner_sizes": inner}, ins=node.inputs)


_CONVERT = {
    "CONV_2D": _conv, "DEPTHWISE_CONV_2D": _depthwise, "FULLY_CONNECTED": _fully_connected,
    "ADD": _binary, "MUL": _binary, "AVERAGE_POOL_2D": _pool, "MAX_POOL_2D": _pool,
    "MEAN": _mean, "SOFTMAX": _softmax, "LOGISTIC": _sigmoid_like, "TANH": _sigmoid_like,
    "QUANTIZE": _quantize, "DEQUANTIZE": _quantize, "PAD": _pad, "PADV2": _pad,
    "CONCATENATION": _concat, "RELU": _clamp, "RELU6": _clamp, "RELU_N1_TO_1": _clamp,
}


def _fold_aliases(tf):
    """Map the output of each reshape-like op to its input; returns {out: in}."""
    alias = {}
    for node in tf.ops:
        if node.name in _FOLDED:
            src = node.inputs[0]
            src = alias.get(src, src)
            a, b = tf.tensors[src], tf.tensors[node.outputs[0]]
            if a.dtype != b.dtype or (a.dtype == np.int8 and
                                      (a.scales, a.zero_points) != (b.scales, b.zero_points)):
                raise ValueError("node %d (%s): input and output quantization differ"
                                 % (node.index, node.name))
            alias[node.outputs[0]] = src
    return alias


def _rename(node, alias):
    node.inputs = [alias.get(t, t) for t in node.inputs]
    return node


def _check_supported(tf):
    bad = [n for n in tf.ops if n.name not in SUPPORTED]
    if bad:
        raise ValueError("unsupported ops: " + ", ".join(
            "node %d (%s)" % (n.index, n.name) for n in bad))


def random_inputs(graph, count, seed=0):
    """`count` seeded random input sets: one array per graph input, in its dtype."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        ins = []
        for tid, shape in graph.inputs:
            if graph.tensors[tid].dtype == "int8":
                ins.append(rng.integers(-128, 128, size=shape, dtype=np.int8))
            else:
                ins.append(rng.standard_normal(shape).astype(np.float32))
        sets.append(ins)
    return sets


def reference_tests(data, graph, count, seed=0):
    """Run `count` random inputs through the TFLM interpreter; returns [(ins, outs)]."""
    from tflite_micro.python.tflite_micro import runtime
    interp = runtime.Interpreter.from_bytes(data)
    tests = []
    for ins in random_inputs(graph, count, seed):
        for k, x in enumerate(ins):
            interp.set_input(x, k)
        interp.invoke()
        outs = [np.array(interp.get_output(k)).reshape(shape)
                for k, (_t, shape) in enumerate(graph.outputs)]
        tests.append((ins, outs))
    return tests


# What the lazy flatbuffer accessors raise on hostile bytes (struct.error for offsets
# that point outside the buffer).
_MALFORMED = (IndexError, TypeError, ArithmeticError, AttributeError, KeyError, struct.error)


def import_tflite(data, tests=4, labels=(), metadata=None, progress=None):
    """Convert TFLite bytes into a Graph with `tests` TFLM reference tests. Raises
    ValueError naming every unsupported op (node index and op name) or malformed part.
    `progress(message)` is called as the work goes on."""
    say = progress or (lambda message: None)
    tf = read_tflite(data)
    _check_supported(tf)
    try:
        alias = _fold_aliases(tf)
        conv = _Converter(tf)
    except _MALFORMED as e:
        raise ValueError("malformed TFLite graph: %s" % e) from e
    errors = []
    say("converting %d ops" % len(tf.ops))
    for node in tf.ops:
        if node.name in _FOLDED:
            continue
        try:
            _CONVERT[node.name](conv, _rename(node, alias))
        except _Fail as e:
            errors.append("node %d (%s): %s" % (node.index, node.name, e))
        except _MALFORMED as e:
            errors.append("node %d (%s): malformed: %s" % (node.index, node.name, e))
    if errors:
        raise ValueError("cannot import: " + "; ".join(errors))
    try:
        inputs = [(conv.act(alias.get(t, t)), tf.tensors[t].shape) for t in tf.inputs]
        outputs = [(conv.act(alias.get(t, t)), tf.tensors[t].shape) for t in tf.outputs]
    except (_Fail,) + _MALFORMED as e:
        raise ValueError("graph inputs/outputs: %s" % e) from e
    meta = {"importer": "tflite", "description": tf.description}
    meta.update(metadata or {})
    graph = Graph(conv.tensors, conv.ops, inputs, outputs, labels=labels, metadata=meta)
    plan_arena(graph)  # the data flow is consistent (every read tensor is written first)
    if tests:
        say("running TFLM for %d reference tests" % tests)
        try:
            graph.tests = reference_tests(data, graph, tests)
        except RuntimeError:
            # TFLM refuses some valid TFLite models (hybrid ones: float ops with int8
            # weights); their self-test vectors then come from burn's own runtime.
            say("TFLM cannot run this model; reference tests come from burn's runtime")
            graph.tests = runtime_tests(graph, [ins[0] for ins in random_inputs(graph, tests)])
    return graph

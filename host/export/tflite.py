"""Write an exported Graph (burn.host.bst_writer.Graph, int8 or float32) as a `.tflite` file.

    from burn.host.export.tflite import export_tflite, tflite_bytes
    export_tflite(model, "digits.tflite", calibration=x_train[:256])   # int8, atomically
    data = tflite_bytes(graph)          # any Graph the exporter or an importer made

Each graph tensor becomes a TFLite tensor with its scale and zero point, each op the TFLite
builtin of the same arithmetic: convolutions with per-channel symmetric int8 weights
(quantized dimension 0, or 3 for depthwise) and int32 biases at `in_scale * w_scale[c]`,
fused activations from the op's clamp, SAME/VALID padding where the op's padding is
TFLite's, else an explicit PAD before a VALID op. The graph keeps no float weight scales,
only the requantization multipliers TFLM's Prepare() computes from them, so each scale is
recovered from its multiplier and shift and kept only where TFLM gives back the very same
integers: every integer parameter of the graph is checked against what TFLM will compute
from the file, and a graph TFLM would run differently is refused. So TFLM runs the file
with the `.bst` runtime's outputs, bit for bit.
"""

import math

import numpy as np

from burn.graph import fixedpoint as fp
from burn.graph import geometry
from burn.graph import quant_params as qp
from burn.graph.ops import tflite_ops

from ..atomic import write_bytes_atomic
from ..importers import arith_params
from ..tflite_writer import ModelBuilder
from .trace import ExportError

# graph op -> the TFLite builtin it becomes, the op table's first (window ops and those with
# options have writers of their own below)
_SIMPLE = {kind: tflite_ops(kind)[0]
           for kind in ("logistic", "tanh", "quantize", "dequantize", "requantize")}
_CLAMP_OPS = {fp.ACT_RELU: "RELU", fp.ACT_RELU6: "RELU6", fp.ACT_RELU_N1_TO_1: "RELU_N1_TO_1"}
_FLOAT_LOWEST = float(np.finfo(np.float32).min)
_ULPS = 4  # float32 neighbours tried around a recovered weight scale


class _Fail(ValueError):
    """An op that has no faithful TFLite form."""


def _f32(x):
    return float(np.float32(x))


def _check(op, name, want):
    have = op.params.get(name)
    if have is None and name in op.consts:
        have = op.consts[name].tolist()
    if isinstance(want, tuple):
        want = list(want)
    if have != want:
        raise _Fail("%s = %r, but TFLM computes %r from the tensors' scales" % (name, have,
                                                                              want))


def _weight_scale(in_scale, out_scale, mult, shift):
    """The float32 weight scale whose TFLM multiplier is (mult, shift), or None."""
    if mult < 0:
        return None
    # (0, 0): a scale ratio below 2**-32 (vanishing activations); any such scale will do.
    real = mult * 2.0 ** (shift - 31) if mult else 2.0 ** -40
    up = down = np.float32(real * out_scale / in_scale)
    candidates = [up]
    for _ in range(_ULPS):
        up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(0))
        candidates += [up, down]
    for s in candidates:
        if s > 0 and qp.quantize_multiplier(in_scale * float(s) / out_scale) == (mult, shift):
            return float(s)
    return None


class _Writer:
    def __init__(self, graph):
        self.g = graph
        self.mb = ModelBuilder()
        self.reshaped = {}
        for i, t in enumerate(graph.tensors):
            if t.dtype == "int8" and (t.scale is None or _f32(t.scale) != t.scale or
                                      not math.isfinite(t.scale) or t.scale <= 0):
                raise ExportError("tensor %d (%s): scale %r is not a positive float32"
                                  % (i, t.name, t.scale))
            self.mb.tensor(t.name, t.shape, t.dtype, scale=t.scale, zero_point=t.zero_point)

    # -- tensors ---------------------------------------------------------------------------
    def t(self, index):
        return self.g.tensors[index]

    def int8(self, op):
        return self.t(op.inputs[0]).dtype == "int8"

    def quant(self, index):
        t = self.t(index)
        return t.scale, t.zero_point

    def const(self, name, data, dtype, **quant):
        shape = np.shape(data) or (1,)
        return self.mb.tensor(name, shape, dtype, data=data, **quant)

    def like(self, index, name, shape):
        """A new activation tensor with the dtype and quantization of tensor `index`."""
        t = self.t(index)
        return self.mb.tensor(name, shape, t.dtype, scale=t.scale, zero_point=t.zero_point)

    # -- shared pieces ---------------------------------------------------------------------
    def fused(self, op, relu_first=True):
        """The TFLite fused activation of op's clamp (float: its `act`). Where several give
        the same clamp (a ReLU after which the zero point is -128 clamps nothing), the
        first of RELU, RELU6, NONE (NONE first for `relu_first` False), as TFLite's
        converter writes convolutions and pools; the arithmetic is the same."""
        if not self.int8(op):
            return int(op.params.get("act", fp.ACT_NONE))
        scale, zp = self.quant(op.outputs[0])
        clamp = (op.params["act_min"], op.params["act_max"])
        codes = [fp.ACT_RELU, fp.ACT_RELU6, fp.ACT_RELU_N1_TO_1]
        codes.insert(0 if not relu_first else 2, fp.ACT_NONE)
        for code in codes:
            if qp.quant_activation_range(code, scale, zp) == clamp:
                return code
        raise _Fail("clamp [%d, %d] is none of TFLite's fused activations" % clamp)

    def same_quant(self, op):
        if self.int8(op) and any(self.quant(t) != self.quant(op.outputs[0])
                                 for t in op.inputs):
            raise _Fail("input and output quantization differ")

    def window(self, op, kh, kw, dh=1, dw=1, pad_value=None, same_first=True):
        """(TFLite padding code, the op's input tensor): SAME or VALID where the graph's
        padding is TFLite's (the first of them that is, where both are), else VALID after
        an explicit PAD/PADV2 of `pad_value` (None: refused)."""
        x, p = op.inputs[0], op.params
        n, ih, iw, c = self.t(x).shape
        _n, oh, ow, _c = self.t(op.outputs[0]).shape
        sh, sw = p["stride_h"], p["stride_w"]
        for code, same in ((0, True), (1, False))[::1 if same_first else -1]:
            sizes = (geometry.out_size(ih, kh, sh, dh, same),
                     geometry.out_size(iw, kw, sw, dw, same))
            pads = (geometry.pad_before(ih, kh, sh, dh, oh),
                    geometry.pad_before(iw, kw, sw, dw, ow)) if same else (0, 0)
            if sizes == (oh, ow) and pads == (p["pad_top"], p["pad_left"]):
                return code, x
        if pad_value is None:
            raise _Fail("padding %d, %d is not TFLite's SAME or VALID and cannot be made "
                        "explicit for this op" % (p["pad_top"], p["pad_left"]))
        top, left = p["pad_top"], p["pad_left"]
        bottom = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - ih - top)
        right = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - iw - left)
        shape = (n, ih + top + bottom, iw + left + right, c)
        if (geometry.out_size(shape[1], kh, sh, dh, False),
                geometry.out_size(shape[2], kw, sw, dw, False)) != (oh, ow):
            raise _Fail("padding %d, %d gives no VALID window of the output size" % (top,
                                                                                    left))
        name = self.t(x).name + "/padded"
        padded = self.like(x, name, shape)
        pads = self.const(name + "/paddings", [[0, 0], [top, bottom], [left, right], [0, 0]],
                          "int32")
        self.pad_op(x, padded, pads, pad_value)
        return 1, padded

    def pad_op(self, x, y, pads, value):
        """PAD (the value is the zero point, or 0.0) or PADV2 (any other value)."""
        t = self.t(x)
        if value == (t.zero_point if t.dtype == "int8" else 0.0):
            self.mb.op("PAD", [x, pads], [y])
            return
        if t.dtype == "int8":
            cv = self.const(t.name + "/pad_value", [value], "int8", scale=t.scale,
                            zero_point=t.zero_point)
        else:
            cv = self.const(t.name + "/pad_value", [value], "float32")
        self.mb.op("PADV2", [x, pads, cv], [y])

    # -- one method per graph op -----------------------------------------------------------
    def weighted(self, op):
        kind, p = op.op, op.params
        w, bias = op.consts["w"], op.consts["bias"]
        axis = 3 if kind == "depthwise_conv2d" else 0
        oc = w.shape[axis]
        name = self.t(op.outputs[0]).name
        if self.int8(op):
            (in_scale, in_zp), (out_scale, out_zp) = (self.quant(op.inputs[0]),
                                                      self.quant(op.outputs[0]))
            _check(op, "in_zp", in_zp)
            _check(op, "out_zp", out_zp)
            scales = [_weight_scale(in_scale, out_scale, m, s) for m, s in
                      zip(op.consts["mult"].tolist(), op.consts["shift"].tolist())]
            if None in scales:
                raise _Fail("output channel %d: its multiplier and shift come from no "
                            "float32 weight scale" % scales.index(None))
            tw = self.const(name + "/weights", w, "int8", scale=scales, zero_point=[0] * oc,
                            quantized_dimension=axis)
            tb = self.const(name + "/bias", bias, "int32",
                            scale=[_f32(in_scale * s) for s in scales], zero_point=[0] * oc)
        else:
            tw = self.const(name + "/weights", w, "float32")
            tb = self.const(name + "/bias", bias, "float32")
        act = self.fused(op)
        if kind == "fully_connected":
            self.mb.op("FULLY_CONNECTED", [self.flat(op.inputs[0], w.shape[1]), tw, tb],
                       op.outputs, "FullyConnectedOptions", FusedActivationFunction=act)
            return
        kh, kw = w.shape[1], w.shape[2]
        dh, dw = p["dil_h"], p["dil_w"]
        zero = self.quant(op.inputs[0])[1] if self.int8(op) else 0.0
        padding, x = self.window(op, kh, kw, dh, dw, zero)
        common = dict(Padding=padding, StrideH=p["stride_h"], StrideW=p["stride_w"],
                      DilationHFactor=dh, DilationWFactor=dw, FusedActivationFunction=act)
        if kind == "conv2d":
            self.mb.op("CONV_2D", [x, tw, tb], op.outputs, "Conv2DOptions", **common)
        else:
            self.mb.op("DEPTHWISE_CONV_2D", [x, tw, tb], op.outputs,
                       "DepthwiseConv2DOptions", DepthMultiplier=p["depth_mult"], **common)

    def pool(self, op):
        p = op.params
        self.same_quant(op)
        lowest = -128 if self.int8(op) else _FLOAT_LOWEST
        padding, x = self.window(op, p["kh"], p["kw"],
                                 pad_value=lowest if op.op == "max_pool2d" else None,
                                 same_first=False)
        self.mb.op("MAX_POOL_2D" if op.op == "max_pool2d" else "AVERAGE_POOL_2D", [x],
                   op.outputs, "Pool2DOptions", Padding=padding, StrideH=p["stride_h"],
                   StrideW=p["stride_w"], FilterHeight=p["kh"], FilterWidth=p["kw"],
                   FusedActivationFunction=self.fused(op, relu_first=False))

    def clamp(self, op):
        self.same_quant(op)
        code = self.fused(op)
        if code == fp.ACT_NONE:
            raise _Fail("a clamp that clamps nothing has no TFLite op")
        self.mb.op(_CLAMP_OPS[code], op.inputs, op.outputs)

    def mean(self, op):
        p = op.params
        shape = self.t(op.inputs[0]).shape
        axes = _reduced_axes(shape, p["outer"], p["reduce"], p["inner"])
        if self.int8(op):
            (in_scale, in_zp), (out_scale, out_zp) = (self.quant(op.inputs[0]),
                                                      self.quant(op.outputs[0]))
            _check(op, "in_zp", in_zp)
            _check(op, "out_zp", out_zp)
            mult, shift = qp.mean_params(in_scale, out_scale, p["reduce"])
            _check(op, "mult", mult)
            _check(op, "shift", shift)
        ta = self.const(self.t(op.outputs[0]).name + "/axes", axes, "int32")
        keep = len(self.t(op.outputs[0]).shape) == len(shape)
        self.mb.op("MEAN", [op.inputs[0], ta], op.outputs, "ReducerOptions", KeepDims=keep)

    def softmax(self, op):
        beta = 1.0
        if self.int8(op):
            if self.quant(op.outputs[0]) != (1.0 / 256, -128):
                raise _Fail("int8 output must have scale 1/256 and zero point -128")
            m, ls, dmin = qp.softmax_params(beta, self.quant(op.inputs[0])[0])
            for name, want in (("in_mult", m), ("in_left_shift", ls), ("diff_min", dmin)):
                _check(op, name, want)
        else:
            beta = float(op.params.get("beta", 1.0))
        self.mb.op("SOFTMAX", op.inputs, op.outputs, "SoftmaxOptions", Beta=beta)

    def simple(self, op):
        """logistic, tanh, quantize, dequantize, requantize: their parameters follow from
        the tensors' quantization alone."""
        kind = op.op
        if kind in ("logistic", "tanh") and self.int8(op):
            try:
                params = qp.sigmoid_params(kind, self.quant(op.inputs[0]),
                                           self.quant(op.outputs[0]))
            except ValueError as e:
                raise _Fail(str(e)) from None
            for name, value in params.items():
                _check(op, name, value)
        elif kind in ("quantize", "dequantize"):
            scale, zp = self.quant(op.outputs[0] if kind == "quantize" else op.inputs[0])
            _check(op, "scale", scale)
            _check(op, "zp", zp)
        elif kind == "requantize":
            (in_scale, in_zp), (out_scale, out_zp) = (self.quant(op.inputs[0]),
                                                      self.quant(op.outputs[0]))
            mult, shift = qp.requantize_params(in_scale, out_scale)
            for name, value in (("in_zp", in_zp), ("out_zp", out_zp), ("mult", mult),
                                ("shift", shift)):
                _check(op, name, value)
        self.mb.op(_SIMPLE[kind], op.inputs, op.outputs)

    def binary(self, op):
        if len(op.inputs) != 2:
            raise _Fail("needs two inputs")
        if self.int8(op):
            (a_scale, a_zp), (b_scale, b_zp) = (self.quant(t) for t in op.inputs)
            out_scale, out_zp = self.quant(op.outputs[0])
            want = {"a_zp": a_zp, "b_zp": b_zp, "out_zp": out_zp}
            if op.op == "add":
                names = ("left_shift", "a_mult", "a_shift", "b_mult", "b_shift", "out_mult",
                         "out_shift")
                want.update(zip(names, qp.add_params(a_scale, b_scale, out_scale)))
            else:
                want["mult"], want["shift"] = qp.mul_params(a_scale, b_scale, out_scale)
            for name, value in want.items():
                _check(op, name, value)
        options = "AddOptions" if op.op == "add" else "MulOptions"
        self.mb.op(op.op.upper(), op.inputs, op.outputs, options,
                   FusedActivationFunction=self.fused(op))

    def batch_matmul(self, op):
        """BATCH_MATMUL of two activations, each RESHAPEd to the [batches or 1, rows, cols]
        its matrices are stored as, the [batches, m, n] result RESHAPEd to the output's
        shape."""
        p = op.params
        if len(op.inputs) != 2:
            raise _Fail("a constant operand is not written (the graph keeps no scale of it)")
        if self.int8(op):
            (a_scale, a_zp), (b_scale, b_zp) = (self.quant(t) for t in op.inputs)
            out_scale, out_zp = self.quant(op.outputs[0])
            mult, shift = arith_params.batch_matmul_params(a_scale, b_scale, out_scale)
            for name, value in (("a_zp", a_zp), ("b_zp", b_zp), ("out_zp", out_zp),
                                ("mult", mult), ("shift", shift)):
                _check(op, name, value)
        m, k, n = p["m"], p["k"], p["n"]
        a = (p["batches"] if p["a_step"] else 1,) + ((k, m) if p["adj_x"] else (m, k))
        b = (p["batches"] if p["b_step"] else 1,) + ((n, k) if p["adj_y"] else (k, n))
        ins = [self.shaped(x, shape) for x, shape in zip(op.inputs, (a, b))]
        y = op.outputs[0]
        out = (p["batches"], m, n)
        o = y if self.t(y).shape == out else self.like(y, self.t(y).name + "/bmm", out)
        self.mb.op("BATCH_MATMUL", ins, [o], "BatchMatMulOptions", AdjX=bool(p["adj_x"]),
                   AdjY=bool(p["adj_y"]))
        if o != y:
            self.reshape(o, y, self.t(y).shape)

    def shaped(self, x, shape):
        """Tensor x, or a RESHAPE of it to `shape` (one per tensor and shape)."""
        if self.t(x).shape == tuple(shape):
            return x
        key = (x, tuple(shape))
        if key not in self.reshaped:
            name = "%s/%s" % (self.t(x).name, "x".join(str(d) for d in shape))
            self.reshaped[key] = self.reshape(x, self.like(x, name, shape), shape)
        return self.reshaped[key]

    def concat(self, op):
        """CONCATENATION along the axis that (outer, inner_sizes) names; inputs of other
        shapes (flattened feature maps) are joined as [outer, inner] rows by RESHAPEs."""
        self.same_quant(op)
        outer, inner = op.params["outer"], op.params["inner_sizes"]
        y = op.outputs[0]
        shapes = [self.t(i).shape for i in op.inputs]
        axis = _concat_axis(self.t(y).shape, shapes, outer, inner)
        ins, out = op.inputs, y
        if axis is None:
            if sum(inner) * outer != _prod(self.t(y).shape):
                raise _Fail("outer %d, inner sizes %s do not fill the output %s"
                            % (outer, inner, self.t(y).shape))
            ins = [self.reshape(x, self.like(x, self.t(x).name + "/rows", (outer, n)),
                                (outer, n)) for x, n in zip(ins, inner)]
            axis, rows = 1, (outer, sum(inner))
            if self.t(y).shape != rows:
                out = self.like(y, self.t(y).name + "/rows", rows)
        self.mb.op("CONCATENATION", ins, [out], "ConcatenationOptions", Axis=axis,
                   FusedActivationFunction=0)
        if out != y:
            self.reshape(out, y, self.t(y).shape)

    def pad(self, op):
        self.same_quant(op)
        x = op.inputs[0]
        rank = len(self.t(x).shape)
        before, after = op.params["before"], op.params["after"]
        if any(before[:4 - rank]) or any(after[:4 - rank]):
            raise _Fail("pads a dimension the %d-D input does not have" % rank)
        pads = self.const(self.t(op.outputs[0]).name + "/paddings",
                          [[b, a] for b, a in zip(before[4 - rank:], after[4 - rank:])],
                          "int32")
        self.pad_op(x, op.outputs[0], pads, op.params["value"])

    def copy(self, op):
        self.same_quant(op)
        self.reshape(op.inputs[0], op.outputs[0], self.t(op.outputs[0]).shape)

    def flat(self, x, features):
        """Tensor `x` as [batches, features]: itself when 2-D, else a RESHAPE of it (the
        converter's form before a fully connected layer; the data does not move)."""
        shape = self.t(x).shape
        if len(shape) == 2:
            return x
        flat = (_prod(shape) // features, features)
        return self.reshape(x, self.like(x, self.t(x).name + "/flat", flat), flat)

    def reshape(self, x, y, shape):
        """RESHAPE of tensor x into y (both writer tensor indices); returns y."""
        ts = self.const(self.mb.tensors[y]["name"] + "/shape", list(shape), "int32")
        self.mb.op("RESHAPE", [x, ts], [y], "ReshapeOptions", NewShape=list(shape))
        return y

    def output(self, tid, shape):
        """The subgraph output of graph output `tid`: a RESHAPE where the graph gives the
        output a shape of its own (a flattened feature map)."""
        if tuple(shape) == self.t(tid).shape:
            return tid
        return self.reshape(tid, self.like(tid, self.t(tid).name + "/output", shape), shape)


_METHODS = {
    "conv2d": _Writer.weighted, "depthwise_conv2d": _Writer.weighted,
    "fully_connected": _Writer.weighted, "max_pool2d": _Writer.pool,
    "avg_pool2d": _Writer.pool, "clamp": _Writer.clamp, "mean": _Writer.mean,
    "softmax": _Writer.softmax, "add": _Writer.binary, "mul": _Writer.binary,
    "concat": _Writer.concat, "pad": _Writer.pad, "copy": _Writer.copy,
    "batch_matmul": _Writer.batch_matmul,
}
_METHODS.update({kind: _Writer.simple for kind in _SIMPLE})
SUPPORTED = tuple(sorted(_METHODS))


def _prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _reduced_axes(shape, outer, reduce, inner):
    """The contiguous axes of `shape` a mean over (outer, reduce, inner) reduces (leading
    and trailing axes of size 1 left out)."""
    for i in range(len(shape)):
        for j in range(len(shape) - 1, i - 1, -1):
            if (_prod(shape[:i]), _prod(shape[i:j + 1]), _prod(shape[j + 1:])) == \
                    (outer, reduce, inner) and shape[i] > 1 and shape[j] > 1:
                return list(range(i, j + 1))
    raise _Fail("outer %d, reduce %d, inner %d match no axes of %s" % (outer, reduce, inner,
                                                                      shape))


def _concat_axis(out_shape, shapes, outer, inner_sizes):
    """The axis along which `shapes` join into `out_shape` as (outer, inner_sizes) says,
    or None."""
    for axis in range(len(out_shape)):
        if _prod(out_shape[:axis]) == outer and all(
                len(s) == len(out_shape) and _prod(s[axis:]) == n and
                s[:axis] == out_shape[:axis] and s[axis + 1:] == out_shape[axis + 1:]
                for s, n in zip(shapes, inner_sizes)):
            return axis
    return None


def tflite_bytes(graph, description=None):
    """The bytes of a TFLite model computing `graph`, with the graph's inputs and outputs
    in order. Raises ExportError naming every op that has no faithful TFLite form."""
    w = _Writer(graph)
    errors = []
    for i, op in enumerate(graph.ops):
        method = _METHODS.get(op.op)
        if method is None:
            errors.append("op %d (%s): no TFLite mapping; the .tflite writer handles %s"
                          % (i, op.op, ", ".join(SUPPORTED)))
            continue
        try:
            method(w, op)
        except (_Fail, KeyError) as e:
            what = "missing parameter %s" % e if isinstance(e, KeyError) else str(e)
            errors.append("op %d (%s): %s" % (i, op.op, what))
    if errors:
        raise ExportError("cannot write .tflite: " + "; ".join(errors))
    outputs = [w.output(tid, shape) for tid, shape in graph.outputs]
    if description is None:
        meta = graph.metadata
        description = "burn export: %s %s" % (meta.get("name") or meta.get("model", "model"),
                                              meta.get("dtype", ""))
    return w.mb.finish([tid for tid, _shape in graph.inputs], outputs,
                       description.strip())


def _check_reads(path):
    from ..importers.errors import TFLiteImportError
    from ..importers.tflite_read import read_tflite

    with open(path, "rb") as f:
        data = f.read()
    try:
        read_tflite(data)
    except TFLiteImportError as e:
        raise ExportError("the written .tflite does not read back, so it was not kept: %s"
                          % e) from e


def write_tflite(graph, path):
    """Write `graph` as a `.tflite` file at `path` (atomically, read back before it takes
    the name); returns the bytes written."""
    data = tflite_bytes(graph)
    write_bytes_atomic(path, data, check=_check_reads)
    return data


def export_tflite(model, path, calibration=None, dtype="int8", method="minmax",
                  percentile=99.99, io="int8", max_samples=None, sample_shape=None,
                  metadata=None, progress=None):
    """Write `model` to the `.tflite` file `path` (atomically): int8 after post-training
    quantization with `calibration` (as `quantize`), or float32 (as `to_float_graph`).
    Returns the Graph written; its `.bst` twin (`write_bst`) gives the same outputs."""
    from . import DTYPES, quantize, to_float_graph

    if dtype not in DTYPES:
        raise ValueError("dtype must be one of %s, got %r" % (DTYPES, dtype))
    if dtype == "int8":
        if calibration is None:
            raise ValueError("int8 export needs calibration samples")
        graph = quantize(model, calibration, method, percentile, io, max_samples, tests=0,
                         metadata=metadata, progress=progress)
    else:
        graph = to_float_graph(model, calibration, sample_shape, tests=0, metadata=metadata)
    data = write_tflite(graph, path)
    if progress is not None:
        progress("wrote %s (%d bytes)" % (path, len(data)))
    return graph

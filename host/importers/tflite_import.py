"""TFLite -> `.bst` graph: `import_tflite(bytes)` returns a `burn.host.bst_writer.Graph`.

int8 models keep TFLite's quantization; the requantization multipliers, shifts and clamps
are computed here exactly as TFLM's Prepare() computes them (`burn.graph.fixedpoint`).
float32 models keep float weights. Reshape-like ops are folded away (they only rename a
buffer); where the consumer needs the new shape (a window, a pad, a softmax row) the buffer is
copied into a tensor of that shape instead, which the arena planner lays over the original.
Ops the runtime cannot run are all reported at once, each with its node index.

Hostile files: everything is checked before the arena is planned, and every failure is one
`TFLiteImportError` line naming the node and the problem. Reference vectors for the file's
self-test come from the TFLM interpreter, run in a child process (`tflm_child`).
"""

import math

import numpy as np

import burn
from burn.graph import div as graph_div
from burn.graph import fixedpoint as fp
from burn.graph import geometry, logic, unary
from burn.graph import quant_params as qp
from burn.graph.ops import OPS
from burn.host.arena_plan import plan_arena
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst, runtime_tests
from burn.host.importers import (
    MAX_TESTS,
    arith_params,
    sigmoid16,
    tflite_lstm,
    tflite_move,
    unary_tables,
)
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite_batch_space import convert as convert_batch_space
from burn.host.importers.tflite_cast import CastError
from burn.host.importers.tflite_cast import convert as convert_cast
from burn.host.importers.tflite_cumsum import convert as convert_cumsum
from burn.host.importers.tflite_gather import GatherError, is_runtime_gather
from burn.host.importers.tflite_gather import convert as convert_gather
from burn.host.importers.tflite_luts import softmax_luts
from burn.host.importers.tflite_prune import prune
from burn.host.importers.tflite_read import TfOp, read_tflite, unreadable_tensors
from burn.host.importers.tflite_update_slice import convert as convert_update_slice
from burn.host.importers.tflm_child import TFLMError, run_tflm

# the TFLite ops of burn.graph.ops: the copy's are folded away (or become copies)
SUPPORTED = tuple(sorted({name for op in OPS for name in op[2].split()}))
_FOLDED = tuple(name for op in OPS if op[0] == "copy" for name in op[2].split())
_CLAMPS = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
# Ops whose graph tensors must carry the TFLite shape (the .bst kernels read it).
_SHAPED = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D", "PAD", "PADV2",
           "SOFTMAX", "TRANSPOSE_CONV", "LOG_SOFTMAX", "RESIZE_BILINEAR",
           "RESIZE_NEAREST_NEIGHBOR", "L2_POOL_2D")
# (required inputs, outputs) of each op; omitted inputs (-1) may follow the required ones.
_ARITY = {"CONV_2D": 2, "DEPTHWISE_CONV_2D": 2, "FULLY_CONNECTED": 2, "ADD": 2, "MUL": 2,
          "MEAN": 2, "PAD": 2, "PADV2": 2, "TRANSPOSE_CONV": 3, "PRELU": 2, "SVDF": 3,
          "TRANSPOSE": 2, "SLICE": 3, "STRIDED_SLICE": 4, "SPLIT": 2, "SPLIT_V": 3,
          "GATHER": 2, "MIRROR_PAD": 2, "SUM": 2, "REDUCE_MAX": 2, "REDUCE_MIN": 2,
          "RESIZE_BILINEAR": 2, "RESIZE_NEAREST_NEIGHBOR": 2, "ARG_MAX": 2, "ARG_MIN": 2,
          "BATCH_MATMUL": 2,
          "SUB": 2, "SQUARED_DIFFERENCE": 2, "MAXIMUM": 2, "MINIMUM": 2,
          "EQUAL": 2, "NOT_EQUAL": 2, "LESS": 2, "LESS_EQUAL": 2, "GREATER": 2,
          "GREATER_EQUAL": 2, "SELECT_V2": 3, "SELECT": 3, "LOGICAL_AND": 2, "LOGICAL_OR": 2,
          "REVERSE_V2": 2, "BROADCAST_TO": 2, "GATHER_ND": 2, "SPACE_TO_BATCH_ND": 3,
          "BATCH_TO_SPACE_ND": 3, "ADD_N": 2, "REDUCE_ALL": 2, "FILL": 2, "DIV": 2,
          "FLOOR_DIV": 2, "FLOOR_MOD": 2, "DYNAMIC_UPDATE_SLICE": 3, "CUMSUM": 2,
          "EMBEDDING_LOOKUP": 2}
# the ops that read BOOL inputs (held as int8 0/1)
_BOOL_OPS = ("SELECT_V2", "SELECT", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT", "EQUAL",
             "NOT_EQUAL", "CAST", "REDUCE_ALL")
# ops with one output or more (the others have exactly one)
_OUTPUTS = ("SPLIT", "SPLIT_V", "UNPACK")
MAX_OPS = 1024         # far beyond any microcontroller model; keeps planning quick
MAX_ARENA = 64 << 20   # burn.load's default arena limit on the host
_MAX_DIM = 1 << 24     # the largest dimension or window parameter a .bst may hold
_INT32 = (-(1 << 31), (1 << 31) - 1)
# the value range of each quantized activation type
_RANGE = {np.dtype(np.int8): (-128, 127), np.dtype(np.int16): (-32768, 32767)}
# the TFLite ops with int16 activations that burn runs (int16x8: int8 weights)
_INT16_OPS = ("QUANTIZE", "DEQUANTIZE", "FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D",
              "ADD", "MUL", "AVERAGE_POOL_2D", "MAX_POOL_2D", "CONCATENATION", "SOFTMAX",
              "LOGISTIC", "TANH", "CAST")


def _short(name):
    """The first of the names a converter joins with ';' (the model file keeps it in RAM)."""
    return name.split(";")[0][-48:]


class _Fail(ValueError):
    """An op the importer cannot convert."""


class _Converter:
    def __init__(self, tf, alias):
        self.tf = tf
        self.alias = alias  # reshape output -> the tensor it renames
        self.tensors = []
        self.index = {}   # TFLite tensor index -> graph tensor index
        self.copies = {}  # reshape output -> graph tensor of its own shape
        self.ops = []
        self.shaped = False  # does the op being converted need its inputs' own shapes?

    # -- tensors --------------------------------------------------------------------------
    def act(self, t):
        """The graph tensor of activation t (made on first use)."""
        if t in self.alias:
            src = self.alias[t]
            if not self.shaped or self.shape(t) == self.shape(src):
                return self.act(src)
            if t not in self.copies:
                x = self.act(src)
                self.copies[t] = self._new(t)
                self.ops.append(GraphOp("copy", [x], [self.copies[t]]))
            return self.copies[t]
        if t not in self.index:
            self.index[t] = self._new(t)
        return self.index[t]

    def _new(self, t):
        tt = self.tf.tensors[t]
        if tt.data is not None:
            raise _Fail("constant tensor %d (%s) used as an activation" % (t, tt.name))
        if tt.dtype in (np.int8, np.int16):
            scale, zp = self.quant(t)
            g = GraphTensor(_short(tt.name), tt.shape, tt.dtype.name, scale, zp)
        elif tt.dtype == np.bool_:  # int8 0/1 (docs/import.md)
            g = GraphTensor(_short(tt.name), tt.shape, "int8", 1.0, 0, is_bool=True)
        elif tt.dtype in (np.float32, np.int32):
            g = GraphTensor(_short(tt.name), tt.shape, tt.dtype.name)
        else:
            raise _Fail("tensor %d (%s) is %s; activations must be int8, int16, int32, float32 "
                        "or bool"
                        % (t, tt.name, tt.dtype.name))
        self.tensors.append(g)
        return len(self.tensors) - 1

    def quant(self, t):
        tt = self.tf.tensors[t]
        if len(tt.scales) != 1 or len(tt.zero_points) != 1:
            raise _Fail("tensor %d (%s) needs one scale and zero point" % (t, tt.name))
        scale, zp = tt.scales[0], tt.zero_points[0]
        lo, hi = _RANGE.get(tt.dtype, _RANGE[np.dtype(np.int8)])
        if not _sane_scale(scale) or not lo <= zp <= hi:
            raise _Fail("tensor %d (%s): bad quantization %r, %r" % (t, tt.name, scale, zp))
        return scale, zp

    def const(self, t, what):
        if t < 0 or self.tf.tensors[t].data is None:
            raise _Fail(what + " must be a constant tensor")
        return self.tf.tensors[t].data

    def shape(self, t):
        return self.tf.tensors[t].shape

    def shape4(self, t):
        """The NHWC shape of tensor t, which must be 4-D."""
        shape = self.shape(t)
        if len(shape) != 4:
            raise _Fail("tensor %d must be 4-D (NHWC), got shape %s" % (t, shape))
        return shape

    # -- helpers --------------------------------------------------------------------------
    def emit(self, op, node, consts=None, params=None, ins=None, outs=None):
        inputs = [self.act(t) for t in (ins if ins is not None else node.inputs[:1])]
        outputs = [self.act(t) for t in (outs if outs is not None else node.outputs)]
        self.ops.append(GraphOp(op, inputs, outputs, consts, params))

    def is_int8(self, node):
        return self.tf.tensors[node.inputs[0]].dtype == np.int8

    def fused(self, node):
        code = node.options["FusedActivationFunction"] if node.options else 0
        if code not in (0, 1, 2, 3):  # NONE, RELU, RELU_N1_TO_1, RELU6: burn's codes too
            raise _Fail("fused activation %d not supported" % code)
        return code

    def is_int16(self, node):
        return self.tf.tensors[node.inputs[0]].dtype == np.int16

    def out_quant_params(self, node, code):
        out_scale, out_zp = self.quant(node.outputs[0])
        lo, hi = qp.quant_activation_range(code, out_scale, out_zp,
                                           *_RANGE[self.tf.tensors[node.outputs[0]].dtype])
        return {"out_zp": out_zp, "act_min": lo, "act_max": hi}

    def window(self, node, kh, kw, dil_h=1, dil_w=1):
        o = node.options
        if o is None:
            raise _Fail("missing options")
        n, ih, iw, _c = self.shape4(node.inputs[0])
        n2, oh, ow, _c2 = self.shape4(node.outputs[0])
        if n != n2:
            raise _Fail("input batch %d != output batch %d" % (n, n2))
        if o["Padding"] not in (0, 1):
            raise _Fail("unknown padding %d" % o["Padding"])
        same = o["Padding"] == 0
        sh, sw = o["StrideH"], o["StrideW"]
        for what, a, b in (("strides", sh, sw), ("dilation", dil_h, dil_w), ("window", kh, kw)):
            if not (1 <= a <= _MAX_DIM and 1 <= b <= _MAX_DIM):
                raise _Fail("bad %s %d, %d" % (what, a, b))
        pads = o.get("Pads")
        if pads is not None:
            return _explicit_window((ih, iw), (oh, ow), (kh, kw), (sh, sw), (dil_h, dil_w),
                                    pads)
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
        mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
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
        if self.is_int16(node):
            self.weighted16(kind, node, w, params, oc, code)
            return
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

    def weighted16(self, kind, node, w, params, oc, code):
        """An int16x8 conv or fully connected (TFLM's rules): int8 weights, an int32 or int64
        bias (int64 given as int32 values, `wide`: TFLM's int64 arithmetic), no bias taking
        the options' quantized_bias_type."""
        if w.dtype != np.int8:
            raise _Fail("Input type: INT16 with filter type: %s not supported (TFLM)"
                        % w.dtype.name.upper())
        if any(self.tf.tensors[node.inputs[1]].zero_points):
            raise _Fail("weights must be symmetric (zero point 0)")
        if self.tf.tensors[node.outputs[0]].dtype != np.int16:
            raise _Fail("an int16 input needs an int16 output")
        wide = 1
        bias = np.zeros(oc, np.int32)
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            b = self.const(node.inputs[2], "bias").reshape(-1)
            if b.size != oc or b.dtype not in (np.int32, np.int64):
                raise _Fail("Bias type %s not supported: an int16 op takes %d int32 or int64 "
                            "values (TFLM)" % (b.dtype.name.upper(), oc))
            if b.dtype == np.int64 and ((b < _INT32[0]) | (b > _INT32[1])).any():
                raise _Fail("int64 bias values beyond int32 are not supported")
            wide = int(b.dtype == np.int64)
            if kind == "depthwise_conv2d" and not wide:
                raise _Fail("an int16 depthwise convolution's bias must be int64 (TFLM reads "
                            "it as int64)")
            bias = b.astype(np.int32)
        elif node.options is not None and node.options.get("QuantizedBiasType") == 2:  # INT32
            wide = 0
        mult, shift = self.requant(node, node.inputs[1], oc)
        (_s, in_zp), (_s2, out_zp) = self.quant(node.inputs[0]), self.quant(node.outputs[0])
        if kind != "fully_connected" and (in_zp or out_zp):
            raise _Fail("int16 convolution needs zero points 0 (TFLM's kernel has none)")
        if wide and (shift > 7).any():
            raise _Fail("requantization shift %d: TFLM's int64 arithmetic takes at most 7"
                        % shift.max())
        p = self.out_quant_params(node, code)
        params.update({"act_min": p["act_min"], "act_max": p["act_max"]})
        if kind != "depthwise_conv2d":  # TFLM's int16 depthwise is always int64
            params["wide"] = wide
        if kind == "fully_connected":
            params.update({"in_zp": in_zp, "out_zp": out_zp})
        self.emit(kind, node, {"w": w, "bias": bias, "mult": mult, "shift": shift}, params)


def _explicit_window(ins, outs, ks, strides, dils, pads):
    """Window params of explicit padding (top, left, bottom, right), which TFLite files do
    not have but ONNX ones do: each pad shorter than the window, the output size checked."""
    params = {"stride_h": strides[0], "stride_w": strides[1], "pad_top": pads[0],
              "pad_left": pads[1]}
    for i in range(2):
        eff = (ks[i] - 1) * dils[i] + 1
        before, after = pads[i], pads[i + 2]
        if not (0 <= before < eff and 0 <= after < eff):
            raise _Fail("padding %s: each pad must be shorter than the window" % (list(pads),))
        want = (ins[i] + before + after - eff) // strides[i] + 1
        if want != outs[i]:
            raise _Fail("output %dx%d, expected %d along axis %d" % (outs[0], outs[1], want,
                                                                     i))
    return params


# -- one function per TFLite op ------------------------------------------------------------

def _dilation(node):
    o = node.options
    return (o["DilationHFactor"], o["DilationWFactor"]) if o else (1, 1)


def _conv(c, node):
    w = c.const(node.inputs[1], "filter")
    dh, dw = _dilation(node)
    ic = c.shape4(node.inputs[0])[3]
    if w.ndim != 4 or w.shape[3] < 1 or ic % w.shape[3] or w.shape[0] != \
            c.shape4(node.outputs[0])[3]:
        raise _Fail("filter %s does not fit %d input channels" % (w.shape, ic))
    params = c.window(node, w.shape[1], w.shape[2], dh, dw)
    params.update({"groups": ic // w.shape[3], "dil_h": dh, "dil_w": dw})
    c.weighted("conv2d", node, w, params)


def _depthwise(c, node):
    w = c.const(node.inputs[1], "filter")
    dh, dw = _dilation(node)
    ic = c.shape4(node.inputs[0])[3]
    if w.ndim != 4 or w.shape[0] != 1 or w.shape[3] % ic or w.shape[3] != \
            c.shape4(node.outputs[0])[3]:
        raise _Fail("filter %s does not fit %d input channels" % (w.shape, ic))
    params = c.window(node, w.shape[1], w.shape[2], dh, dw)
    params.update({"depth_mult": w.shape[3] // ic, "dil_h": dh, "dil_w": dw})
    c.weighted("depthwise_conv2d", node, w, params)


def transpose_pad(out_size, k, stride, same):
    """TFLM's padding of a TRANSPOSE_CONV axis: that of a convolution over the output (its
    ComputePaddingHeightWidth with the output size as the input size), without the odd
    remainder, which TFLM drops."""
    conv_out = geometry.out_size(out_size, k, stride, 1, same)
    return max((conv_out - 1) * stride + k - out_size, 0) // 2


def _transpose_conv(c, node):
    """TRANSPOSE_CONV: inputs (output shape, filter, input[, bias])."""
    o = node.options
    if o is None:
        raise _Fail("missing options")
    shape_t, w_t, x_t = node.inputs[:3]
    n, ih, iw, ic = c.shape4(x_t)
    out = c.shape4(node.outputs[0])
    if [int(v) for v in np.asarray(c.const(shape_t, "output shape")).reshape(-1)] != \
            list(out):
        raise _Fail("output shape input does not match the output tensor %s" % (out,))
    w = c.const(w_t, "filter")
    if w.ndim != 4 or w.shape[0] != out[3] or w.shape[3] != ic or out[0] != n:
        raise _Fail("filter %s does not fit input %s and output %s" % (w.shape, (n, ih, iw, ic),
                                                                       out))
    if o["Padding"] not in (0, 1):
        raise _Fail("unknown padding %d" % o["Padding"])
    sh, sw = o["StrideH"], o["StrideW"]
    if not (1 <= sh <= _MAX_DIM and 1 <= sw <= _MAX_DIM):
        raise _Fail("bad strides %d, %d" % (sh, sw))
    same = o["Padding"] == 0
    params = {"stride_h": sh, "stride_w": sw,
              "pad_top": transpose_pad(out[1], w.shape[1], sh, same),
              "pad_left": transpose_pad(out[2], w.shape[2], sw, same)}
    inputs = [x_t, w_t] + node.inputs[3:4]
    c.weighted("transpose_conv2d", TfOp(node.index, node.name, inputs, node.outputs, o), w,
               params)


def _fully_connected(c, node):
    w = c.const(node.inputs[1], "weights")
    if node.options is not None and node.options["WeightsFormat"] != 0:
        raise _Fail("shuffled weights are not supported")
    if w.ndim != 2:
        raise _Fail("weights must be 2-D, got %s" % (w.shape,))
    n_in, n_out = (int(np.prod(c.shape(t), dtype=np.int64)) for t in (node.inputs[0],
                                                                        node.outputs[0]))
    if n_in % w.shape[1] or n_out != n_in // w.shape[1] * w.shape[0]:
        raise _Fail("weights %s do not fit input %s and output %s" % (
            w.shape, c.shape(node.inputs[0]), c.shape(node.outputs[0])))
    c.weighted("fully_connected", node, w, {})


def _trailing(small, big):
    """Whether `small` broadcast over `big` repeats with its own period, as the runtime's
    binary kernels read it: `small` without its leading 1s is the tail of `big` (a scalar,
    or (1, 1, 1, C) per channel against (1, H, W, C))."""
    dims = list(small)
    while dims and dims[0] == 1:
        dims.pop(0)
    return not dims or tuple(big[len(big) - len(dims):]) == tuple(dims)


def _operands(c, node):
    """(a, b): the two inputs of a binary op, the one that repeats (as the runtime's binary
    kernels read it) second."""
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
    if na != nb and not _trailing(sb, sa):
        raise _Fail("broadcast of %s over %s is not supported" % (sb, sa))
    return a, b


def _binary(c, node, kind=None):
    kind = kind or node.name.lower()
    a, b = _operands(c, node)
    code = c.fused(node)
    if not c.is_int8(node) and not c.is_int16(node):
        c.emit(kind, node, params={"act": code}, ins=[a, b])
        return
    (a_scale, a_zp), (b_scale, b_zp) = c.quant(a), c.quant(b)
    out_scale, out_zp = c.quant(node.outputs[0])
    params = c.out_quant_params(node, code)
    params.update({"a_zp": a_zp, "b_zp": b_zp})
    if c.is_int16(node) and kind == "mul" and (a_zp or b_zp or out_zp):
        raise _Fail("int16 MUL needs zero points 0 (TFLM)")
    if kind == "add":
        ls, am, ash, bm, bsh, om, osh = qp.add_params(a_scale, b_scale, out_scale,
                                                      15 if c.is_int16(node) else 20)
        params.update({"left_shift": ls, "a_mult": am, "a_shift": ash, "b_mult": bm,
                       "b_shift": bsh, "out_mult": om, "out_shift": osh})
    else:
        params["mult"], params["shift"] = qp.mul_params(a_scale, b_scale, out_scale)
    c.emit(kind, node, params=params, ins=[a, b])


def _arith(c, node):
    """SUB, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM (the optional ops of burn.graph.s8_arith)."""
    kind = node.name.lower()
    a, b = _operands(c, node)
    types = {c.tf.tensors[t].dtype for t in node.inputs[:2] + node.outputs[:1]}
    if len(types) != 1:
        raise _Fail("input and output types differ")
    code = c.fused(node)
    params = {"act": code, "swap": int(a != node.inputs[0])} if kind == "sub" else {}
    if c.is_int8(node) and kind in ("sub", "squared_difference"):
        (a_scale, a_zp), (b_scale, b_zp) = c.quant(a), c.quant(b)
        out_scale, _ = c.quant(node.outputs[0])
        params = {"swap": params["swap"]} if kind == "sub" else {}
        params.update(c.out_quant_params(node, code))
        ls, am, ash, bm, bsh, om, osh = arith_params.PARAMS[kind](a_scale, b_scale, out_scale)
        if osh > 0:
            raise _Fail("output scale %g is below (2 x the larger input scale)^2 / 2^14: "
                        "the squared differences overflow int32" % out_scale)
        params.update({"a_zp": a_zp, "b_zp": b_zp, "left_shift": ls, "a_mult": am,
                       "a_shift": ash, "b_mult": bm, "b_shift": bsh, "out_mult": om,
                       "out_shift": osh})
    c.emit(kind, node, params=params, ins=[a, b])


def _div(c, node):
    """DIV, FLOOR_DIV and FLOOR_MOD of float32 tensors and DIV of int8 ones (the optional op
    of burn.graph.div); DIV with its fused activation."""
    a, b = _operands(c, node)
    types = {c.tf.tensors[t].dtype.name for t in node.inputs[:2] + node.outputs[:1]}
    swap = int(a != node.inputs[0])
    if types == {"int8"} and node.name == "DIV":
        c.emit("div", node, ins=[a, b], params=_div_s8_params(c, node, a, b, swap))
        return
    if types != {"float32"}:
        raise _Fail("%s of %s tensors is not supported: burn's runs float32%s" % (
            node.name, "/".join(sorted(t.upper() for t in types)),
            " (and int8 DIV)" if node.name == "DIV" else ""))
    code = c.fused(node) if node.name == "DIV" else 0
    c.emit("div", node, ins=[a, b], params={
        "op": ("DIV", "FLOOR_DIV", "FLOOR_MOD").index(node.name), "swap": swap, "act": code})


def _div_s8_params(c, node, a, b, swap):
    """int8 DIV's parameters as TFLM's Prepare computes them, the first operand's scale over
    the second's times the output's (a and b may be swapped)."""
    a_zp, b_zp = c.quant(a)[1], c.quant(b)[1]
    out_scale, _ = c.quant(node.outputs[0])
    (s1, _), (s2, _) = c.quant(node.inputs[0]), c.quant(node.inputs[1])
    mult, shift = qp.div_params(s1, s2, out_scale)
    if not graph_div.SHIFT_MIN <= shift <= graph_div.SHIFT_MAX:
        raise _Fail("the output multiplier %g / (%g x %g) is outside burn's [2^%d, 2^%d)"
                    % (s1, s2, out_scale, graph_div.SHIFT_MIN - 1, graph_div.SHIFT_MAX))
    params = {"swap": swap, "a_zp": a_zp, "b_zp": b_zp, "mult": mult, "shift": shift}
    params.update(c.out_quant_params(node, c.fused(node)))
    return params


def _logic_operands(c, node, count, max_rank):
    """Check the first `count` inputs of an op of burn.graph.logic: not all constant, of
    the output's shape or repeating along its innermost dims (as the runtime reads them),
    broadcast over at most `max_rank` dims (TFLM's limit)."""
    ts, out = node.inputs[:count], c.shape(node.outputs[0])
    shapes = [tuple(c.shape(t)) for t in ts]
    if all(c.tf.tensors[t].data is not None for t in ts):
        raise _Fail("every operand is a constant")
    if len(set(shapes)) == 1 and _numel(shapes[0]) == _numel(out):
        return
    try:
        whole = np.broadcast_shapes(*shapes)
    except ValueError:
        whole = None
    if whole != tuple(out):
        raise _Fail("operands %s do not broadcast to the output %s" % (
            ", ".join(str(s) for s in shapes), tuple(out)))
    if len(out) > max_rank:
        raise _Fail("TFLM broadcasts over at most %d dims, the output has %d"
                    % (max_rank, len(out)))
    for s in shapes:
        if not _trailing(s, out):
            raise _Fail("broadcast of %s over %s is not supported (an operand must repeat "
                        "along the innermost dims)" % (s, tuple(out)))


def _emit_logic(c, kind, node, operands, params):
    """Emit `kind` with operands [(name, TFLite tensor or array)]: arrays and constant
    tensors as the op's constants of that name (a BOOL one as int8 0/1), the others as its
    inputs in order."""
    consts, ins = {}, []
    for name, t in operands:
        data = t if isinstance(t, np.ndarray) else c.tf.tensors[t].data
        if data is None:
            ins.append(t)
        else:
            consts[name] = data.reshape(-1).astype(np.int8) if data.dtype == np.bool_ else \
                data.reshape(-1)
    c.emit(kind, node, consts=consts, params=params, ins=ins)


# the comparison that holds for (b, a) where `name` holds for (a, b)
_FLIPPED = {"LESS": "GREATER", "LESS_EQUAL": "GREATER_EQUAL", "GREATER": "LESS",
            "GREATER_EQUAL": "LESS_EQUAL"}


def _compare(c, node):
    """EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL (burn.graph.logic): int8
    or float32 operands (BOOL ones too for EQUAL and NOT_EQUAL, as TFLM), one of them may be
    a constant; the BOOL output is int8 0/1. The operand that repeats goes second (the
    comparison flipped)."""
    t1, t2 = node.inputs[:2]
    types = [c.tf.tensors[t].dtype for t in (t1, t2, node.outputs[0])]
    if types[0] != types[1] or types[0] not in (np.int8, np.float32, np.bool_):
        raise _Fail("operands are %s and %s: int8 or float32 operands of one type are "
                    "supported" % (types[0].name, types[1].name))
    if types[2] != np.bool_:
        raise _Fail("the output is %s, not BOOL" % types[2].name)
    _logic_operands(c, node, 2, 4)
    a, b, name = t1, t2, node.name
    if _numel(c.shape(t1)) < _numel(c.shape(t2)):
        a, b, name = t2, t1, _FLIPPED.get(name, name)
    params = {"op": logic.OPS.index(name)}
    if types[0] == np.bool_:  # EQUAL, NOT_EQUAL (_BOOL_OPS): 0/1 scaled by one half, exactly
        params.update({p + f: v for p in "ab" for f, v in (("_zp", 0), ("_mult", 1 << 30),
                                                             ("_shift", 0))})
    elif types[0] == np.int8:
        for prefix, t in (("a", a), ("b", b)):
            scale, zp = c.quant(t)
            mult, shift = qp.quantize_multiplier(scale)
            if not scale < 1.0 or shift > 0:  # TFLM: TFLITE_CHECK, an abort
                raise _Fail("input scale %g is not below 1, which TFLM's int8 comparison "
                            "requires (QuantizeMultiplierSmallerThanOneExp)" % scale)
            params.update({prefix + "_zp": zp, prefix + "_mult": mult,
                           prefix + "_shift": shift})
    _emit_logic(c, "compare", node, [("a", a), ("b", b)], params)


def _select(c, node):
    """SELECT_V2 (burn.graph.logic): a BOOL condition, int8 or float32 values (TFLM copies
    them, whatever their quantization); any operand may be a constant. SELECT, which TFLM
    lacks, where it is SELECT_V2: operands of one shape."""
    cond, x, y = node.inputs[:3]
    types = [c.tf.tensors[t].dtype for t in (cond, x, y, node.outputs[0])]
    if types[0] != np.bool_:
        raise _Fail("the condition is %s, not BOOL" % types[0].name)
    if types[1] != types[2] or types[1] != types[3] or types[1] not in (np.int8, np.float32):
        raise _Fail("values and output are %s: int8 or float32 of one type are supported"
                    % ", ".join(t.name for t in types[1:]))
    shapes = [tuple(c.shape(t)) for t in (cond, x, y, node.outputs[0])]
    if node.name == "SELECT" and len(set(shapes)) != 1:
        raise _Fail("SELECT of shapes %s: only operands and output of one shape are "
                    "supported" % ", ".join(str(s) for s in shapes))
    _logic_operands(c, node, 3, 5)
    _emit_logic(c, "select", node, [("cond", cond), ("x", x), ("y", y)], {})


def _zeros_like(c, node):
    """ZEROS_LIKE of an int8 or float32 tensor: a `select` of its constant 0 (raw 0 in int8,
    as TFLM writes) wherever a constant false condition holds, reading the input once."""
    x, y = node.inputs[0], node.outputs[0]
    dt = c.tf.tensors[x].dtype
    if dt not in (np.int8, np.float32) or c.tf.tensors[y].dtype != dt:
        raise _Fail("ZEROS_LIKE of %s into %s: burn takes int8 and float32" % (
            dt.name.upper(), c.tf.tensors[y].dtype.name.upper()))
    if _numel(c.shape(x)) != _numel(c.shape(y)):
        raise _Fail("input %s and output %s differ in size" % (c.shape(x), c.shape(y)))
    c.emit("select", node, consts={"cond": np.zeros(1, np.int8), "y": np.zeros(1, dt)},
           params={}, ins=[x])


def _logical(c, node):
    """LOGICAL_AND, LOGICAL_OR and LOGICAL_NOT of BOOL tensors (int8 0/1), as the select
    they are: a and b is b where a, else 0; a or b is 1 where a, else b; not a is 0 where
    a, else 1."""
    count = 1 if node.name == "LOGICAL_NOT" else 2
    if any(c.tf.tensors[t].dtype != np.bool_ for t in node.inputs[:count] + node.outputs[:1]):
        raise _Fail("inputs and output must be BOOL")
    _logic_operands(c, node, count, 4)
    a, b = node.inputs[0], node.inputs[count - 1]
    zero, one = np.zeros(1, np.int8), np.ones(1, np.int8)
    x, y = {"LOGICAL_AND": (b, zero), "LOGICAL_OR": (one, b), "LOGICAL_NOT": (zero, one)}[
        node.name]
    _emit_logic(c, "select", node, [("cond", a), ("x", x), ("y", y)], {})


def _pool(c, node):
    o = node.options
    if o is None:
        raise _Fail("missing options")
    kh, kw = o["FilterHeight"], o["FilterWidth"]
    if c.shape4(node.inputs[0])[3] != c.shape4(node.outputs[0])[3]:
        raise _Fail("input and output channels differ")
    params = c.window(node, kh, kw)
    params.update({"kh": kh, "kw": kw})
    code = c.fused(node)
    if c.is_int8(node) or c.is_int16(node):
        if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
            raise _Fail("input and output quantization differ")
        p = c.out_quant_params(node, code)
        params.update({"act_min": p["act_min"], "act_max": p["act_max"]})
    else:
        params["act"] = code
    c.emit("avg_pool2d" if node.name == "AVERAGE_POOL_2D" else "max_pool2d", node,
           params=params)


def _l2_pool(c, node):
    """L2_POOL_2D (float32 only, as in TFLM): the square root of each window's mean square,
    as a `mul` of the input by itself, an `avg_pool2d`, a `unary` SQRT and, for a fused
    activation, a `clamp`; the float arithmetic is TFLM's, step by step."""
    if c.is_int8(node) or c.is_int16(node):
        raise _Fail("TFLM has no int8 or int16 L2_POOL_2D kernel (float32 only)")
    if {c.tf.tensors[t].dtype.name for t in node.inputs[:1] + node.outputs} != {"float32"}:
        raise _Fail("input and output types differ")
    if node.options is None:
        raise _Fail("missing options")
    kh, kw = node.options["FilterHeight"], node.options["FilterWidth"]
    if c.shape4(node.inputs[0])[3] != c.shape4(node.outputs[0])[3]:
        raise _Fail("input and output channels differ")
    params = dict(c.window(node, kh, kw), kh=kh, kw=kw, act=0)
    code = c.fused(node)
    x, y = c.act(node.inputs[0]), c.act(node.outputs[0])
    out_shape = c.shape(node.outputs[0])
    squares = tflite_move.like_tensor(c, x, c.shape(node.inputs[0]))
    means = tflite_move.like_tensor(c, y, out_shape)
    root = tflite_move.like_tensor(c, y, out_shape) if code else y
    c.ops += [GraphOp("mul", [x, x], [squares], params={"act": 0}),
              GraphOp("avg_pool2d", [squares], [means], params=params),
              GraphOp("unary", [means], [root], params={"fn": unary.SQRT, "alpha": 0.0})]
    if code:
        c.ops.append(GraphOp("clamp", [root], [y], params={"act": code}))


def _fold_axes(c, node):
    """The input's shape folded to [outer, reduce, mid, reduce2, inner] for a reduction over
    the axes of node.inputs[1] (TFLM resolves them: negative counts from the end, repeats
    count once): kept and reduced axes merge with their neighbours of the same kind."""
    shape = c.shape(node.inputs[0])
    if c.tf.tensors[node.inputs[1]].dtype != np.int32:
        raise _Fail("axes must be an int32 tensor")
    axes = c.const(node.inputs[1], "axes").reshape(-1).tolist()
    if any(not -len(shape) <= a < len(shape) for a in axes):
        raise _Fail("axes %s out of range for %d dims" % (axes, len(shape)))
    reduced = {int(a) % len(shape) for a in axes}
    groups = [[False, 1]]
    for i, d in enumerate(shape):
        if d != 1:
            if groups[-1][0] != (i in reduced):
                groups.append([i in reduced, 1])
            groups[-1][1] *= int(d)
    if len(groups) > 5:
        raise _Fail("axes %s: more than two separate blocks of reduced axes" % sorted(reduced))
    dims = [g[1] for g in groups] + [1] * (5 - len(groups))
    out = _numel(c.shape(node.outputs[0]))
    if out != dims[0] * dims[2] * dims[4]:
        raise _Fail("output %s does not hold input %s reduced over axes %s"
                    % (c.shape(node.outputs[0]), shape, sorted(reduced)))
    return dims


def _mean(c, node):
    """MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL. int8 MEAN and SUM over one block of
    axes are the mean kind (in every firmware); the rest is the optional reduce kind."""
    dims = _fold_axes(c, node)
    name = node.name
    # burn.graph.reduce's op codes; REDUCE_ALL of BOOL (int8 0/1) is their minimum
    op = {"SUM": 0, "MEAN": 1, "REDUCE_MAX": 2, "REDUCE_MIN": 3, "REDUCE_ALL": 3}[name]
    params = dict(zip(("outer", "reduce", "mid", "reduce2", "inner"), dims), op=op)
    if name == "REDUCE_ALL":
        if {c.tf.tensors[t].dtype for t in (node.inputs[0], node.outputs[0])} != {np.dtype(bool)}:
            raise _Fail("REDUCE_ALL takes and gives BOOL tensors")
        c.emit("reduce", node, params=dict(params, in_zp=0, out_zp=0, mult=0, shift=0))
        return
    if not c.is_int8(node):
        if c.tf.tensors[node.outputs[0]].dtype != np.float32:
            raise _Fail("input and output types differ")
        if name == "MEAN" and dims[3] == 1:
            c.emit("mean", node, params={"outer": dims[0], "reduce": dims[1],
                                         "inner": dims[2]})
        else:
            c.emit("reduce", node, params=params)
        return
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), c.quant(node.outputs[0])
    if op >= 2:
        if (in_scale, in_zp) != (out_scale, out_zp):  # TFLM's EvalMinMaxHelper
            raise _Fail("int8 %s needs the same scale and zero point in and out" % name)
        params.update({"in_zp": in_zp, "out_zp": out_zp, "mult": 0, "shift": 0})
        c.emit("reduce", node, params=params)
        return
    count = dims[1] * dims[3]
    if op == 1:
        mult, shift = qp.mean_params(in_scale, out_scale, count)
    else:
        mult, shift = qp.quantize_multiplier(in_scale / out_scale)
    q = {"in_zp": in_zp, "out_zp": out_zp, "mult": mult, "shift": shift}
    if dims[3] == 1:
        c.emit("mean", node, params=dict(q, outer=dims[0], reduce=dims[1], inner=dims[2]))
    else:
        c.emit("reduce", node, params=dict(params, op=0, **q))


def _softmax(c, node):
    beta = float(node.options["Beta"]) if node.options else 1.0
    if not math.isfinite(beta) or beta <= 0:
        raise _Fail("bad beta %r" % beta)
    if c.shape(node.inputs[0]) != c.shape(node.outputs[0]) or not c.shape(node.inputs[0]):
        raise _Fail("input and output shapes differ")
    if c.is_int16(node):
        _softmax16(c, node, beta)
        return
    if not c.is_int8(node):
        c.emit("softmax", node, params={"beta": beta})
        return
    if c.quant(node.outputs[0]) != (1.0 / 256, -128):
        raise _Fail("int8 output must have scale 1/256 and zero point -128")
    m, ls, dmin = qp.softmax_params(beta, c.quant(node.inputs[0])[0])
    c.emit("softmax", node, params={"in_mult": m, "in_left_shift": ls, "diff_min": dmin})


def _softmax16(c, node, beta):
    """TFLM's int16 softmax: zero points 0, output scale 1/32768 (within 0.1%), its two
    tables made as TFLM's Prepare makes them."""
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
        c.quant(node.outputs[0])
    if c.tf.tensors[node.outputs[0]].dtype != np.int16:
        raise _Fail("an int16 input needs an int16 output")
    if in_zp or out_zp:
        raise _Fail("int16 softmax needs zero points 0 (TFLM)")
    if abs(out_scale - 1.0 / 32768) > 0.001 / 32768:
        raise _Fail("int16 output must have scale 1/32768 (TFLM)")
    mult, shift = qp.quantize_multiplier(in_scale * beta / (10.0 / 65535.0))
    exp_lut, inv_lut = softmax_luts()
    c.emit("softmax", node, consts={"exp_lut": exp_lut, "inv_lut": inv_lut},
           params={"in_mult": mult, "in_left_shift": shift})


def _sigmoid_like(c, node):
    kind = node.name.lower()
    if c.is_int16(node):
        _sigmoid16(c, node, kind)
        return
    if not c.is_int8(node):
        c.emit(kind, node)
        return
    want = (1.0 / 256, -128) if kind == "logistic" else (1.0 / 128, 0)
    if c.quant(node.outputs[0]) != want:
        raise _Fail("int8 output must have scale %r and zero point %d" % want)
    in_scale, in_zp = c.quant(node.inputs[0])
    m, ls, radius = qp.logistic_params(in_scale) if kind == "logistic" else \
        qp.tanh_params(in_scale)
    c.emit(kind, node, params={"in_zp": in_zp, "in_mult": m, "in_left_shift": ls,
                               "range_radius": radius})


def _sigmoid16(c, node, kind):
    """TFLM's int16 LOGISTIC and TANH: zero points 0, output scale 2**-15 (TFLM's
    CheckedLog2), the input scaling of its Prepare, and the table both interpolate in."""
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
        c.quant(node.outputs[0])
    if c.tf.tensors[node.outputs[0]].dtype != np.int16:
        raise _Fail("an int16 input needs an int16 output")
    if in_zp or out_zp:
        raise _Fail("int16 %s needs zero points 0 (TFLM: input and output "
                    "params.zero_point must be 0)" % node.name)
    log2, pot = sigmoid16.checked_log2(out_scale)
    if not pot or log2 != sigmoid16.OUTPUT_SCALE_LOG2:
        raise _Fail("int16 %s output must have scale 1/32768 (TFLM: "
                    "output_scale_log2_rounded != -kOutputFractionalBits)" % node.name)
    try:
        mult, shift = sigmoid16.input_scaling(kind, in_scale)
    except ValueError as e:
        raise _Fail(str(e)) from None
    c.emit(kind, node, consts={"table": sigmoid16.sigmoid_table()},
           params={"in_mult": mult, "in_left_shift": shift})


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
        m, s = qp.requantize_params(in_scale, out_scale)
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
    pads = c.const(node.inputs[1], "paddings").reshape(-1)
    if len(shape) > 4 or pads.size != 2 * len(shape) or (pads < 0).any() or \
            (pads > _MAX_DIM).any():
        raise _Fail("paddings %s do not fit shape %s" % (pads.tolist(), shape))
    pads = [[0, 0]] * (4 - len(shape)) + pads.reshape(-1, 2).tolist()
    params = {"before": [int(p[0]) for p in pads], "after": [int(p[1]) for p in pads]}
    dims = (1,) * (4 - len(shape)) + tuple(shape)
    padded = [d + p[0] + p[1] for d, p in zip(dims, pads)]
    if padded[4 - len(shape):] != list(c.shape(node.outputs[0])):
        raise _Fail("output %s is not the padded input %s" % (c.shape(node.outputs[0]),
                                                             padded))
    if c.is_int8(node):
        if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
            raise _Fail("input and output quantization differ")
        value = c.quant(node.outputs[0])[1]
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            value = int(c.const(node.inputs[2], "pad value").reshape(-1)[0])
        if not -128 <= value <= 127:
            raise _Fail("pad value %d is not an int8" % value)
    else:
        value = 0.0
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            value = float(c.const(node.inputs[2], "pad value").reshape(-1)[0])
    params["value"] = value
    c.emit("pad", node, params=params)


def _concat(c, node):
    """CONCATENATION, and PACK (a concatenation along a new axis, no activation)."""
    shape = c.shape(node.outputs[0])
    if not shape:
        raise _Fail("output has no dimensions")
    pack = node.name == "PACK"
    axis = node.options["Axis"] % len(shape) if node.options else 0
    if pack and (node.options is None or node.options["ValuesCount"] != len(node.inputs)):
        raise _Fail("values_count does not match the %d inputs" % len(node.inputs))
    if not pack and c.fused(node):
        raise _Fail("fused activation on concatenation is not supported")
    if c.is_int8(node) or c.is_int16(node):
        q = c.quant(node.outputs[0])
        if any(c.quant(t) != q for t in node.inputs):
            raise _Fail("int8 inputs must share the output's scale and zero point")
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = [int(np.prod(c.shape(t)[axis:], dtype=np.int64)) for t in node.inputs]
    c.emit("concat", node, params={"outer": outer, "inner_sizes": inner}, ins=node.inputs)


def _unary(c, node):
    """ABS, NEG, SQRT, RSQRT, ELU, HARD_SWISH, LEAKY_RELU, and float32 EXP, LOG, SIN, COS,
    FLOOR, CEIL, ROUND: int8 as TFLM's 256 results (a `table` constant), float32 by
    burn.graph.unary's fn code."""
    src, dst = (c.tf.tensors[t] for t in (node.inputs[0], node.outputs[0]))
    if src.dtype != dst.dtype:
        raise _Fail("input and output types differ (%s, %s)" % (src.dtype.name, dst.dtype.name))
    if _numel(src.shape) != _numel(dst.shape):
        raise _Fail("input %s and output %s differ in size" % (src.shape, dst.shape))
    alpha = 0.0
    if node.name == "LEAKY_RELU" and node.options is not None:
        alpha = float(node.options["Alpha"])
        if not math.isfinite(alpha):
            raise _Fail("alpha is %r" % alpha)
    if not c.is_int8(node):
        params = {"fn": getattr(unary, node.name)}
        if node.name == "LEAKY_RELU":
            params["alpha"] = alpha
        c.emit("unary", node, params=params)
        return
    if node.name in unary_tables.FLOAT_ONLY:
        raise _Fail("TFLM has no int8 %s kernel (float32 only)" % node.name)
    try:
        tbl = unary_tables.table(node.name, c.quant(node.inputs[0]), c.quant(node.outputs[0]),
                                 alpha)
    except unary_tables.TableError as e:
        raise _Fail(str(e)) from e
    c.emit("unary", node, consts={"table": tbl})


def _square(c, node):
    """SQUARE (float32 only, as in TFLM): the input multiplied by itself, a `mul`."""
    if c.is_int8(node):
        raise _Fail("TFLM has no int8 SQUARE kernel (float32 only)")
    if c.tf.tensors[node.outputs[0]].dtype != np.float32:
        raise _Fail("input and output types differ")
    if c.shape(node.inputs[0]) != c.shape(node.outputs[0]):
        raise _Fail("input and output shapes differ")
    x = node.inputs[0]
    c.emit("mul", node, params={"act": 0}, ins=[x, x])


def _prelu(c, node):
    """PRELU with a constant alpha that repeats along the input's innermost dims."""
    x, y = node.inputs[0], node.outputs[0]
    alpha = c.const(node.inputs[1], "alpha")
    src, dst = c.tf.tensors[x], c.tf.tensors[y]
    if src.dtype != dst.dtype or alpha.dtype != src.dtype:
        raise _Fail("input, alpha and output types differ (%s, %s, %s)"
                    % (src.dtype.name, alpha.dtype.name, dst.dtype.name))
    if max(len(src.shape), alpha.ndim) > 4:
        raise _Fail("TFLM's PRELU takes at most 4 dims, got input %s and alpha %s"
                    % (src.shape, alpha.shape))
    if tuple(dst.shape) != tuple(src.shape) or not _trailing(alpha.shape, src.shape):
        raise _Fail("alpha %s broadcast over input %s to output %s is not supported (alpha "
                    "must repeat along the innermost dims)" % (alpha.shape, src.shape,
                                                                 dst.shape))
    if not c.is_int8(node):
        c.emit("prelu", node, consts={"alpha": alpha.reshape(-1)})
        return
    (in_scale, in_zp), (a_scale, a_zp) = c.quant(x), c.quant(node.inputs[1])
    out_scale, out_zp = c.quant(y)
    pm, ps = qp.quantize_multiplier(float(in_scale) / float(out_scale))
    nm, ns = qp.quantize_multiplier(float(in_scale) * float(a_scale) / float(out_scale))
    if ps > 15 or ns > 15:
        raise _Fail("the scales need a left shift beyond 15 (a product of input offsets "
                    "would overflow int32)")
    c.emit("prelu", node, consts={"alpha": alpha.reshape(-1)},
           params={"in_zp": in_zp, "alpha_zp": a_zp, "out_zp": out_zp, "pos_mult": pm,
                   "pos_shift": ps, "neg_mult": nm, "neg_shift": ns})


def _log_softmax(c, node):
    """LOG_SOFTMAX over the last axis; int8 output at TFLM's fixed scale 16/256, zero point
    127."""
    shape = c.shape(node.inputs[0])
    if shape != c.shape(node.outputs[0]) or not shape:
        raise _Fail("input and output shapes differ")
    if not c.is_int8(node):
        c.emit("log_softmax", node)
        return
    if c.quant(node.outputs[0]) != (16.0 / 256, 127):
        raise _Fail("int8 output must have scale 16/256 and zero point 127 (TFLM)")
    mult, left_shift, diff_min = qp.softmax_params(1.0, c.quant(node.inputs[0])[0])
    if left_shift < 1:
        raise _Fail("input scale %r is too small for TFLM's log softmax scaling"
                    % c.quant(node.inputs[0])[0])
    rm, rs = qp.quantize_multiplier((1 << (31 - left_shift)) / float(mult))
    c.emit("log_softmax", node, params={"in_mult": mult, "in_left_shift": left_shift,
                                        "reverse_mult": rm, "reverse_shift": rs,
                                        "diff_min": diff_min})
def _svdf_check(ok, what):
    if not ok:
        raise _Fail(what + " (TFLM's check)")


def _svdf_shapes(c, node):
    """TFLM's PrepareSvdf shape checks; returns the rank."""
    if node.options is None:
        raise _Fail("missing options")
    _svdf_check(len(node.inputs) == 5 and node.inputs[4] >= 0,
                "needs 5 inputs: input, weights_feature, weights_time, bias, state")
    x, wf, wt, bias, state = node.inputs
    rank = node.options["Rank"]
    _svdf_check(rank > 0, "rank %d must be positive" % rank)
    xs, fs, ts, ys = (c.shape(t) for t in (x, wf, wt, node.outputs[0]))
    _svdf_check(len(fs) == 2 and len(ts) == 2, "weights_feature and weights_time must be 2-D")
    filters, memory = fs[0], ts[1]
    _svdf_check(filters % rank == 0, "num_filters %d %% rank %d != 0" % (filters, rank))
    _svdf_check(len(xs) == 2, "input must be 2-D [batch, input_size]")
    batch, units = xs[0], filters // rank
    _svdf_check(tuple(ys) == (batch, units), "output %s must be [%d, %d]" % (ys, batch, units))
    _svdf_check(fs[1] == xs[1] and ts[0] == filters,
                "weights_feature %s / weights_time %s do not fit input %s" % (fs, ts, xs))
    # TFLM's Prepare reads and frees the bias whether or not it is there: it crashes without
    _svdf_check(bias >= 0, "SVDF needs a bias")
    _svdf_check(c.shape(bias) == (units,), "bias must have %d values" % units)
    _svdf_check(tuple(c.shape(state)) == (batch, memory * filters),
                "state must be [%d, %d]" % (batch, memory * filters))
    _svdf_check(c.tf.tensors[state].variable, "the state must be a variable tensor")
    return rank


def _svdf_int8(c, node):
    """The consts and params of an int8 SVDF (TFLM's integer SVDFs: int16 or int8
    weights_time and state)."""
    x, wf, wt, bias, state = node.inputs
    types = [c.tf.tensors[t].dtype for t in (wf, wt, state, node.outputs[0])]
    _svdf_check(types[0] == types[3] == np.int8 and types[1] in (np.int8, np.int16) and
                types[2] in (np.int8, np.int16), "int8 SVDF takes int8 weights_feature and "
                "output, int16 or int8 weights_time and state")
    if types[1] != types[2]:  # TFLM would read the state as weights_time's type
        raise _Fail("weights_time is %s but the state %s" % (types[1].name, types[2].name))
    bits = 8 * types[1].itemsize
    _svdf_check(c.tf.tensors[bias].dtype == np.int32, "bias must be int32")
    in_scale, in_zp = c.quant(x)
    out_scale, out_zp = c.quant(node.outputs[0])
    scales = []
    for t in (wf, wt, state, bias):
        tt = c.tf.tensors[t]
        if len(tt.scales) != 1 or not _sane_scale(tt.scales[0]):
            raise _Fail("tensor %d (%s) needs one sane scale" % (t, tt.name))
        scales.append(tt.scales[0])
    wf_scale, wt_scale, state_scale, bias_scale = scales
    state_zp = (c.tf.tensors[state].zero_points or [0])[0]
    if not -(1 << (bits - 1)) <= state_zp < 1 << (bits - 1):
        raise _Fail("state zero point %d is not int%d" % (state_zp, bits))
    f32 = fp.to_f32
    _svdf_check(abs(bias_scale - f32(state_scale * wt_scale)) < 1e-5,
                "bias scale %r != state scale x weights_time scale" % bias_scale)
    state_mult, state_shift = qp.quantize_multiplier(f32(f32(in_scale * wf_scale) / state_scale))
    out_mult, out_shift = qp.quantize_multiplier(f32(f32(state_scale * wt_scale) / out_scale))
    consts = {"wf": c.const(wf, "weights_feature"),
              "wt": c.const(wt, "weights_time").astype(np.int32),
              "bias": c.const(bias, "bias").reshape(-1)}
    params = {"in_zp": in_zp, "state_zp": state_zp, "out_zp": out_zp,
              "state_mult": state_mult, "state_shift": state_shift, "out_mult": out_mult,
              "out_shift": out_shift, "state_bits": bits}
    return consts, params


def _svdf(c, node):
    """SVDF: inputs (input, weights_feature, weights_time, bias, state); the state
    becomes the op's own persistent buffer, not a graph tensor."""
    rank = _svdf_shapes(c, node)
    if c.is_int8(node):
        consts, params = _svdf_int8(c, node)
    else:
        x, wf, wt, bias, state = node.inputs
        _svdf_check(all(c.tf.tensors[t].dtype == np.float32
                        for t in (x, wf, wt, state, node.outputs[0])),
                    "input, weights, state and output must all be int8-quantized or float32")
        consts = {"wf": c.const(wf, "weights_feature"), "wt": c.const(wt, "weights_time"),
                  "bias": c.const(bias, "bias")}
        params = {"act": c.fused(node)}
    params["rank"] = rank
    c.emit("svdf", node, consts=consts, params=params)


def _move(c, node):
    """The data-movement ops: strided copies (burn.host.importers.tflite_move); a GATHER
    at run-time positions or of a constant table is the gather op (tflite_gather)."""
    try:
        if is_runtime_gather(c.tf, node):
            convert_gather(c, node)
        else:
            tflite_move.convert(c, node)
    except (tflite_move.MoveError, GatherError) as e:
        raise _Fail(str(e)) from None


def _embedding_lookup(c, node):
    """EMBEDDING_LOOKUP: the gather op (burn.host.importers.tflite_gather)."""
    try:
        convert_gather(c, node)
    except GatherError as e:
        raise _Fail(str(e)) from None
def _copies(c, node):
    """SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (burn.host.importers.tflite_batch_space),
    DYNAMIC_UPDATE_SLICE (tflite_update_slice) and CUMSUM (tflite_cumsum): ops that exist,
    joined by copies of constant boxes."""
    convert = {"DYNAMIC_UPDATE_SLICE": convert_update_slice, "CUMSUM": convert_cumsum}
    try:
        convert.get(node.name, convert_batch_space)(c, node)
    except tflite_move.MoveError as e:
        raise _Fail(str(e)) from None


def _cast(c, node):
    """CAST where an existing op computes it exactly (burn.host.importers.tflite_cast)."""
    try:
        convert_cast(c, node)
    except CastError as e:
        raise _Fail(str(e)) from None


def _add_n(c, node):
    """ADD_N: float32 as a chain of ADDs, int8 of two inputs as one ADD (TFLM's ADD_N of
    more sums them before it rounds once, which a chain cannot repeat)."""
    types = {c.tf.tensors[t].dtype for t in node.inputs + node.outputs}
    shapes = {tuple(c.shape(t)) for t in node.inputs + node.outputs}
    if len(types) != 1 or len(shapes) != 1:
        raise _Fail("inputs and output must have one type and one shape, got %s and %s"
                    % (sorted(t.name for t in types), sorted(shapes)))
    if c.is_int8(node):
        if len(node.inputs) != 2:
            raise _Fail("int8 ADD_N of %d inputs: TFLM sums them before it rounds once, "
                        "which a chain of ADDs cannot repeat; burn takes 2" % len(node.inputs))
        zp = c.quant(node.inputs[0])[1]
        if c.quant(node.inputs[1]) != c.quant(node.inputs[0]):
            raise _Fail("int8 inputs must share one scale and zero point (TFLM)")
        # TFLM's sum starts from the input offset, not 0: it subtracts the zero point three
        # times, which the ADD's two zero points share
        a_zp = 3 * zp // 2
        if not -128 <= 3 * zp - a_zp <= 127:
            raise _Fail("input zero point %d: TFLM's int8 ADD_N subtracts it three times, "
                        "beyond the two int8 zero points of an ADD (|zero point| <= 84)" % zp)
        _binary(c, node, "add")
        c.ops[-1].params.update(a_zp=a_zp, b_zp=3 * zp - a_zp)
        return
    if c.is_int16(node) or types != {np.dtype(np.float32)}:
        raise _Fail("ADD_N only supports FLOAT32 and INT8, got %s."
                    % c.tf.tensors[node.outputs[0]].dtype.name.upper())
    y = node.outputs[0]
    total = c.act(node.inputs[0])
    for k, t in enumerate(node.inputs[1:]):
        last = k == len(node.inputs) - 2
        out = c.act(y) if last else tflite_move.like_tensor(c, c.act(y), c.shape(y))
        c.ops.append(GraphOp("add", [total, c.act(t)], [out], params={"act": 0}))
        total = out


def _resize(c, node):
    """RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: TFLM's sampling positions, computed
    here into the resize kind's tables (burn.graph.resize)."""
    from burn.host.importers.resize_tables import tables

    (n, ih, iw, ch), (n2, oh, ow, oc) = c.shape4(node.inputs[0]), c.shape4(node.outputs[0])
    size = c.tf.tensors[node.inputs[1]]
    if size.dtype != np.int32 or len(size.shape) != 1 or size.shape[0] != 2:
        raise _Fail("size must be a 1-D int32 tensor of 2 values")
    if c.const(node.inputs[1], "size").tolist() != [oh, ow] or (n2, oc) != (n, ch):
        raise _Fail("output %s is not input %s resized to %s"
                    % ((n2, oh, ow, oc), (n, ih, iw, ch), size.data.tolist()))
    opts = node.options or {"AlignCorners": False, "HalfPixelCenters": False}
    align, half = bool(opts["AlignCorners"]), bool(opts["HalfPixelCenters"])
    bilinear = node.name == "RESIZE_BILINEAR"
    if bilinear and align and half:  # TFLM's ResizeBilinearPrepare
        raise _Fail("If half_pixel_centers is True, align_corners must be False.")
    integer = c.is_int8(node)
    ys, fy = tables(ih, oh, bilinear, integer, align, half)
    xs, fx = tables(iw, ow, bilinear, integer, align, half)
    if ys[0::3].max() >= ih or xs[0::3].max() >= iw:
        raise _Fail("TFLM's positions for %s -> %s fall outside the input"
                    % ((ih, iw), (oh, ow)))
    consts = {"ys": ys, "xs": xs}
    if not integer:
        consts.update(fy=fy, fx=fx)
    c.emit("resize", node, consts=consts)


def _arg(c, node):
    """ARG_MAX and ARG_MIN, into an int32 tensor."""
    shape, out = c.shape(node.inputs[0]), node.outputs[0]
    types = [c.tf.tensors[t].dtype for t in (node.inputs[1], out)]
    for t in types:
        if t != np.int32:  # TFLM's arg_min_max.cc
            raise _Fail("Only int32_t are supported currently, got %s." % np.dtype(t).name)
    if not shape:
        raise _Fail("input has no dimensions")
    axis = int(c.const(node.inputs[1], "axis").reshape(-1)[0])
    if not -len(shape) <= axis < len(shape):
        raise _Fail("axis %d out of range for %d dims" % (axis, len(shape)))
    axis %= len(shape)
    if list(c.shape(out)) != list(shape[:axis]) + list(shape[axis + 1:]):
        raise _Fail("output %s is not input %s without axis %d" % (c.shape(out), shape, axis))
    c.emit("arg", node, params={
        "outer": int(np.prod(shape[:axis], dtype=np.int64)), "reduce": int(shape[axis]),
        "inner": int(np.prod(shape[axis + 1:], dtype=np.int64)),
        "op": 0 if node.name == "ARG_MAX" else 1})


def _l2norm(c, node):
    """L2_NORMALIZATION over the last axis, as TFLM's Prepare allows it."""
    shape = c.shape(node.inputs[0])
    if not 1 <= len(shape) <= 4:
        raise _Fail("input of %d dims: TFLM takes 1 to 4" % len(shape))
    if c.shape(node.outputs[0]) != shape or \
            c.tf.tensors[node.outputs[0]].dtype != c.tf.tensors[node.inputs[0]].dtype:
        raise _Fail("input and output shapes or types differ")
    if c.fused(node):  # TFLM's L2NormPrepare
        raise _Fail("fused activation %d: TFLM supports none" % c.fused(node))
    if not c.is_int8(node):
        c.emit("l2norm", node)
        return
    if c.quant(node.outputs[0]) != (1.0 / 128, 0):  # the kernel's output scale
        raise _Fail("int8 output must have scale 1/128 and zero point 0")
    c.emit("l2norm", node, params={"in_zp": c.quant(node.inputs[0])[1]})


def _batch_matmul(c, node):
    """BATCH_MATMUL: batch dims broadcast dim by dim as TFLM's do; the second operand may
    be a constant. An operand broadcast along some batch dims but not all is expanded
    first (a strided copy of an activation; a constant at import), so that the op sees
    equal batch dims or one operand broadcast whole."""
    lhs, rhs, out = node.inputs[0], node.inputs[1], node.outputs[0]
    types = {c.tf.tensors[t].dtype for t in (lhs, rhs, out)}
    if len(types) != 1 or types.pop() not in (np.int8, np.float32):  # TFLM's Prepare
        raise _Fail("operands and output must all be int8 or all float32")
    ls, rs = c.shape(lhs), c.shape(rhs)
    if not (2 <= len(ls) <= 5 and 2 <= len(rs) <= 5):
        raise _Fail("operands of %d and %d dims: TFLM takes 2 to 5" % (len(ls), len(rs)))
    opts = node.options or {"AdjX": False, "AdjY": False}
    adj_x, adj_y = int(bool(opts["AdjX"])), int(bool(opts["AdjY"]))
    m, k = (ls[-1], ls[-2]) if adj_x else (ls[-2], ls[-1])
    k2, n = (rs[-1], rs[-2]) if adj_y else (rs[-2], rs[-1])
    if k != k2:
        raise _Fail("inner dimensions %d and %d differ" % (k, k2))
    rank = max(len(ls), len(rs))
    lb = (1,) * (rank - len(ls)) + tuple(ls[:-2])
    rb = (1,) * (rank - len(rs)) + tuple(rs[:-2])
    if any(a != b and 1 not in (a, b) for a, b in zip(lb, rb)):
        raise _Fail("batch dims %s and %s do not broadcast" % (lb, rb))
    batch = tuple(max(a, b) for a, b in zip(lb, rb))
    if tuple(c.shape(out)) != batch + (m, n):
        raise _Fail("output %s is not %s" % (c.shape(out), batch + (m, n)))
    whole = [int(np.prod(b, dtype=np.int64)) == 1 for b in (lb, rb)]
    expand = lb != rb and not any(whole)  # then each operand gets every batch
    params = {"batches": int(np.prod(batch, dtype=np.int64)), "m": m, "k": k, "n": n,
              "adj_x": adj_x, "adj_y": adj_y, "a_step": 0 if whole[0] else m * k,
              "b_step": 0 if whole[1] else k * n}
    if c.is_int8(node):
        (a_scale, a_zp), (b_scale, b_zp), (o_scale, o_zp) = [c.quant(t) for t in (lhs, rhs, out)]
        mult, shift = arith_params.batch_matmul_params(a_scale, b_scale, o_scale)
        params.update(a_zp=a_zp, b_zp=b_zp, out_zp=o_zp, mult=mult, shift=shift)
    ins = [_bmm_operand(c, lhs, lb, batch if expand else lb, ls[-2:])]
    consts = {}
    if c.tf.tensors[rhs].data is not None:
        b = c.tf.tensors[rhs].data.reshape(rb + tuple(rs[-2:]))
        b = np.broadcast_to(b, (batch if expand else rb) + tuple(rs[-2:]))
        consts["b"] = np.ascontiguousarray(b).reshape((-1,) + tuple(rs[-2:]))  # 3 dims
    else:
        ins.append(_bmm_operand(c, rhs, rb, batch if expand else rb, rs[-2:]))
    c.ops.append(GraphOp("batch_matmul", ins, [c.act(out)], consts, params))


def _bmm_operand(c, t, own, batch, mat):
    """The graph tensor of BATCH_MATMUL operand `t` (batch dims `own`, matrix dims `mat`)
    holding `batch` batches: a strided copy repeats it along the dims it broadcasts."""
    if tuple(own) == tuple(batch):
        return c.act(t)
    dims = tuple(own) + tuple(mat)
    strides = [int(np.prod(dims[a + 1:], dtype=np.int64)) for a in range(len(dims))]
    box = tflite_move.box(0, [(o, 0 if d == 1 else s) for d, o, s in
                              zip(dims, tuple(batch) + tuple(mat), strides)])
    full = tflite_move.like_tensor(c, c.act(t), tuple(batch) + tuple(mat))
    c.ops.append(GraphOp("strided", [c.act(t)], [full], params=box))
    return full


def _lstm(c, node):
    """UNIDIRECTIONAL_SEQUENCE_LSTM (burn.host.importers.tflite_lstm); its hidden and cell
    states become the op's own persistent buffer, not graph tensors."""
    try:
        consts, params = tflite_lstm.convert(c, node)
    except tflite_lstm.LstmError as e:
        raise _Fail(str(e)) from e
    c.emit("lstm", node, consts=consts, params=params)


_CONVERT = {
    "CONV_2D": _conv, "DEPTHWISE_CONV_2D": _depthwise, "FULLY_CONNECTED": _fully_connected,
    "ADD": _binary, "MUL": _binary, "AVERAGE_POOL_2D": _pool, "MAX_POOL_2D": _pool,
    "MEAN": _mean, "SOFTMAX": _softmax, "LOGISTIC": _sigmoid_like, "TANH": _sigmoid_like,
    "QUANTIZE": _quantize, "DEQUANTIZE": _quantize, "PAD": _pad, "PADV2": _pad,
    "CONCATENATION": _concat, "PACK": _concat, "RELU": _clamp, "RELU6": _clamp,
    "RELU_N1_TO_1": _clamp,
    "TRANSPOSE_CONV": _transpose_conv,
    "ABS": _unary, "NEG": _unary, "SQRT": _unary, "RSQRT": _unary, "ELU": _unary,
    "HARD_SWISH": _unary, "LEAKY_RELU": _unary, "PRELU": _prelu, "LOG_SOFTMAX": _log_softmax,
    "SVDF": _svdf,
    "TRANSPOSE": _move, "SLICE": _move, "STRIDED_SLICE": _move, "SPLIT": _move,
    "SPLIT_V": _move, "UNPACK": _move, "DEPTH_TO_SPACE": _move, "SPACE_TO_DEPTH": _move,
    "GATHER": _move, "MIRROR_PAD": _move,
    "SUM": _mean, "REDUCE_MAX": _mean, "REDUCE_MIN": _mean,
    "RESIZE_BILINEAR": _resize, "RESIZE_NEAREST_NEIGHBOR": _resize,
    "ARG_MAX": _arg, "ARG_MIN": _arg, "L2_NORMALIZATION": _l2norm,
    "BATCH_MATMUL": _batch_matmul,
    "SUB": _arith, "SQUARED_DIFFERENCE": _arith, "MAXIMUM": _arith, "MINIMUM": _arith,
    "EQUAL": _compare, "NOT_EQUAL": _compare, "LESS": _compare, "LESS_EQUAL": _compare,
    "GREATER": _compare, "GREATER_EQUAL": _compare, "SELECT_V2": _select, "SELECT": _select,
    "LOGICAL_AND": _logical, "LOGICAL_OR": _logical, "LOGICAL_NOT": _logical,
    "REVERSE_V2": _move, "BROADCAST_TO": _move, "GATHER_ND": _move,
    "SPACE_TO_BATCH_ND": _copies, "BATCH_TO_SPACE_ND": _copies,
    "CAST": _cast, "ADD_N": _add_n, "REDUCE_ALL": _mean, "FILL": _move,
    "EXP": _unary, "LOG": _unary, "SIN": _unary, "COS": _unary, "FLOOR": _unary, "CEIL": _unary,
    "ROUND": _unary, "SQUARE": _square,
    "DIV": _div, "FLOOR_DIV": _div, "FLOOR_MOD": _div, "L2_POOL_2D": _l2_pool,
    "ZEROS_LIKE": _zeros_like, "DYNAMIC_UPDATE_SLICE": _copies,
    "CUMSUM": _copies,
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm,
    "EMBEDDING_LOOKUP": _embedding_lookup,
}


def _identity_move(tf, node):
    """Whether `node` is a data-movement op that copies its input unchanged (a transpose or
    slice that keeps everything in order) into an output of the same quantization."""
    if node.name not in tflite_move.OPS or len(node.outputs) != 1:
        return False
    try:
        params = tflite_move.boxes(tf, node)[0]
    except (tflite_move.MoveError, *_MALFORMED):
        return False  # its conversion reports what is wrong
    a, b = tf.tensors[tflite_move.data_input(node)], tf.tensors[node.outputs[0]]
    return (a.scales, a.zero_points) == (b.scales, b.zero_points) and \
        tflite_move.is_identity(params, _numel(a.shape))


def _fold_aliases(tf):
    """Map the output of each reshape-like op, and of each identity move, to the tensor it
    renames; returns {out: in}."""
    alias = {}
    for node in tf.ops:
        if node.name in tflite_move.OPS and _identity_move(tf, node):
            src = tflite_move.data_input(node)
            alias[node.outputs[0]] = alias.get(src, src)
        elif node.name in _FOLDED:
            where = node.where()
            if not node.inputs or node.inputs[0] < 0 or len(node.outputs) != 1:
                raise TFLiteImportError("%s: needs one input and one output" % where)
            src = alias.get(node.inputs[0], node.inputs[0])
            a, b = tf.tensors[src], tf.tensors[node.outputs[0]]
            if a.dtype != b.dtype or (a.dtype in (np.int8, np.int16) and
                                      (a.scales, a.zero_points) != (b.scales, b.zero_points)):
                raise TFLiteImportError("%s: input and output quantization differ" % where)
            if np.prod(a.shape, dtype=np.int64) != np.prod(b.shape, dtype=np.int64):
                raise TFLiteImportError("%s: %s and %s differ in size" % (where, a.shape,
                                                                           b.shape))
            alias[node.outputs[0]] = src
    return alias


def _check_structure(tf):
    """Refuse what no conversion can use: unsupported ops (all named at once), too many
    ops, missing inputs or outputs, and ops without the tensors they need."""
    odd = unreadable_tensors(tf)
    if odd:
        raise TFLiteImportError("tensors of unsupported types: " + ", ".join(
            "%d (%s) %s" % (i, tf.tensors[i].name, tf.tensors[i].type_name) for i in odd))
    bad = [n for n in tf.ops if n.name not in SUPPORTED]
    if bad:
        raise TFLiteImportError("unsupported ops: " + ", ".join(
            n.where() for n in bad))
    if len(tf.ops) > MAX_OPS:
        raise TFLiteImportError("%d ops: more than %d" % (len(tf.ops), MAX_OPS))
    if not tf.inputs or not tf.outputs:
        raise TFLiteImportError("the model needs at least one input and one output")
    for n in tf.ops:
        need = _ARITY.get(n.name, 1)
        outs = "outputs" if n.name in _OUTPUTS else "one output"
        if len(n.inputs) < need or any(t < 0 for t in n.inputs[:need]) or not n.outputs or \
                (len(n.outputs) != 1 and n.name not in _OUTPUTS) or min(n.outputs) < 0:
            raise TFLiteImportError("%s: needs %d inputs and %s, has %s -> %s"
                                    % (n.where(), need, outs, n.inputs, n.outputs))
        for t in n.inputs + n.outputs:
            tt = tf.tensors[t] if t >= 0 else None
            if tt is not None and tt.data is None and \
                    not 0 < _numel(tt.shape) * tt.dtype.itemsize <= MAX_ARENA:
                raise TFLiteImportError("%s: tensor %d (%s) has shape %s: empty or too large"
                                        % (n.where(), t, tt.name, tt.shape))


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _sane_scale(scale):
    """A quantization scale the fixed-point parameters can represent."""
    return math.isfinite(scale) and 1e-30 < scale < 1e30


def _check_op(op):
    """Refuse parameters no .bst kernel can take: integers beyond int32, multipliers and
    shifts out of range, numbers that are not finite."""
    values = dict(op.params)
    for name in ("mult", "shift"):
        if name in op.consts:
            values[name] = op.consts[name].tolist()
    for name, v in values.items():
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, float) and not math.isfinite(x):
                raise _Fail("parameter %s is %r" % (name, x))
            if isinstance(x, int) and not _INT32[0] <= x <= _INT32[1]:
                raise _Fail("parameter %s = %d is beyond int32" % (name, x))
            if name.endswith("shift") and name != "left_shift" and not -31 <= x <= 31:
                raise _Fail("requantization shift %d out of range (scales too far apart)"
                            % x)
            if name.endswith("mult") and not 0 <= x < (1 << 31):
                raise _Fail("requantization multiplier %d out of range" % x)


# the op kinds that take int32 tensors, and where: (input positions, output positions),
# negative ones counted from the end
_INT32_USES = {"arg": ((), (0,)), "copy": ((0,), (0,)), "gather": ((-1,), ())}


def _check_int32(c, op):
    """Refuse an int32 tensor where the op's kernels do not take one (burn's int32
    activations are indices: ARG_MAX's output, GATHER's positions)."""
    ins, outs = _INT32_USES.get(op.op, ((), ()))
    for where, tids, ok in (("input", op.inputs, ins), ("output", op.outputs, outs)):
        for k, t in enumerate(tids):
            if c.tensors[t].dtype == "int32" and k not in ok and k - len(tids) not in ok:
                raise _Fail("int32 %s %d: burn takes int32 tensors only as indices (ARG_MAX "
                            "and ARG_MIN outputs, GATHER and EMBEDDING_LOOKUP positions)"
                            % (where, k))


def _convert(tf, alias):
    """The graph's tensors and ops; every node that cannot be converted is reported at once."""
    conv = _Converter(tf, alias)
    errors = []
    for node in tf.ops:
        if node.name in _FOLDED or node.outputs[0] in alias:
            continue
        first = len(conv.ops)
        conv.shaped = node.name in _SHAPED
        try:
            # the data input, not an op's own int16 parts (SVDF's weights_time and state) nor
            # outputs, which the op's converter checks with TFLM's reasons (ARG_MAX's index)
            if node.name not in _INT16_OPS and node.inputs and node.inputs[0] >= 0 and \
                    tf.tensors[node.inputs[0]].dtype == np.int16:
                raise _Fail("int16 tensors are not supported by this op yet")
            if node.name not in _BOOL_OPS and \
                    any(t >= 0 and tf.tensors[t].dtype == np.bool_ for t in node.inputs):
                raise _Fail("BOOL inputs are not supported by this op")
            _CONVERT[node.name](conv, node)
            for op in conv.ops[first:]:
                _check_op(op)
                _check_int32(conv, op)
        except _Fail as e:
            errors.append("%s: %s" % (node.where(), e))
        except _MALFORMED as e:
            errors.append("%s: malformed: %s: %s" % (node.where(), type(e).__name__, e))
    if errors:
        raise TFLiteImportError("cannot import: " + "; ".join(errors), errors)
    conv.shaped = False
    try:
        inputs = [(conv.act(t), tf.tensors[t].shape) for t in tf.inputs]
        outputs = [(conv.act(t), tf.tensors[t].shape) for t in tf.outputs]
    except _Fail as e:
        raise TFLiteImportError("graph inputs/outputs: %s" % e) from e
    return conv, inputs, outputs


def _rows(graph, tid):
    """How many rows int32 input `tid` may pick: the smallest table of the gather ops that
    take it as positions (1 when none does)."""
    return min([op.params["size"] for op in graph.ops
                if op.op == "gather" and op.inputs[-1] == tid], default=1)


def random_inputs(graph, count, seed=0):
    """`count` seeded random input sets: one array per graph input, in its dtype (int32
    positions within the tables they index)."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        ins = []
        for tid, shape in graph.inputs:
            if graph.tensors[tid].is_bool:
                ins.append(rng.integers(0, 2, size=shape, dtype=np.int8))
            elif graph.tensors[tid].dtype == "int8":
                ins.append(rng.integers(-128, 128, size=shape, dtype=np.int8))
            elif graph.tensors[tid].dtype == "int16":
                ins.append(rng.integers(-32768, 32768, size=shape, dtype=np.int16))
            elif graph.tensors[tid].dtype == "int32":
                ins.append(rng.integers(0, _rows(graph, tid), size=shape, dtype=np.int32))
            else:
                ins.append(rng.standard_normal(shape).astype(np.float32))
        sets.append(ins)
    return sets


def reference_tests(data, graph, count, arena, seed=0):
    """Run `count` random input sets through TFLM (in a child process, its arena starting
    at `arena` bytes); returns ([(ins, outs)], one line of TFLM's stderr or ''). Raises
    TFLMError."""
    sets = random_inputs(graph, count, seed)
    outs, noise = run_tflm(data, sets, len(graph.outputs), arena)
    shapes = [shape for _t, shape in graph.outputs]
    tests = [(ins, [np.asarray(o).reshape(s) for o, s in zip(out, shapes)])
             for ins, out in zip(sets, outs)]
    return tests, noise


def _tflm_arena(graph, arena):
    """Where TFLM's arena starts: burn's planned arena, doubled, plus room for TFLM's own
    per-tensor and per-op records (it doubles from there when that is too small)."""
    return 2 * sum(arena.values()) + 256 * (len(graph.tensors) + len(graph.ops)) + (16 << 10)


def _self_tests(data, graph, count, arena, say):
    """TFLM's reference tests, or burn's runtime's when TFLM refuses the model cleanly."""
    say("running TFLM for %d reference tests (in a child process)" % count)
    try:
        tests, noise = reference_tests(data, graph, count, _tflm_arena(graph, arena))
    except TFLMError as e:
        if not e.refused:
            raise TFLiteImportError("%s; --tests 0 imports without TFLM" % e) from e
        # TFLM refuses some valid TFLite models (hybrid ones: float ops with int8
        # weights); their self-test vectors then come from burn's own runtime.
        say("%s; reference tests come from burn's runtime" % e)
        return runtime_tests(graph, random_inputs(graph, count))
    if noise:
        say(noise)
    return tests


# What numpy and the conversion functions raise on inconsistent (hostile) models, beyond
# the checks made on purpose.
_MALFORMED = (ValueError, IndexError, TypeError, ArithmeticError, KeyError)


def import_tflite(data, tests=4, labels=(), metadata=None, progress=None):
    """Convert TFLite bytes into a Graph with `tests` (0 to MAX_TESTS) TFLM reference
    tests. Raises TFLiteImportError (a ValueError), one line naming every unsupported op
    (node index and op name) or the malformed part. `progress(message)` is called as the
    work goes on."""
    say = progress or (lambda message: None)
    if type(tests) is not int or not 0 <= tests <= MAX_TESTS:
        raise TFLiteImportError("tests must be an integer from 0 to %d, got %r"
                                % (MAX_TESTS, tests))
    tf = prune(read_tflite(data))
    say("converting %d ops" % len(tf.ops))
    meta = {"importer": "tflite", "description": tf.description}
    meta.update(metadata or {})
    graph, arena = build_graph(tf, labels, meta)
    if tests:
        graph.tests = _self_tests(data, graph, tests, arena, say)
    return graph


def build_graph(tf, labels=(), metadata=None):
    """The checked, planned Graph (no tests yet) of a TfModel, whichever front end made it
    (the TFLite reader, or the ONNX QDQ one), and its arena plan {region: bytes}. Raises
    TFLiteImportError naming every op that cannot be converted."""
    _check_structure(tf)
    conv, inputs, outputs = _convert(tf, _fold_aliases(tf))
    graph = Graph(conv.tensors, conv.ops, inputs, outputs, labels=labels,
                  metadata=dict(metadata or {}))
    try:
        _offsets, arena = plan_arena(graph)
    except ValueError as e:
        raise TFLiteImportError("the graph cannot be planned: %s" % e) from e
    if sum(arena.values()) > MAX_ARENA:
        raise TFLiteImportError("the activations need %d bytes, more than %d"
                                % (sum(arena.values()), MAX_ARENA))
    try:
        burn.load(encode_bst(graph))
    except ValueError as e:
        raise TFLiteImportError("burn's runtime refuses the converted graph: %s" % e) from e
    return graph, arena

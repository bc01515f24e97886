"""The windowed and weighted TFLite ops: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
FULLY_CONNECTED and the poolings, with the window geometry and the requantization of
conv-like ops as TFLM's Prepare() computes them."""

import numpy as np

from burn.graph import geometry, unary
from burn.graph import quant_params as qp
from burn.host.bst_writer import GraphOp
from burn.host.importers import tflite_move
from burn.host.importers.tflite.common import INT32, MAX_DIM
from burn.host.importers.tflite.registry import Fail, converts
from burn.host.importers.tflite_read import TfOp


def _window(c, node, kh, kw, dil_h=1, dil_w=1):
    """The strides and padding of a window op (TFLite's SAME or VALID, or the explicit pads
    of an ONNX model), its output size checked."""
    o = node.options
    if o is None:
        raise Fail("missing options")
    n, ih, iw, _c = c.shape4(node.inputs[0])
    n2, oh, ow, _c2 = c.shape4(node.outputs[0])
    if n != n2:
        raise Fail("input batch %d != output batch %d" % (n, n2))
    if o["Padding"] not in (0, 1):
        raise Fail("unknown padding %d" % o["Padding"])
    same = o["Padding"] == 0
    sh, sw = o["StrideH"], o["StrideW"]
    for what, a, b in (("strides", sh, sw), ("dilation", dil_h, dil_w), ("window", kh, kw)):
        if not (1 <= a <= MAX_DIM and 1 <= b <= MAX_DIM):
            raise Fail("bad %s %d, %d" % (what, a, b))
    pads = o.get("Pads")
    if pads is not None:
        return _explicit_window((ih, iw), (oh, ow), (kh, kw), (sh, sw), (dil_h, dil_w),
                                pads)
    want = (geometry.out_size(ih, kh, sh, dil_h, same),
            geometry.out_size(iw, kw, sw, dil_w, same))
    if want != (oh, ow):
        raise Fail("output %dx%d, expected %dx%d" % (oh, ow, want[0], want[1]))
    return {"stride_h": sh, "stride_w": sw,
            "pad_top": geometry.pad_before(ih, kh, sh, dil_h, oh),
            "pad_left": geometry.pad_before(iw, kw, sw, dil_w, ow)}


def _explicit_window(ins, outs, ks, strides, dils, pads):
    """Window params of explicit padding (top, left, bottom, right), which TFLite files do
    not have but ONNX ones do: each pad shorter than the window, the output size checked."""
    params = {"stride_h": strides[0], "stride_w": strides[1], "pad_top": pads[0],
              "pad_left": pads[1]}
    for i in range(2):
        eff = (ks[i] - 1) * dils[i] + 1
        before, after = pads[i], pads[i + 2]
        if not (0 <= before < eff and 0 <= after < eff):
            raise Fail("padding %s: each pad must be shorter than the window" % (list(pads),))
        want = (ins[i] + before + after - eff) // strides[i] + 1
        if want != outs[i]:
            raise Fail("output %dx%d, expected %d along axis %d" % (outs[0], outs[1], want,
                                                                    i))
    return params


def _requant(c, node, w_index, oc):
    """mult, shift arrays (int32, per output channel) of a conv-like int8 op."""
    in_scale, _ = c.quant(node.inputs[0])
    out_scale, _ = c.quant(node.outputs[0])
    w_scales = c.tf.tensors[w_index].scales
    if len(w_scales) == 1:
        w_scales = w_scales * oc
    if len(w_scales) != oc:
        raise Fail("%d weight scales for %d output channels" % (len(w_scales), oc))
    mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
    return np.array(mult, np.int32), np.array(shift, np.int32)


def _dequantized(c, t, w):
    """float32 weights of a hybrid model's int8 constant (real = scale * (q - zp)),
    per channel along the tensor's quantized dimension."""
    info = c.tf.tensors[t]
    if not info.scales:
        raise Fail("int8 weights without quantization scales")
    scales = np.asarray(info.scales, np.float64)
    zps = np.asarray(info.zero_points or [0] * len(scales), np.float64)
    if len(scales) > 1:
        view = [1] * w.ndim
        view[info.qdim] = len(scales)
        if w.shape[info.qdim] != len(scales):
            raise Fail("%d weight scales for dimension %d of size %d"
                       % (len(scales), info.qdim, w.shape[info.qdim]))
        scales, zps = scales.reshape(view), zps.reshape(view)
    return ((w.astype(np.float64) - zps) * scales).astype(np.float32)


def _bias(c, node, oc, dtype):
    """The op's constant bias of `oc` values of `dtype` (zeros when it has none)."""
    if len(node.inputs) > 2 and node.inputs[2] >= 0:
        b = c.const(node.inputs[2], "bias").reshape(-1)
        if b.size != oc or b.dtype != dtype:
            raise Fail("bias must be %d values of %s" % (oc, np.dtype(dtype).name))
        return b
    return np.zeros(oc, dtype)


def _weighted(c, kind, node, w, params):
    """Emit a conv / depthwise / fully connected op with its weights `w`."""
    oc = w.shape[0] if kind != "depthwise_conv2d" else w.shape[3]
    code = c.fused(node)
    if c.is_int16(node):
        _weighted16(c, kind, node, w, params, oc, code)
        return
    if c.is_int8(node):
        if w.dtype != np.int8:
            raise Fail("int8 op with %s weights (hybrid models are not supported)"
                       % w.dtype.name)
        if any(c.tf.tensors[node.inputs[1]].zero_points):
            raise Fail("weights must be symmetric (zero point 0)")
        mult, shift = _requant(c, node, node.inputs[1], oc)
        consts = {"w": w, "bias": _bias(c, node, oc, np.int32), "mult": mult,
                  "shift": shift}
        params.update(c.out_quant_params(node, code))
        params["in_zp"] = c.quant(node.inputs[0])[1]
    else:
        if w.dtype == np.int8:
            w = _dequantized(c, node.inputs[1], w)
        if w.dtype != np.float32:
            raise Fail("float op with %s weights" % w.dtype.name)
        consts = {"w": w, "bias": _bias(c, node, oc, np.float32)}
        params["act"] = code
    c.emit(kind, node, consts, params)


def _weighted16(c, kind, node, w, params, oc, code):
    """An int16x8 conv, transposed conv or fully connected (TFLM's rules): int8 weights, an
    int32 or int64 bias (int64 given as int32 values, `wide`: TFLM's int64 arithmetic), no
    bias taking the options' quantized_bias_type; a transposed conv's bias int16 or int64,
    its arithmetic always int64."""
    if w.dtype != np.int8:
        raise Fail("Input type: INT16 with filter type: %s not supported (TFLM)"
                   % w.dtype.name.upper())
    if any(c.tf.tensors[node.inputs[1]].zero_points):
        raise Fail("weights must be symmetric (zero point 0)")
    if c.tf.tensors[node.outputs[0]].dtype != np.int16:
        raise Fail("an int16 input needs an int16 output")
    wide = 1
    bias = np.zeros(oc, np.int32)
    if len(node.inputs) > 2 and node.inputs[2] >= 0:
        b = c.const(node.inputs[2], "bias").reshape(-1)
        types = (np.int16, np.int64) if kind == "transpose_conv2d" else (np.int32, np.int64)
        if b.size != oc or b.dtype not in types:
            raise Fail("Bias type %s not supported: an int16 op takes %d %s or int64 values "
                       "(TFLM)" % (b.dtype.name.upper(), oc, np.dtype(types[0]).name))
        if b.dtype == np.int64 and ((b < INT32[0]) | (b > INT32[1])).any():
            raise Fail("int64 bias values beyond int32 are not supported")
        wide = int(b.dtype == np.int64 or kind == "transpose_conv2d")
        if kind == "depthwise_conv2d" and not wide:
            raise Fail("an int16 depthwise convolution's bias must be int64 (TFLM reads "
                       "it as int64)")
        bias = b.astype(np.int32)
    elif node.options is not None and node.options.get("QuantizedBiasType") == 2:  # INT32
        wide = 0
    mult, shift = _requant(c, node, node.inputs[1], oc)
    (_s, in_zp), (_s2, out_zp) = c.quant(node.inputs[0]), c.quant(node.outputs[0])
    if kind != "fully_connected" and (in_zp or out_zp):
        raise Fail("int16 convolution needs zero points 0 (TFLM's kernel has none)")
    if wide and (shift > 7).any():
        raise Fail("requantization shift %d: TFLM's int64 arithmetic takes at most 7"
                   % shift.max())
    p = c.out_quant_params(node, code)
    params.update({"act_min": p["act_min"], "act_max": p["act_max"]})
    if kind not in ("depthwise_conv2d", "transpose_conv2d"):  # those are always int64
        params["wide"] = wide
    if kind in ("fully_connected", "transpose_conv2d"):
        params.update({"in_zp": in_zp, "out_zp": out_zp})
    c.emit(kind, node, {"w": w, "bias": bias, "mult": mult, "shift": shift}, params)


def _dilation(node):
    o = node.options
    return (o["DilationHFactor"], o["DilationWFactor"]) if o else (1, 1)


@converts("CONV_2D", arity=2, shaped=True, int16=True)
def _conv(c, node):
    w = c.const(node.inputs[1], "filter")
    dh, dw = _dilation(node)
    ic = c.shape4(node.inputs[0])[3]
    if w.ndim != 4 or w.shape[3] < 1 or ic % w.shape[3] or w.shape[0] != \
            c.shape4(node.outputs[0])[3]:
        raise Fail("filter %s does not fit %d input channels" % (w.shape, ic))
    params = _window(c, node, w.shape[1], w.shape[2], dh, dw)
    params.update({"groups": ic // w.shape[3], "dil_h": dh, "dil_w": dw})
    _weighted(c, "conv2d", node, w, params)


@converts("DEPTHWISE_CONV_2D", arity=2, shaped=True, int16=True)
def _depthwise(c, node):
    w = c.const(node.inputs[1], "filter")
    dh, dw = _dilation(node)
    ic = c.shape4(node.inputs[0])[3]
    if w.ndim != 4 or w.shape[0] != 1 or w.shape[3] % ic or w.shape[3] != \
            c.shape4(node.outputs[0])[3]:
        raise Fail("filter %s does not fit %d input channels" % (w.shape, ic))
    params = _window(c, node, w.shape[1], w.shape[2], dh, dw)
    if ic == 1 and w.shape[3] > 1 and c.is_int8(node):
        # One input channel (a first layer over a grayscale image, person_detect's): output
        # channel m sums the same taps as a convolution with one filter per channel, the
        # filter [1, kh, kw, m] read as [m, kh, kw, 1]. Integer sums are exact in any order,
        # so TFLM's bits, through the convolution kernels, which are several times faster
        # than a depthwise kernel with a depth multiplier.
        params.update({"groups": 1, "dil_h": dh, "dil_w": dw})
        _weighted(c, "conv2d", node, np.ascontiguousarray(w.transpose(3, 1, 2, 0)), params)
        return
    params.update({"depth_mult": w.shape[3] // ic, "dil_h": dh, "dil_w": dw})
    _weighted(c, "depthwise_conv2d", node, w, params)


def transpose_pad(out_size, k, stride, same):
    """TFLM's padding of a TRANSPOSE_CONV axis: that of a convolution over the output (its
    ComputePaddingHeightWidth with the output size as the input size), without the odd
    remainder, which TFLM drops."""
    conv_out = geometry.out_size(out_size, k, stride, 1, same)
    return max((conv_out - 1) * stride + k - out_size, 0) // 2


@converts("TRANSPOSE_CONV", arity=3, shaped=True, int16=True)
def _transpose_conv(c, node):
    """TRANSPOSE_CONV: inputs (output shape, filter, input[, bias]); int16x8 too."""
    o = node.options
    if o is None:
        raise Fail("missing options")
    shape_t, w_t, x_t = node.inputs[:3]
    n, ih, iw, ic = c.shape4(x_t)
    out = c.shape4(node.outputs[0])
    if [int(v) for v in np.asarray(c.const(shape_t, "output shape")).reshape(-1)] != \
            list(out):
        raise Fail("output shape input does not match the output tensor %s" % (out,))
    w = c.const(w_t, "filter")
    if w.ndim != 4 or w.shape[0] != out[3] or w.shape[3] != ic or out[0] != n:
        raise Fail("filter %s does not fit input %s and output %s" % (w.shape, (n, ih, iw, ic),
                                                                      out))
    if o["Padding"] not in (0, 1):
        raise Fail("unknown padding %d" % o["Padding"])
    sh, sw = o["StrideH"], o["StrideW"]
    if not (1 <= sh <= MAX_DIM and 1 <= sw <= MAX_DIM):
        raise Fail("bad strides %d, %d" % (sh, sw))
    same = o["Padding"] == 0
    params = {"stride_h": sh, "stride_w": sw,
              "pad_top": transpose_pad(out[1], w.shape[1], sh, same),
              "pad_left": transpose_pad(out[2], w.shape[2], sw, same)}
    inputs = [x_t, w_t] + node.inputs[3:4]
    _weighted(c, "transpose_conv2d", TfOp(node.index, node.name, inputs, node.outputs, o), w,
                 params)


@converts("FULLY_CONNECTED", arity=2, int16=True)
def _fully_connected(c, node):
    w = c.const(node.inputs[1], "weights")
    if node.options is not None and node.options["WeightsFormat"] != 0:
        raise Fail("shuffled weights are not supported")
    if w.ndim != 2:
        raise Fail("weights must be 2-D, got %s" % (w.shape,))
    n_in, n_out = (int(np.prod(c.shape(t), dtype=np.int64)) for t in (node.inputs[0],
                                                                        node.outputs[0]))
    if n_in % w.shape[1] or n_out != n_in // w.shape[1] * w.shape[0]:
        raise Fail("weights %s do not fit input %s and output %s" % (
            w.shape, c.shape(node.inputs[0]), c.shape(node.outputs[0])))
    _weighted(c, "fully_connected", node, w, {})


@converts("AVERAGE_POOL_2D", "MAX_POOL_2D", shaped=True, int16=True)
def _pool(c, node):
    o = node.options
    if o is None:
        raise Fail("missing options")
    kh, kw = o["FilterHeight"], o["FilterWidth"]
    if c.shape4(node.inputs[0])[3] != c.shape4(node.outputs[0])[3]:
        raise Fail("input and output channels differ")
    params = _window(c, node, kh, kw)
    params.update({"kh": kh, "kw": kw})
    code = c.fused(node)
    if c.is_int8(node) or c.is_int16(node):
        if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
            raise Fail("input and output quantization differ")
        p = c.out_quant_params(node, code)
        params.update({"act_min": p["act_min"], "act_max": p["act_max"]})
    else:
        params["act"] = code
    c.emit("avg_pool2d" if node.name == "AVERAGE_POOL_2D" else "max_pool2d", node,
           params=params)


@converts("L2_POOL_2D", shaped=True)
def _l2_pool(c, node):
    """L2_POOL_2D (float32 only, as in TFLM): the square root of each window's mean square,
    as a `mul` of the input by itself, an `avg_pool2d`, a `unary` SQRT and, for a fused
    activation, a `clamp`; the float arithmetic is TFLM's, step by step."""
    if c.is_int8(node) or c.is_int16(node):
        raise Fail("TFLM has no int8 or int16 L2_POOL_2D kernel (float32 only)")
    if {c.tf.tensors[t].dtype.name for t in node.inputs[:1] + node.outputs} != {"float32"}:
        raise Fail("input and output types differ")
    if node.options is None:
        raise Fail("missing options")
    kh, kw = node.options["FilterHeight"], node.options["FilterWidth"]
    if c.shape4(node.inputs[0])[3] != c.shape4(node.outputs[0])[3]:
        raise Fail("input and output channels differ")
    params = dict(_window(c, node, kh, kw), kh=kh, kw=kw, act=0)
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

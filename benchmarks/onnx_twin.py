"""The ONNX twin of an int8 model that burn imported from TFLite: the same int8 weights,
biases, scales and zero points in ONNX's quantized operator form, for timing onnxruntime on
the very model burn runs (benchmarks/web_inference.py).

    data = onnx_twin(import_tflite(tflite_bytes))            # ONNX bytes, uint8 activations
    data = onnx_twin(import_tflite(tflite_bytes), "int8")    # int8 activations, as TFLite

Convolutions, depthwise convolutions and fully connected layers become QLinearConv (a fully
connected layer a 1x1 one over [N, C, 1, 1], then a Reshape), with per-channel weight scales
recovered from each output channel's requantization (multiplier * 2^(shift - 31) * output
scale / input scale); a fused activation narrower than int8's range a Clip; average pooling,
softmax and ADD DequantizeLinear -> the float op -> QuantizeLinear (which onnxruntime fuses
into its quantized kernels where it has them); a reshape (TFLite's RESHAPE, burn's copy)
a Reshape. Layout NCHW: an input of one channel keeps its bytes, another is transposed from
the NHWC bytes burn takes (and a reshape's 4-D side from or to NHWC where the element order
differs). onnxruntime rounds its requantization in float where TFLM uses fixed point, so
outputs may differ by an LSB (the benchmark reports how many do). Other ops raise ValueError
naming them.

Activations are uint8 by default: each int8 value + 128 with its zero point + 128, the same
real numbers, and the form onnxruntime's quantized kernels are fast on (uint8 activations,
int8 weights; with int8 activations onnxruntime-web's QLinearConv took 4x as long on KWS);
"int8" keeps TFLite's int8 activations. Weights stay int8 either way.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8  # what onnxruntime-web 1.30 reads (it refuses the onnx package's default, 14)


class _Twin:
    def __init__(self, graph, activations):
        self.g = graph
        self.act = np.dtype(activations)
        self.shift = 128 if self.act == np.uint8 else 0
        self.nodes, self.inits, self.consts = [], [], set()
        self.names = {}  # burn tensor id -> ONNX name

    def const(self, name, value):
        if name not in self.consts:  # a tensor's scale serves its producer and consumers
            self.consts.add(name)
            self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def qparams(self, tid):
        t = self.g.tensors[tid]
        return (self.const("s%d" % tid, np.float32(t.scale)),
                self.const("z%d" % tid, self.act.type(t.zero_point + self.shift)))

    def node(self, op, ins, out, **attrs):
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def clip(self, op, tid, name):
        lo, hi = op.params.get("act_min", -128), op.params.get("act_max", 127)
        if lo <= -128 and hi >= 127:
            return name
        return self.node("Clip", [name, self.const("lo%d" % tid, self.act.type(lo + self.shift)),
                                  self.const("hi%d" % tid, self.act.type(hi + self.shift))],
                         "c%d" % tid)

    def conv(self, k, op, w, group, strides, pads):
        src, dst = op.inputs[0], op.outputs[0]
        m = op.consts["mult"].astype(np.float64) * np.exp2(
            op.consts["shift"].astype(np.float64) - 31)
        w_scale = m * self.g.tensors[dst].scale / self.g.tensors[src].scale
        xs, xz = self.qparams(src)
        ys, yz = self.qparams(dst)
        ins = [self.names[src], xs, xz, self.const("w%d" % k, w),
               self.const("ws%d" % k, w_scale.astype(np.float32)),
               self.const("wz%d" % k, np.zeros(w.shape[0], np.int8)), ys, yz,
               self.const("b%d" % k, op.consts["bias"].astype(np.int32))]
        out = self.node("QLinearConv", ins, "q%d" % dst, group=group,
                        kernel_shape=list(w.shape[2:]), strides=strides, pads=pads)
        return self.clip(op, dst, out)

    def reshape(self, k, name, src_shape, dst_shape):
        """Reshape of NHWC shape `src_shape` into `dst_shape` (element order NHWC, as
        TFLite's), on the twin's NCHW tensors: a 4-D side whose order differs (more than
        one channel and more than one pixel) is transposed."""
        def nchw_differs(shape):
            return len(shape) == 4 and shape[3] > 1 and shape[1] * shape[2] > 1

        if nchw_differs(src_shape):
            name = self.node("Transpose", [name], "t%d" % k, perm=[0, 2, 3, 1])
        if nchw_differs(dst_shape):
            shape = np.array(dst_shape, np.int64)
            name = self.node("Reshape", [name, self.const("shape%d" % k, shape)], "r%d" % k)
            return self.node("Transpose", [name], "o%d" % k, perm=[0, 3, 1, 2])
        if len(dst_shape) == 4:
            n, h, w, c = dst_shape
            dst_shape = [n, c, h, w]
        shape = np.array(dst_shape, np.int64)
        return self.node("Reshape", [name, self.const("shape%d" % k, shape)], "o%d" % k)

    def float_op(self, op, kind, **attrs):
        """DequantizeLinear of each input, float op `kind` with `attrs`, QuantizeLinear."""
        dst = op.outputs[0]
        xs = [self.node("DequantizeLinear", [self.names[i], *self.qparams(i)],
                        "d%d_%d" % (dst, j)) for j, i in enumerate(op.inputs)]
        ys, yz = self.qparams(dst)
        y = self.node(kind, xs, "f%d" % dst, **attrs)
        out = self.node("QuantizeLinear", [y, ys, yz], "q%d" % dst)
        return self.clip(op, dst, out)


def _pads(op, src_shape, dst_shape, kh, kw):
    p = op.params
    pads = []
    for axis, k, stride, first in ((1, kh, p["stride_h"], p["pad_top"]),
                                   (2, kw, p["stride_w"], p["pad_left"])):
        total = max((dst_shape[axis] - 1) * stride + k - src_shape[axis], 0)
        pads.append((first, total - first))
    return [pads[0][0], pads[1][0], pads[0][1], pads[1][1]], [p["stride_h"], p["stride_w"]]


def onnx_twin(graph, activations="uint8"):
    """The ONNX bytes of burn int8 graph `graph` (burn.host.importers.tflite's result, one
    NHWC input) with `activations` "uint8" or "int8" (input x, output y); ValueError for an
    op or shape the twin has no form for."""
    t = _Twin(graph, activations)
    elem = TensorProto.UINT8 if t.act == np.uint8 else TensorProto.INT8
    (tid, shape), = graph.inputs
    n, h, w, c = shape
    t.names[tid] = "x"
    if c != 1:
        t.names[tid] = t.node("Transpose", ["x"], "xt", perm=[0, 3, 1, 2])
        x_shape = [n, h, w, c]
    else:
        x_shape = [n, 1, h, w]
    for k, op in enumerate(graph.ops):
        src, dst = op.inputs[0], op.outputs[0]
        s_shape, d_shape = graph.tensors[src].shape, graph.tensors[dst].shape
        wt = op.consts.get("w")
        if op.op == "conv2d" and op.params["groups"] == 1:
            pads, strides = _pads(op, s_shape, d_shape, wt.shape[1], wt.shape[2])
            out = t.conv(k, op, wt.transpose(0, 3, 1, 2).copy(), 1, strides, pads)
        elif op.op == "depthwise_conv2d" and op.params["depth_mult"] == 1:
            pads, strides = _pads(op, s_shape, d_shape, wt.shape[1], wt.shape[2])
            out = t.conv(k, op, wt.transpose(3, 0, 1, 2).copy(), wt.shape[3], strides, pads)
        elif op.op == "fully_connected" and int(np.prod(s_shape)) == wt.shape[1]:
            shape = np.array([s_shape[0], wt.shape[1], 1, 1], np.int64)
            t.names[src] = t.node("Reshape", [t.names[src], t.const("in_shape%d" % k, shape)],
                                  "r%d" % src)
            out = t.conv(k, op, wt.reshape(wt.shape + (1, 1)), 1, [1, 1], [0, 0, 0, 0])
            shape = np.array(d_shape, np.int64)
            out = t.node("Reshape", [out, t.const("out_shape%d" % k, shape)], "o%d" % dst)
        elif op.op == "avg_pool2d":
            p = op.params
            pads, strides = _pads(op, s_shape, d_shape, p["kh"], p["kw"])
            out = t.float_op(op, "AveragePool", kernel_shape=[p["kh"], p["kw"]],
                             strides=strides, pads=pads)
        elif op.op == "add" and s_shape == graph.tensors[op.inputs[1]].shape:
            out = t.float_op(op, "Add")
        elif op.op == "copy":  # TFLite's RESHAPE: the same int8 bytes, another shape
            out = t.reshape(k, t.names[src], s_shape, d_shape)
        elif op.op == "softmax" and len(s_shape) == 2:
            out = t.float_op(op, "Softmax", axis=-1)
        else:
            raise ValueError("op %d (%s) has no form in the ONNX twin" % (k, op.op))
        t.names[dst] = out
    (oid, o_shape), = graph.outputs
    final = t.node("Identity", [t.names[oid]], "y")
    model = helper.make_model(helper.make_graph(
        t.nodes, "twin", [helper.make_tensor_value_info("x", elem, x_shape)],
        [helper.make_tensor_value_info(final, elem, list(o_shape))], t.inits),
        opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    onnx.checker.check_model(model)
    return model.SerializeToString()

"""A MobileNetV1-0.25 int8 .tflite at 96x96x3 (the shape of MLPerf Tiny's visual wake words
reference), built with the real flatbuffers schema (`tflite_builder`) from seeded random
weights.

    data = mobilenet_v1(seed=0)          # bytes of the .tflite model, about 220 KB

conv 3x3/2 to 8 channels, 13 depthwise-separable blocks (depthwise 3x3 + pointwise 1x1,
ReLU6 after each), average pool, reshape, fully connected to 2 classes, softmax: about 7.5 M
multiply-accumulates. Each layer is calibrated as post-training quantization would do it: a
float forward pass (numpy) of the dequantized weights on random images sets the output scale
from the largest value seen, so the int8 activations use their range instead of saturating.
"""

import numpy as np
from tflite_builder import ModelBuilder

# (stride, output channels) of the 13 depthwise-separable blocks at alpha 0.25
BLOCKS = ((1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128), (1, 128), (1, 128),
          (1, 128), (1, 128), (1, 128), (2, 256), (1, 256))
STEM_CHANNELS = 8
CLASSES = 2
RELU6 = 3
INPUT_SCALE, INPUT_ZP = 1.0 / 128, 0
CALIBRATION_IMAGES = 4


def _same_pad(size, k, stride):
    """(output size, padding before, padding after) of TFLite's SAME padding."""
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return out, total // 2, total - total // 2


def _windows(x, k, stride):
    """x (n, h, w, c) padded SAME -> (n, oh, ow, k, k, c) views of its k x k windows."""
    h, w = x.shape[1:3]
    oh, pt, pb = _same_pad(h, k, stride)
    ow, pl, pr = _same_pad(w, k, stride)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))
    return win[:, ::stride, ::stride][:, :oh, :ow].transpose(0, 1, 2, 4, 5, 3)


def _fake_quant(x, scale, zp):
    """x rounded to the int8 grid of (scale, zp), back in float."""
    return (np.clip(np.round(x / scale) + zp, -128, 127) - zp) * scale


class _Net:
    """Adds calibrated layers to a ModelBuilder while carrying float activations along."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.mb = ModelBuilder()
        self.count = 0

    def _weights(self, shape, fan_in, axis):
        """Symmetric per-channel int8 weights of He-initialised floats along `axis`:
        (int8 array, scales, dequantized floats)."""
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        w *= self.rng.uniform(0.5, 1.5, shape[axis]).reshape(
            [-1 if i == axis else 1 for i in range(len(shape))])
        reduce = tuple(i for i in range(len(shape)) if i != axis)
        scales = (np.abs(w).max(axis=reduce) / 127).astype(np.float32)
        bshape = [-1 if i == axis else 1 for i in range(len(shape))]
        wq = np.round(w / scales.reshape(bshape)).astype(np.int8)
        return wq, scales, wq * scales.reshape(bshape)

    def _bias(self, channels, in_scale, w_scales):
        b = self.rng.normal(0.0, 0.1, channels)
        bscale = (in_scale * w_scales).astype(np.float32)
        bq = np.round(b / bscale).astype(np.int32)
        return bq, bscale, bq * bscale

    def _tensors(self, kind, wq, w_scales, qdim, bq, bscale):
        self.count += 1
        name = "%s%d" % (kind, self.count)
        tw = self.mb.tensor(name + "_w", wq.shape, "int8", data=wq, scale=list(w_scales),
                            zero_point=[0] * len(w_scales), quantized_dimension=qdim)
        tb = self.mb.tensor(name + "_b", bq.shape, "int32", data=bq, scale=list(bscale),
                            zero_point=[0] * len(bscale))
        return name, tw, tb

    def _output(self, name, y, relu6):
        """The output tensor of float values `y`, its scale set by their range."""
        if relu6:
            y = np.clip(y, 0.0, 6.0)
            scale, zp = float(np.float32(max(y.max(), 1e-3) / 255)), -128
        else:
            bound = max(np.abs(y).max(), 1e-3)
            scale, zp = float(np.float32(bound / 127)), 0
        t = self.mb.tensor(name, (1,) + y.shape[1:], "int8", scale=scale, zero_point=zp)
        return t, _fake_quant(y, scale, zp), scale

    def conv(self, x, tx, in_scale, k, stride, out_c, depthwise=False, relu6=True):
        """A CONV_2D (or DEPTHWISE_CONV_2D) with SAME padding: (tensor, floats, scale)."""
        in_c = x.shape[-1]
        win = _windows(x, k, stride)
        if depthwise:
            wq, ws, wf = self._weights((1, k, k, out_c), k * k, 3)
            bq, bs, bf = self._bias(out_c, in_scale, ws)
            y = np.einsum("nhwijc,ijc->nhwc", win, wf[0]) + bf
            name, tw, tb = self._tensors("dw", wq, ws, 3, bq, bs)
            opname, options = "DEPTHWISE_CONV_2D", dict(DepthMultiplier=1)
            opts_name = "DepthwiseConv2DOptions"
        else:
            wq, ws, wf = self._weights((out_c, k, k, in_c), k * k * in_c, 0)
            bq, bs, bf = self._bias(out_c, in_scale, ws)
            y = np.einsum("nhwijc,oijc->nhwo", win, wf) + bf
            name, tw, tb = self._tensors("conv", wq, ws, 0, bq, bs)
            opname, options, opts_name = "CONV_2D", {}, "Conv2DOptions"
        ty, yq, scale = self._output(name, y, relu6)
        self.mb.op(opname, [tx, tw, tb], [ty], opts_name, Padding=0, StrideH=stride,
                   StrideW=stride, FusedActivationFunction=RELU6 if relu6 else 0, **options)
        return ty, yq, scale

    def head(self, x, tx, scale, zp):
        """Average pool over the whole map, reshape, fully connected, softmax."""
        h, w, c = x.shape[1:]
        tp = self.mb.tensor("pool", (1, 1, 1, c), "int8", scale=scale, zero_point=zp)
        self.mb.op("AVERAGE_POOL_2D", [tx], [tp], "Pool2DOptions", Padding=1, StrideH=1,
                   StrideW=1, FilterHeight=h, FilterWidth=w)
        pooled = _fake_quant(x.mean(axis=(1, 2)), scale, zp)
        shape = self.mb.tensor("shape", (2,), "int32", data=[1, c])
        tf = self.mb.tensor("flat", (1, c), "int8", scale=scale, zero_point=zp)
        self.mb.op("RESHAPE", [tp, shape], [tf])
        wq, ws, wf = self._weights((CLASSES, c), c, 0)
        bq, bs, bf = self._bias(CLASSES, scale, ws)
        _name, tw, tb = self._tensors("fc", wq, ws, 0, bq, bs)
        tl, _logits, _s = self._output("logits", pooled @ wf.T + bf, relu6=False)
        self.mb.op("FULLY_CONNECTED", [tf, tw, tb], [tl], "FullyConnectedOptions")
        ty = self.mb.tensor("probs", (1, CLASSES), "int8", scale=1.0 / 256, zero_point=-128)
        self.mb.op("SOFTMAX", [tl], [ty], "SoftmaxOptions", Beta=1.0)
        return ty


def mobilenet_v1(seed=0, size=96):
    """Bytes of the int8 MobileNetV1-0.25 .tflite for `size` x `size` x 3 images (input
    scale 1/128, zero point 0), weights and scales from `seed`."""
    net = _Net(seed)
    images = net.rng.integers(-128, 128, (CALIBRATION_IMAGES, size, size, 3))
    x = (images - INPUT_ZP) * INPUT_SCALE
    tin = net.mb.tensor("image", (1, size, size, 3), "int8", scale=INPUT_SCALE,
                        zero_point=INPUT_ZP)
    t, x, scale = net.conv(x, tin, INPUT_SCALE, 3, 2, STEM_CHANNELS)
    for stride, out_c in BLOCKS:
        t, x, scale = net.conv(x, t, scale, 3, stride, x.shape[-1], depthwise=True)
        t, x, scale = net.conv(x, t, scale, 1, 1, out_c)
    out = net.head(x, t, scale, -128)
    return net.mb.finish([tin], [out])

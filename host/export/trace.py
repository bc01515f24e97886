"""Trace a `burn.nn` model into a float inference graph in NHWC, ready to quantize.

A Sequential (nested ones included) is walked leaf by leaf. BatchNorm2d is folded into the
convolution before it (or becomes a 1x1 depthwise convolution where there is none), ReLU
and ReLU6 become the fused activation of the op before them, Dropout and Identity vanish,
and Flatten only renames a buffer: the PyTorch (C, H, W) element order it implies is kept
by permuting the columns of the Linear layer that reads it. The result is a `Trace`: the
values (activation tensors, graph shapes) and the layers between them, with float32
weights already in the layouts of the `burn.graph` kernels, plus the list of (module,
value) steps that the calibration runs to observe every value on real data.
"""

import numpy as np

from burn import nn
from burn import shape as _sh
from burn.graph.fixedpoint import ACT_NONE, ACT_RELU, ACT_RELU6

from ..convert import to_numpy

_ELEMENTWISE = {"Sigmoid": "logistic", "Tanh": "tanh"}
SUPPORTED = ("Sequential", "Conv2d", "BatchNorm2d", "ReLU", "ReLU6", "MaxPool2d",
             "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "Linear", "Dropout", "Identity",
             "Softmax", "Sigmoid", "Tanh")
# Ops whose output may take a fused activation clamp.
_FUSES_ACT = ("conv2d", "depthwise_conv2d", "fully_connected", "max_pool2d", "avg_pool2d")


class ExportError(ValueError):
    """A model (or a part of it, named by its path) that cannot be exported."""


class Value:
    """An activation: its graph shape (NHWC, or [1, features]) and the name of the module
    that produced it."""

    def __init__(self, index, shape, name):
        self.index = index
        self.shape = tuple(int(d) for d in shape)
        self.name = name


class Layer:
    """One graph op over float weights: `kind` (a .bst op name), input and output value
    indices, weights `w` / bias `b` (numpy float32, graph layout) or None, integer
    `params`, the fused activation code `act`, and `path`, the modules it came from."""

    def __init__(self, kind, src, dst, path, w=None, b=None, params=None):
        self.kind = kind
        self.src = src
        self.dst = dst
        self.path = path
        self.w = w
        self.b = b
        self.params = dict(params or {})
        self.act = ACT_NONE


class Trace:
    """The traced model: `values`, `layers` in execution order, `steps` [(module, value
    index)], the graph input and output value indices, and `output_shape`, the graph
    output's shape ([1, features] when the model ends flattened)."""

    def __init__(self):
        self.values = []
        self.layers = []
        self.steps = []
        self.input = 0
        self.output = 0
        self.output_shape = ()

    def value(self, shape, name):
        self.values.append(Value(len(self.values), shape, name))
        return len(self.values) - 1


def _leaves(module, path):
    """(dotted path, module) of every non-container module, depth first."""
    if type(module).forward is nn.Sequential.forward:
        for name, child in module.named_children():
            yield from _leaves(child, path + "." + name if path else name)
    else:
        yield path, module


def _array(t):
    return to_numpy(t).astype(np.float64)


class _Tracer:
    def __init__(self, sample_shape):
        self.t = Trace()
        self.sample_shape = tuple(sample_shape)
        if len(sample_shape) == 3:
            c, h, w = sample_shape
            self.cur = self.t.value((1, h, w, c), "input")
            self.flat = False
        elif len(sample_shape) == 1:
            self.cur = self.t.value((1, sample_shape[0]), "input")
            self.flat = True
        else:
            raise ExportError("input samples must be [C, H, W] or [features], got shape %s"
                              % (self.sample_shape,))
        self.perm = None  # graph element j holds model feature perm[j] (after Flatten)
        self.last = None  # the layer that produced self.cur, while it may still fuse

    # -- bookkeeping ----------------------------------------------------------------------
    def fail(self, path, module, why):
        raise ExportError("cannot export module '%s' (%s): %s" % (path, type(module).__name__,
                                                                  why))

    def add(self, kind, module, path, shape, **fields):
        dst = self.t.value(shape, path)
        layer = Layer(kind, self.cur, dst, path, **fields)
        self.t.layers.append(layer)
        self.t.steps.append((module, dst))
        self.cur = dst
        self.last = layer
        return layer

    def alias(self, module):
        """A module that changes no element of the current value."""
        self.t.steps.append((module, self.cur))

    def nhwc(self, path, module):
        if self.flat:
            self.fail(path, module, "needs a [N, C, H, W] input, got a flattened one")
        return self.t.values[self.cur].shape

    # -- one method per module type --------------------------------------------------------
    def conv(self, path, m):
        n, ih, iw, ic = self.nhwc(path, m)
        if ic != m.in_channels:
            self.fail(path, m, "expects %d input channels, gets %d" % (m.in_channels, ic))
        kh, kw = m.kernel_size
        (sh, sw), (dh, dw) = m.stride, m.dilation
        if m.padding == "same":
            (pt, pb), (pl, pr) = _sh.same_padding(kh, dh), _sh.same_padding(kw, dw)
        elif m.padding == "valid":
            pt = pb = pl = pr = 0
        else:
            pt = pb = m.padding[0]
            pl = pr = m.padding[1]
        oh = _sh.conv_out(ih, kh, sh, pt, pb, dh)
        ow = _sh.conv_out(iw, kw, sw, pl, pr, dw)
        if oh < 1 or ow < 1:
            self.fail(path, m, "a %dx%d input gives an empty output" % (ih, iw))
        w = _array(m.weight)  # [oc, ic / groups, kh, kw]
        oc = w.shape[0]
        b = _array(m.bias) if m.bias is not None else np.zeros(oc)
        params = {"stride_h": sh, "stride_w": sw, "dil_h": dh, "dil_w": dw, "pad_top": pt,
                  "pad_left": pl}
        if m.groups == ic and ic > 1:
            params["depth_mult"] = oc // ic
            w = w.reshape(oc, kh, kw).transpose(1, 2, 0)[None]  # [1, kh, kw, oc]
            kind = "depthwise_conv2d"
        else:
            params["groups"] = m.groups
            w = w.transpose(0, 2, 3, 1)  # [oc, kh, kw, ic / groups]
            kind = "conv2d"
        self.add(kind, m, path, (n, oh, ow, oc), w=w, b=b, params=params)

    def batch_norm(self, path, m):
        n, h, w, c = self.nhwc(path, m)
        if m.running_mean is None:
            self.fail(path, m, "without running statistics it normalises with the batch's "
                               "own, which an exported model cannot")
        if c != m.num_features:
            self.fail(path, m, "expects %d channels, gets %d" % (m.num_features, c))
        scale = 1.0 / np.sqrt(_array(m.running_var) + m.eps)
        if m.weight is not None:
            scale = scale * _array(m.weight)
        shift = -_array(m.running_mean) * scale
        if m.bias is not None:
            shift = shift + _array(m.bias)
        last = self.last
        if last is not None and last.kind in ("conv2d", "depthwise_conv2d") and \
                last.act == ACT_NONE:
            channel_axis = 0 if last.kind == "conv2d" else 3
            shape = [1, 1, 1, 1]
            shape[channel_axis] = c
            last.w = last.w * scale.reshape(shape)
            last.b = last.b * scale + shift
            self.alias(m)
            last.path += "+" + path
            return
        params = {"depth_mult": 1, "stride_h": 1, "stride_w": 1, "dil_h": 1, "dil_w": 1,
                  "pad_top": 0, "pad_left": 0}
        self.add("depthwise_conv2d", m, path, (n, h, w, c), w=scale.reshape(1, 1, 1, c),
                 b=shift, params=params)

    def relu(self, path, m, code):
        last = self.last
        if last is not None and last.kind in _FUSES_ACT:
            last.act = ACT_RELU6 if ACT_RELU6 in (last.act, code) else ACT_RELU
            last.path += "+" + path
            self.alias(m)
            return
        layer = self.add("clamp", m, path, self.t.values[self.cur].shape)
        layer.act = code

    def pool(self, path, m, kind):
        n, ih, iw, c = self.nhwc(path, m)
        kh, kw = _sh.pair(path, "kernel_size", m.kernel_size)
        sh, sw = _sh.pair(path, "stride", m.stride)
        ph, pw = _sh.pair(path, "padding", m.padding)
        dil = _sh.pair(path, "dilation", getattr(m, "dilation", 1))
        if dil != (1, 1):
            self.fail(path, m, "dilated pooling is not supported")
        oh = _sh.pool_out(ih, kh, sh, ph, 1, m.ceil_mode)
        ow = _sh.pool_out(iw, kw, sw, pw, 1, m.ceil_mode)
        if kind == "avg_pool2d":
            floor = (_sh.pool_out(ih, kh, sh, ph, 1, False),
                     _sh.pool_out(iw, kw, sw, pw, 1, False))
            if (oh, ow) != floor:
                self.fail(path, m, "ceil_mode changes the output size; the exported average "
                                   "counts only in-bounds cells")
            if (ph or pw) and m.count_include_pad:
                self.fail(path, m, "padding with count_include_pad=True is not supported "
                                   "(the exported average counts only in-bounds cells)")
        if oh < 1 or ow < 1:
            self.fail(path, m, "a %dx%d input gives an empty output" % (ih, iw))
        params = {"kh": kh, "kw": kw, "stride_h": sh, "stride_w": sw, "pad_top": ph,
                  "pad_left": pw}
        self.add(kind, m, path, (n, oh, ow, c), params=params)

    def adaptive(self, path, m):
        n, h, w, c = self.nhwc(path, m)
        size = m.output_size
        oh, ow = size if isinstance(size, (tuple, list)) else (size, size)
        oh, ow = h if oh is None else oh, w if ow is None else ow
        if (oh, ow) == (h, w):
            self.alias(m)
        elif (oh, ow) == (1, 1):
            params = {"outer": n, "reduce": h * w, "inner": c}
            self.add("mean", m, path, (n, 1, 1, c), params=params)
        elif h % oh == 0 and w % ow == 0:
            params = {"kh": h // oh, "kw": w // ow, "stride_h": h // oh, "stride_w": w // ow,
                      "pad_top": 0, "pad_left": 0}
            self.add("avg_pool2d", m, path, (n, oh, ow, c), params=params)
        else:
            self.fail(path, m, "output size %s does not divide the %dx%d input" % (size, h, w))

    def flatten(self, path, m):
        if (m.start_dim, m.end_dim) not in ((1, -1), (1, 3)) and not self.flat:
            self.fail(path, m, "only Flatten(start_dim=1) (the default) is supported")
        if not self.flat:
            _n, h, w, c = self.t.values[self.cur].shape
            # graph (NHWC) element (y, x, ch) is model (NCHW) feature ch * h * w + y * w + x
            order = np.arange(c * h * w).reshape(c, h, w).transpose(1, 2, 0).reshape(-1)
            self.perm = None if min(c, h * w) == 1 else order
            self.flat = True
        self.alias(m)

    def linear(self, path, m):
        if not self.flat:
            self.fail(path, m, "needs a flattened [N, features] input; add nn.Flatten()")
        features = int(np.prod(self.t.values[self.cur].shape))
        if features != m.in_features:
            self.fail(path, m, "expects %d input features, gets %d" % (m.in_features, features))
        w = _array(m.weight)
        if self.perm is not None:
            w = w[:, self.perm]
            self.perm = None
        b = _array(m.bias) if m.bias is not None else np.zeros(m.out_features)
        self.add("fully_connected", m, path, (1, m.out_features), w=w, b=b)

    def softmax(self, path, m):
        rank = 2 if self.flat else 4
        dim = 1 if m.dim is None else m.dim
        if dim % rank != 1:
            self.fail(path, m, "softmax over dim %d; only the channel/feature dim 1 is "
                               "supported" % m.dim)
        self.elementwise(path, m, "softmax")

    def elementwise(self, path, m, kind):
        if kind == "softmax" and self.perm is not None:
            self.fail(path, m, "softmax over a flattened feature map is not supported")
        self.add(kind, m, path, self.t.values[self.cur].shape)

    def module(self, path, m):
        name = type(m).__name__
        if isinstance(m, nn.Conv2d):
            self.conv(path, m)
        elif isinstance(m, nn.BatchNorm2d):
            self.batch_norm(path, m)
        elif isinstance(m, (nn.ReLU, nn.ReLU6)):
            self.relu(path, m, ACT_RELU6 if isinstance(m, nn.ReLU6) else ACT_RELU)
        elif isinstance(m, nn.MaxPool2d):
            self.pool(path, m, "max_pool2d")
        elif isinstance(m, nn.AvgPool2d):
            self.pool(path, m, "avg_pool2d")
        elif isinstance(m, nn.AdaptiveAvgPool2d):
            self.adaptive(path, m)
        elif isinstance(m, nn.Flatten):
            self.flatten(path, m)
        elif isinstance(m, nn.Linear):
            self.linear(path, m)
        elif isinstance(m, (nn.Dropout, nn.Identity)):
            self.alias(m)
        elif isinstance(m, nn.Softmax):
            self.softmax(path, m)
        elif isinstance(m, (nn.Sigmoid, nn.Tanh)):
            self.elementwise(path, m, _ELEMENTWISE[name])
        else:
            self.fail(path, m, "not supported; the exporter handles " + ", ".join(SUPPORTED))


def trace(model, sample_shape):
    """Trace `model` for inputs of `sample_shape` (one sample, no batch axis: [C, H, W] or
    [features]) into a Trace. Raises ExportError naming the first module it cannot
    export, with its dotted path."""
    if not isinstance(model, nn.Module):
        raise TypeError("export: expected a burn.nn Module, got " + type(model).__name__)
    tracer = _Tracer(sample_shape)
    for path, m in _leaves(model, ""):
        tracer.module(path or "<model>", m)
    t = tracer.t
    if not t.layers:
        raise ExportError("the model computes nothing to export (no ops after tracing)")
    t.output = tracer.cur
    shape = t.values[t.output].shape
    t.output_shape = (1, int(np.prod(shape))) if tracer.flat else shape
    if tracer.perm is not None:
        raise ExportError("the model ends with a Flatten of a feature map; its (C, H, W) "
                          "element order has no graph equivalent without a Linear after it")
    for layer in t.layers:
        if layer.w is not None:
            layer.w = np.ascontiguousarray(layer.w, dtype=np.float32)
            layer.b = np.ascontiguousarray(layer.b, dtype=np.float32)
    return t

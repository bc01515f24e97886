"""Trace a `burn.nn` model into a float inference graph in NHWC, ready to quantize.

The model's real forward pass is recorded (`record.py`), then lowered node by node into
graph layers and folded:
- BatchNorm2d goes into the convolution (or the Linear, through a reshape to
  [N, features, 1, 1]) before it, or else becomes a 1x1 depthwise convolution;
- ReLU, ReLU6 and clamps to [-1, 1] become the fused activation of the op before them;
- `x * c`, `x / c`, `x + c` go into the weights and bias of the op before them where it
  has no other user (else a 1x1 depthwise op, or a diagonal fully connected one);
- a sum over dims followed by the division by their size is one `mean` op;
- zero padding before a convolution becomes the convolution's own padding;
- reshapes rename a buffer: the PyTorch (C, H, W) element order of a flattened feature map
  is kept by permuting the columns of the Linear that reads it, and a copy is made only
  where a kernel needs the new shape and the buffer's producer cannot write it.
Dropout and Identity leave nothing. Any other operation raises ExportError naming the
module and the op. The result is a `Trace`: the values (graph shapes, each with the
recorded node whose result it holds, which calibration observes) and the layers between
them, with float32 weights in the layouts of the `burn.graph` kernels.
"""

import numpy as np

from burn import nn
from burn import shape as _sh
from burn.graph import unary
from burn.graph.fixedpoint import ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1

from ..convert import to_numpy
from .record import ExportError, record

# The burn.nn layers that export; any other module exports when its forward uses only the
# tensor operations listed in docs/export.md.
SUPPORTED = ("Sequential", "Conv2d", "ConvTranspose2d", "BatchNorm2d", "Linear", "MaxPool2d",
             "AvgPool2d", "AdaptiveAvgPool2d", "Conv1d", "BatchNorm1d", "MaxPool1d",
             "AvgPool1d", "AdaptiveAvgPool1d", "ReLU", "ReLU6", "LeakyReLU", "Hardsigmoid",
             "Sigmoid", "Tanh", "Softmax", "Flatten", "Dropout", "Identity")
# Ops whose output may take a fused activation clamp.
_FUSES_ACT = ("conv2d", "depthwise_conv2d", "fully_connected", "max_pool2d", "avg_pool2d",
              "add", "mul", "transpose_conv2d", "sub")
_WEIGHTED = ("conv2d", "depthwise_conv2d", "fully_connected", "transpose_conv2d")
# Ops whose output tensor may take any shape of its size (the kernel reads sizes only).
_ANY_SHAPE = ("fully_connected", "add", "mul", "mean", "logistic", "tanh", "clamp", "copy",
              "concat", "unary", "sub", "batch_matmul", "maximum", "minimum")
_CLAMPS = {(0.0, None): ACT_RELU, (0.0, 6.0): ACT_RELU6, (-1.0, 1.0): ACT_RELU_N1_TO_1}
TRACE_BATCH = 2


class Value:
    """An activation: its graph shape (NHWC, or [1, features]), the name of the module
    that produced it and `node`, the recorded node whose result it holds."""

    def __init__(self, index, shape, name, node=0):
        self.index = index
        self.shape = tuple(int(d) for d in shape)
        self.name = name
        self.node = node


class Layer:
    """One graph op over float weights: `kind` (a .bst op name), input value indices `ins`
    (`src` is the first), output value index `dst`, weights `w` / bias `b` (numpy float32,
    graph layout) or None, `params`, the fused activation code `act`, and `path`, the
    modules it came from."""

    def __init__(self, kind, ins, dst, path, w=None, b=None, params=None):
        self.kind = kind
        self.ins = list(ins) if isinstance(ins, (list, tuple)) else [ins]
        self.dst = dst
        self.path = path
        self.w = w
        self.b = b
        self.params = dict(params or {})
        self.act = ACT_NONE

    @property
    def src(self):
        """The first input value."""
        return self.ins[0]


class Trace:
    """The traced model: `values`, `layers` in execution order, the graph input and output
    value indices, `output_shape` (the graph output's shape, [1, features] when the model
    returns [N, features]), `output_rank` (the rank of the model's output) and `nodes`, the
    count of recorded nodes (a calibration run must record as many)."""

    def __init__(self):
        self.values = []
        self.layers = []
        self.input = 0
        self.output = 0
        self.output_shape = ()
        self.output_rank = 0
        self.nodes = 0

    def value(self, shape, name, node=0):
        self.values.append(Value(len(self.values), shape, name, node))
        return len(self.values) - 1


def _array(t):
    return to_numpy(t).astype(np.float64)


def _dense_transpose_kernel(w, groups, dilation):
    """A ConvTranspose2d weight [ic, oc / groups, kh, kw] as the one-group, undilated
    [ic, oc, kh', kw'] kernel of the .bst transpose_conv2d op: other groups' blocks and the
    taps a dilation skips are zeros, which add nothing (exactly, in float and in int8), at
    `groups` times the weights and multiplies."""
    if groups == 1 and tuple(dilation) == (1, 1):
        return w
    ic, ocg, kh, kw = w.shape
    dh, dw = dilation
    dense = np.zeros((ic, ocg * groups, (kh - 1) * dh + 1, (kw - 1) * dw + 1), w.dtype)
    icg = ic // groups
    for g in range(groups):
        dense[g * icg:(g + 1) * icg, g * ocg:(g + 1) * ocg, ::dh, ::dw] = w[g * icg:(g + 1) * icg]
    return dense


def _nhwc_order(c, h, w):
    """Model (C, H, W) element index of each NHWC graph element."""
    return np.arange(c * h * w).reshape(c, h, w).transpose(1, 2, 0).reshape(-1)


def _chw(shape):
    """(C, H, W) of an [N, C, H, W] shape, or of an [N, C, L] one as [N, C, 1, L] (a 1-D
    value lives in the graph as the 2-D one with H = 1)."""
    return tuple(shape[1:]) if len(shape) == 4 else (shape[1], 1, shape[2])


def _conv_geometry(m):
    """(kernel, stride, dilation, padding, weight [oc, ic / groups, kh, kw]) of a Conv2d, or
    of a Conv1d as the Conv2d with H = 1 (padding: a pair, 'same' or 'valid')."""
    w = _array(m.weight)
    if w.ndim == 4:
        return m.kernel_size, m.stride, m.dilation, m.padding, w
    pad = m.padding if isinstance(m.padding, str) else (0, m.padding[0])
    return (1, m.kernel_size[0]), (1, m.stride[0]), (1, m.dilation[0]), pad, w[:, :, None]


class _At:
    """How a recorded node lives in the graph: value `vid`, the graph shape its users see,
    and for [N, features] nodes the feature order `perm` (graph element j holds model
    feature perm[j]; None when they agree)."""

    def __init__(self, vid, gshape, flat, perm=None):
        self.vid = vid
        self.gshape = None if gshape is None else tuple(int(d) for d in gshape)
        self.flat = flat
        self.perm = perm


class _Lowering:
    def __init__(self, nodes):
        self.nodes = nodes
        self.t = Trace()
        self.t.nodes = len(nodes)
        self.at = {}
        self.pending_sum = {}
        self.pending_pad = {}
        self.producer = {}
        self.users = [[] for _ in nodes]
        for i, n in enumerate(nodes):
            for j in n.ins:
                self.users[j].append(i)
        self.path = "input"
        self.module = None

    # -- bookkeeping ----------------------------------------------------------------------
    def fail(self, why):
        kind = " (%s)" % type(self.module).__name__ if self.module is not None else ""
        raise ExportError("cannot export module '%s'%s: %s" % (self.path, kind, why))

    def graph_shape(self, shape):
        if shape[0] != TRACE_BATCH:
            self.fail("an op changes the batch dimension (shape %s)" % (shape,))
        if len(shape) in (3, 4):
            c, h, w = _chw(shape)
            return (1, h, w, c), False
        if len(shape) == 2:
            return (1, shape[1]), True
        self.fail("values of rank %d are not exported (only [N, C, H, W], [N, C, L] and "
                  "[N, features])" % len(shape))

    def src(self, i, k=0):
        """The _At of input k of node i."""
        j = self.nodes[i].ins[k]
        if j in self.pending_sum:
            self.fail("a sum is exported only as part of a mean (sum, then divide by the "
                      "count)")
        if j in self.pending_pad:
            self.fail("internal: padding folded into a convolution is read elsewhere")
        at = self.at[j]
        if at.flat is None:
            self._unplaced(j)
        return at

    def _unplaced(self, j):
        shape = self.nodes[j].shape
        if len(shape) == 3:
            self.fail("a value of shape %s whose elements are not in the graph's [N, C, 1, L] "
                      "order (an index that drops an axis, a transpose, or a reshape that "
                      "would need one) is exported only when a reshape back, a flatten, a "
                      "mean over all its elements or a matmul reads it" % (shape,))
        self.fail("values of rank %d are not exported (only [N, C, H, W], [N, C, L] and "
                  "[N, features])" % len(shape))

    def place(self, i, vid, order):
        """The _At of node i held in value `vid`, whose graph element k is node i's model
        element order[k]. A node of rank 3 is the [N, C, 1, L] one when its elements are in
        that one's graph order; any other node of another rank than 2 or 4 is only a step
        between reshapes (or the input of a mean over all its elements), such as the
        [N, H, W] result of an index that drops the channel axis."""
        shape = self.nodes[i].shape
        if shape[0] != TRACE_BATCH:
            self.fail("an op changes the batch dimension (shape %s)" % (shape,))
        if len(shape) == 2:
            same = np.array_equal(order, np.arange(len(order)))
            return _At(vid, (1, shape[1]), True, None if same else order)
        if len(shape) == 3 and not np.array_equal(order, _nhwc_order(*_chw(shape))):
            return _At(vid, None, None, order)
        if len(shape) in (3, 4):
            c, h, w = _chw(shape)
            if not np.array_equal(order, _nhwc_order(c, h, w)):
                self.fail("a reshape to %s that reorders the elements of the NHWC graph (it "
                          "would need a transpose, which the runtime lacks)" % (shape,))
            return _At(vid, (1, h, w, c), False)
        return _At(vid, None, None, order)

    def order(self, j):
        """Node j's model element index of each element of its graph value."""
        at, shape = self.at[j], self.nodes[j].shape
        if at.flat is None or (at.flat and at.perm is not None):
            return at.perm
        if at.flat:
            return np.arange(shape[1])
        return _nhwc_order(*_chw(shape))

    def real_users(self, j):
        """The users of node j, looking through reshapes."""
        for u in self.users[j]:
            if self.nodes[u].kind == "reshape":
                yield from self.real_users(u)
            else:
                yield u

    def sole_user(self, i, k=0):
        """True when node i is the only user of its input k's elements (reshapes
        included)."""
        j = self.nodes[i].ins[k]
        while self.nodes[j].kind == "reshape":
            j = self.nodes[j].ins[0]
        return list(self.real_users(j)) == [i]

    def add(self, kind, i, ins, **fields):
        """Append a layer computing node i from values `ins`; its output is a new value of
        node i's graph shape."""
        gshape, flat = self.graph_shape(self.nodes[i].shape)
        layer = self.emit(kind, i, ins, gshape, **fields)
        self.at[i] = _At(layer.dst, gshape, flat)
        return layer

    def emit(self, kind, i, ins, gshape, **fields):
        """Append a layer computing node i from values `ins` into a new value of graph
        shape `gshape`."""
        dst = self.t.value(gshape, self.nodes[i].path, i)
        layer = Layer(kind, ins, dst, self.nodes[i].path, **fields)
        self.t.layers.append(layer)
        self.producer[dst] = layer
        return layer

    def alias(self, i, at):
        """Node i holds the same elements as `at`, in the same graph value."""
        self.at[i] = at
        self.t.values[at.vid].node = i

    def fusable(self, i, kinds):
        """The layer producing node i's input when node i may fold into it, else None."""
        at = self.src(i)
        layer = self.producer.get(at.vid)
        if layer is None or layer.kind not in kinds or not self.sole_user(i):
            return None
        return layer

    def shaped(self, at, gshape):
        """A value holding `at`'s elements with graph shape `gshape`: the same one,
        reshaped in place when its producer allows and no op reads it yet, else a copy."""
        v = self.t.values[at.vid]
        if v.shape == tuple(gshape):
            return at.vid
        layer = self.producer.get(at.vid)
        read = any(at.vid in other.ins for other in self.t.layers)
        if layer is not None and layer.kind in _ANY_SHAPE and not read:
            v.shape = tuple(gshape)
            return at.vid
        dst = self.t.value(gshape, v.name + "/reshape", v.node)
        self.t.layers.append(Layer("copy", [at.vid], dst, v.name))
        self.producer[dst] = self.t.layers[-1]
        return dst

    def nhwc_src(self, i):
        at = self.src(i)
        if at.flat:
            self.fail("needs a [N, C, H, W] input, got a flattened one")
        return self.shaped(at, at.gshape), at.gshape

    # -- leaf modules ------------------------------------------------------------------------
    def conv(self, i, m):
        j = self.nodes[i].ins[0]
        extra = self.pending_pad.pop(j, None)
        at, et, el = extra if extra is not None else (self.src(i), 0, 0)
        if at.flat:
            self.fail("needs a [N, C, H, W] input, got a flattened one")
        src = self.shaped(at, at.gshape)
        ic = at.gshape[3]
        (kh, kw), (sh, sw), (dh, dw), padding, w = _conv_geometry(m)
        # the bottom and right padding follow from the output size
        if padding == "same":
            pt, pl = _sh.same_padding(kh, dh)[0], _sh.same_padding(kw, dw)[0]
        elif padding == "valid":
            pt = pl = 0
        else:
            pt, pl = padding
        oc = w.shape[0]
        b = _array(m.bias) if m.bias is not None else np.zeros(oc)
        params = {"stride_h": sh, "stride_w": sw, "dil_h": dh, "dil_w": dw,
                  "pad_top": pt + et, "pad_left": pl + el}
        if m.groups == ic and ic > 1:
            params["depth_mult"] = oc // ic
            w = w.reshape(oc, kh, kw).transpose(1, 2, 0)[None]  # [1, kh, kw, oc]
            kind = "depthwise_conv2d"
        else:
            params["groups"] = m.groups
            w = w.transpose(0, 2, 3, 1)  # [oc, kh, kw, ic / groups]
            kind = "conv2d"
        self.add(kind, i, [src], w=w, b=b, params=params)

    def transpose_conv(self, i, m):
        src, _ = self.nhwc_src(i)
        w = _dense_transpose_kernel(_array(m.weight), m.groups, m.dilation)
        b = _array(m.bias) if m.bias is not None else np.zeros(w.shape[1])
        params = {"stride_h": m.stride[0], "stride_w": m.stride[1], "pad_top": m.padding[0],
                  "pad_left": m.padding[1]}
        self.add("transpose_conv2d", i, [src], w=w.transpose(1, 2, 3, 0), b=b, params=params)

    def batch_norm(self, i, m):
        """BatchNorm2d (and BatchNorm1d, on [N, C, L] or [N, features]) folded into the op
        before it, else a 1x1 depthwise convolution (a diagonal fully connected one)."""
        at = self.src(i)
        if at.flat and not isinstance(m, nn.BatchNorm1d):
            self.fail("needs a [N, C, H, W] input, got a flattened one")
        if m.running_mean is None:
            self.fail("without running statistics it normalises with the batch's own, "
                      "which an exported model cannot")
        scale = 1.0 / np.sqrt(_array(m.running_var) + m.eps)
        if m.weight is not None:
            scale = scale * _array(m.weight)
        shift = -_array(m.running_mean) * scale
        if m.bias is not None:
            shift = shift + _array(m.bias)
        self.channel_affine(i, scale, shift)

    def channel_affine(self, i, scale, shift):
        """Node i = input * scale + shift, each a number or one value per channel (model
        order): folded into the weighted op before it, else a 1x1 depthwise convolution (a
        diagonal fully connected one on features)."""
        at = self.src(i)
        c = at.gshape[-1]
        per_channel = np.ndim(scale) > 0 or np.ndim(shift) > 0
        scale = np.broadcast_to(np.asarray(scale, np.float64), (c,))
        shift = np.broadcast_to(np.asarray(shift, np.float64), (c,))
        if at.perm is not None:  # graph feature j is model feature perm[j]
            scale, shift = scale[at.perm], shift[at.perm]
        last = self.fusable(i, _WEIGHTED)
        if last is not None and last.act == ACT_NONE and \
                (not per_channel or not at.flat or last.kind == "fully_connected"):
            if per_channel:  # along the op's output channels
                shape = [1] * last.w.ndim
                shape[3 if last.kind == "depthwise_conv2d" else 0] = c
                last.w, last.b = last.w * scale.reshape(shape), last.b * scale + shift
            else:
                last.w, last.b = last.w * scale[0], last.b * scale[0] + shift[0]
            last.path += "+" + self.path
            self.alias(i, at)
        elif at.flat:
            self.add("fully_connected", i, [at.vid], w=np.diag(scale), b=shift)
            self.at[i].perm = at.perm
        else:
            self.depthwise_affine(i, self.shaped(at, at.gshape), scale, shift)

    def depthwise_affine(self, i, src, scale, shift):
        c = len(shift)
        params = {"depth_mult": 1, "stride_h": 1, "stride_w": 1, "dil_h": 1, "dil_w": 1,
                  "pad_top": 0, "pad_left": 0}
        self.add("depthwise_conv2d", i, [src], w=np.asarray(scale).reshape(1, 1, 1, c),
                 b=np.asarray(shift), params=params)

    def pool(self, i, m, kind):
        kernel = _sh.pair(self.path, "kernel_size", m.kernel_size)
        stride = _sh.pair(self.path, "stride", m.stride)
        pad = _sh.pair(self.path, "padding", m.padding)
        dilation = _sh.pair(self.path, "dilation", getattr(m, "dilation", 1))
        self.window(i, kind, kernel, stride, pad, dilation,
                    kind == "avg_pool2d" and m.count_include_pad)

    def window(self, i, kind, kernel, stride, pad, dilation, count_include_pad):
        """A max or average pool: `pad` is (top, left); the bottom and right padding follow
        from the output size, which an average may not enlarge (ceil_mode)."""
        src, (_n, ih, iw, _c) = self.nhwc_src(i)
        (kh, kw), (sh, sw), (ph, pw) = kernel, stride, pad
        if tuple(dilation) != (1, 1):
            self.fail("dilated pooling is not supported")
        if kind == "avg_pool2d":
            floor = (_sh.pool_out(ih, kh, sh, ph, 1, False),
                     _sh.pool_out(iw, kw, sw, pw, 1, False))
            if self.nodes[i].shape[2:] != floor:
                self.fail("ceil_mode changes the output size; the exported average counts "
                          "only in-bounds cells")
            if (ph or pw) and count_include_pad:
                self.fail("padding with count_include_pad=True is not supported (the "
                          "exported average counts only in-bounds cells)")
        params = {"kh": kh, "kw": kw, "stride_h": sh, "stride_w": sw, "pad_top": ph,
                  "pad_left": pw}
        self.add(kind, i, [src], params=params)

    def pool2d(self, i):
        """A pool from burn.max_pool2d / avg_pool2d in a forward."""
        a = self.nodes[i].attrs
        pt, _pb, pl, _pr = a["padding"]
        self.window(i, a["op"] + "_pool2d", a["kernel"], a["stride"], (pt, pl), a["dilation"],
                    a["count_include_pad"])

    def adaptive(self, i, m):
        src, (_n, h, w, c) = self.nhwc_src(i)
        oh, ow = _chw(self.nodes[i].shape)[1:]  # AdaptiveAvgPool1d: as the 2-D one, H = 1
        if (oh, ow) == (h, w):
            self.alias(i, self.src(i))
        elif (oh, ow) == (1, 1):
            self.add("mean", i, [src], params={"outer": 1, "reduce": h * w, "inner": c})
        elif h % oh == 0 and w % ow == 0:
            params = {"kh": h // oh, "kw": w // ow, "stride_h": h // oh,
                      "stride_w": w // ow, "pad_top": 0, "pad_left": 0}
            self.add("avg_pool2d", i, [src], params=params)
        else:
            self.fail("output size %s does not divide the %dx%d input" % ((oh, ow), h, w))

    def linear(self, i, m):
        at = self.src(i)
        if not at.flat:
            self.fail("needs a flattened [N, features] input; add nn.Flatten()")
        w = _array(m.weight)
        if at.perm is not None:
            w = w[:, at.perm]
        b = _array(m.bias) if m.bias is not None else np.zeros(m.out_features)
        self.add("fully_connected", i, [at.vid], w=w, b=b)

    def leaf(self, i):
        m = self.nodes[i].module
        if isinstance(m, (nn.Conv2d, nn.Conv1d)):
            self.conv(i, m)
        elif isinstance(m, nn.ConvTranspose2d):
            self.transpose_conv(i, m)
        elif isinstance(m, nn.BatchNorm2d):
            self.batch_norm(i, m)
        elif isinstance(m, nn.Linear):
            self.linear(i, m)
        elif isinstance(m, nn.MaxPool2d):
            self.pool(i, m, "max_pool2d")
        elif isinstance(m, nn.AvgPool2d):
            self.pool(i, m, "avg_pool2d")
        else:
            self.adaptive(i, m)

    # -- tensor operations -------------------------------------------------------------------
    def clamp(self, i, code):
        at = self.src(i)
        last = self.fusable(i, _FUSES_ACT)
        if last is not None and (last.act == ACT_NONE or
                                 {last.act, code} <= {ACT_RELU, ACT_RELU6}):
            last.act = code if last.act == ACT_NONE else \
                (ACT_RELU6 if ACT_RELU6 in (last.act, code) else ACT_RELU)
            last.path += "+" + self.path
            self.alias(i, at)
            return
        self.elementwise(i, "clamp").act = code

    def elementwise(self, i, kind):
        at = self.src(i)
        layer = self.add(kind, i, [at.vid])
        self.at[i] = _At(layer.dst, at.gshape, at.flat, at.perm)
        self.t.values[layer.dst].shape = self.t.values[at.vid].shape
        return layer

    def softmax(self, i):
        at = self.src(i)
        rank = 2 if at.flat else 4
        if self.nodes[i].attrs["dim"] % rank != 1:
            self.fail("softmax over dim %d; only the channel/feature dim 1 is supported"
                      % self.nodes[i].attrs["dim"])
        if at.perm is not None:
            self.fail("softmax over a flattened feature map is not supported")
        self.add("softmax", i, [self.shaped(at, at.gshape)])

    def binary(self, i, kind):
        a, b = self.src(i, 0), self.src(i, 1)
        if a.flat != b.flat or (a.flat and a.gshape != b.gshape):
            self.fail("%s of values of shapes %s and %s" % (kind, self.nodes[i].shape,
                                                            self.nodes[self.nodes[i].ins[1]].shape))
        swap = int(np.prod(a.gshape)) < int(np.prod(b.gshape))
        if swap:  # the runtime repeats its second operand; sub then computes b - a
            a, b = b, a
        if kind in ("maximum", "minimum") and a.gshape != b.gshape:
            self.fail("%s of values of shapes %s and %s; only equal shapes are exported"
                      % (kind, a.gshape, b.gshape))
        if a.gshape != b.gshape and not (not a.flat and b.gshape == (1, 1, 1, a.gshape[3])):
            self.fail("%s broadcasts only a per-channel [N, C, 1, 1] value over a feature "
                      "map, got %s and %s" % (kind, a.gshape, b.gshape))
        if a.perm is not None and not np.array_equal(a.perm, b.perm):
            self.fail("%s of two differently flattened values" % kind)
        layer = self.add(kind, i, [a.vid, b.vid])
        if kind == "sub":
            layer.params["swap"] = int(swap)
        self.at[i].perm = a.perm

    def permute(self, i):
        """A permutation of an [N, C, H, W] value that keeps the batch first (see
        `strided`), or nothing when it moves no axis."""
        perm = tuple(self.nodes[i].attrs["perm"])
        if perm == tuple(range(len(perm))):
            return self.alias(i, self.src(i))
        if perm == (0, 2, 1):
            return self.swap(i)
        self.strided(i, "permutations", perm, (0, 0, 0, 0), (1, 1, 1, 1), len(perm) == 4
                     and perm[0] == 0)

    def held(self, i, k=0):
        """The _At of input k of node i, placed or not (see `place`)."""
        j = self.nodes[i].ins[k]
        if j in self.pending_sum or j in self.pending_pad:
            self.src(i, k)  # raises
        return self.at[j]

    def swap(self, i):
        """x.transpose(1, 2) of an [N, C, L] value moves no data: node i holds its input's
        graph value with the model order of its elements swapped (a matmul reads either
        order; the other ops need the placed one)."""
        j = self.nodes[i].ins[0]
        at = self.held(i)
        _n, c, length = self.nodes[j].shape
        moved = np.arange(c * length).reshape(length, c).T.reshape(-1)  # j's index -> i's
        self.at[i] = self.place(i, at.vid, moved[self.order(j)])

    def matrix(self, i, k):
        """(value, 1 when it holds the matrix transposed) of operand k of matmul node i,
        [N, rows, cols]: the graph holds each sample's matrix row by row (an [N, 1, H, W]
        value, a transposed [N, C, L] one) or transposed (an [N, C, L] value, as NHWC
        [1, 1, L, C])."""
        j = self.nodes[i].ins[k]
        at = self.held(i, k)
        _n, rows, cols = self.nodes[j].shape
        order = self.order(j)
        if np.array_equal(order, np.arange(rows * cols)):
            return at.vid, 0
        if np.array_equal(order, np.arange(rows * cols).reshape(rows, cols).T.reshape(-1)):
            return at.vid, 1
        self.fail("a matmul operand of shape %s whose elements are neither in its rows' nor "
                  "in its columns' order in the graph" % (self.nodes[j].shape,))

    def matmul(self, i):
        """x @ y of two computed values, one matrix per sample: a `batch_matmul` op. The
        result is written transposed (y^T @ x^T), which is the graph's order of an
        [N, M, N'] value, unless only reshapes to another rank read it (then row by row)."""
        (va, ta), (vb, tb) = self.matrix(i, 0), self.matrix(i, 1)
        _n, m, n = self.nodes[i].shape
        k = self.nodes[self.nodes[i].ins[0]].shape[2]
        users = [self.nodes[u] for u in self.users[i]]
        rows = bool(users) and all(u.kind == "reshape" and len(u.shape) != 3 for u in users)
        if rows:
            ins, dims, adj, gshape = [va, vb], (m, k, n), (ta, tb), (1, m * n)
            order = np.arange(m * n)
        else:
            ins, dims, adj, gshape = [vb, va], (n, k, m), (1 - tb, 1 - ta), (1, 1, n, m)
            order = np.arange(m * n).reshape(m, n).T.reshape(-1)
        params = dict(zip(("m", "k", "n"), dims), batches=1, a_step=0, b_step=0,
                      adj_x=adj[0], adj_y=adj[1])
        layer = self.emit("batch_matmul", i, ins, gshape, params=params)
        self.at[i] = self.place(i, layer.dst, order)

    def slice(self, i):
        """A slice of an [N, C, H, W] value that keeps the whole batch (see `strided`)."""
        a = self.nodes[i].attrs
        self.strided(i, "slices", (0, 1, 2, 3), a["starts"], a["steps"], len(a["starts"]) == 4
                     and (a["starts"][0], a["steps"][0]) == (0, 1))

    def strided(self, i, what, perm, starts, steps, fits):
        """Node i reads input model element [starts[m] + k * steps[m] along model axis
        perm[...]] of an [N, C, H, W] value: one `strided` copy between the two graph (NHWC)
        layouts."""
        at = self.src(i)
        if at.flat or not fits:
            self.fail("only %s of [N, C, H, W] values that keep the batch whole are exported"
                      % what)
        src = self.shaped(at, at.gshape)
        _n, h, w, c = at.gshape
        step = (h * w * c, w * c, c, 1)  # the NHWC strides of the input
        model_axis, graph_axis = (0, 2, 3, 1), (0, 3, 1, 2)  # of a graph / a model axis
        # output graph axis b is model axis model_axis[b] of the result, which reads input
        # model axis m = perm[...], stored along input graph axis graph_axis[m]
        strides = [step[graph_axis[perm[model_axis[b]]]] * steps[perm[model_axis[b]]]
                   for b in range(4)]
        offset = sum(starts[m] * step[graph_axis[m]] for m in range(4))
        gshape = self.graph_shape(self.nodes[i].shape)[0]
        self.add("strided", i, [src], params={"offset": offset, "dims": [1, 1] + list(gshape),
                                              "strides": [0, 0] + strides})

    def affine(self, i, s, c):
        """Node i = input * s + c (numbers, or one value per channel)."""
        j = self.nodes[i].ins[0]
        if j in self.pending_sum and np.ndim(s) == 0 and c == 0.0:
            return self.mean(i, s)
        self.channel_affine(i, s, c)

    def sum(self, i):
        """A sum waits for the division that makes it a mean (over several dims, a chain of
        sums with the dims kept)."""
        j = self.nodes[i].ins[0]
        dim = self.nodes[i].attrs["dim"]
        if j in self.pending_sum and self.nodes[j].kind == "sum" and self.sole_user(i):
            at, dims, rank = self.pending_sum.pop(j)
        else:
            unplaced = j in self.at and self.at[j].flat is None
            at, dims, rank = self.at[j] if unplaced else self.src(i), (), len(self.nodes[j].shape)
        if dim == 0:
            self.fail("a sum over the batch dimension is not exported")
        self.pending_sum[i] = (at, dims + (dim,), rank)

    def mean(self, i, s):
        at, dims, rank = self.pending_sum.pop(self.nodes[i].ins[0])
        dims = tuple(sorted(set(dims)))
        if at.flat is None:  # any element order: only a mean of them all
            if dims != tuple(range(1, rank)):
                self.fail("a mean over dims %s of a value whose elements are not in the "
                          "graph's order (an index that drops an axis, or a reshape that "
                          "would need a transpose); only a mean over all of them is exported"
                          % (dims,))
            outer, reduce, inner, out = 1, len(at.perm), 1, (1, 1)
        elif at.flat:
            _n, f = at.gshape
            if dims != (1,):
                self.fail("mean over dims %s of [N, features]" % (dims,))
            outer, reduce, inner, out = 1, f, 1, (1, 1)
        else:
            _n, h, w, c = at.gshape
            if rank == 3:  # the dims of the [N, C, 1, L] value
                dims = {(1,): (1,), (2,): (2, 3), (1, 2): (1, 2, 3)}.get(dims, dims)
            sizes = {(2, 3): (1, h * w, c, (1, 1, 1, c)), (1,): (h * w, c, 1, (1, h, w, 1)),
                     (1, 2, 3): (1, h * w * c, 1, (1, 1, 1, 1))}
            if dims not in sizes:
                self.fail("mean over dims %s; the exported mean reduces (2, 3), (1) or "
                          "(1, 2, 3) of [N, C, H, W] and (2), (1) or (1, 2) of [N, C, L]"
                          % (dims,))
            outer, reduce, inner, out = sizes[dims]
        if abs(s * reduce - 1.0) > 1e-6:
            self.fail("a sum is exported only as part of a mean (sum, then divide by the "
                      "count)")
        src = at.vid if at.flat is None else self.shaped(at, at.gshape)
        layer = self.emit("mean", i, [src], out,
                          params={"outer": outer, "reduce": reduce, "inner": inner})
        # with the reduced dims kept or not, the mean's elements are in graph order
        self.at[i] = self.place(i, layer.dst, np.arange(outer * inner))

    def concat(self, i):
        ats = [self.src(i, k) for k in range(len(self.nodes[i].ins))]
        dim = self.nodes[i].attrs["dim"]
        shapes = [self.nodes[j].shape for j in self.nodes[i].ins]
        if ats[0].flat:
            outer, inner = 1, [s[1] for s in shapes]
            perms = [a.perm if a.perm is not None else np.arange(s[1])
                     for a, s in zip(ats, shapes)]
            offsets = np.cumsum([0] + inner[:-1])
            perm = np.concatenate([p + o for p, o in zip(perms, offsets)])
        else:
            _n, _c, h, w = shapes[0]
            if dim == 1:
                outer, inner = h * w, [s[1] for s in shapes]
            elif dim == 2:
                outer, inner = 1, [s[1] * s[2] * s[3] for s in shapes]
            else:
                outer, inner = h, [s[1] * s[3] for s in shapes]
            perm = None
        self.add("concat", i, [a.vid for a in ats],
                 params={"outer": outer, "inner_sizes": inner})
        if perm is not None and not np.array_equal(perm, np.arange(len(perm))):
            self.at[i].perm = perm

    def pad(self, i):
        node = self.nodes[i]
        pads, value = node.attrs["pads"], node.attrs["value"]
        if len(pads) == 3:  # [N, C, L] as [N, C, 1, L]
            pads = [pads[0], pads[1], (0, 0), pads[2]]
        if len(pads) != 4 or pads[0] != (0, 0):
            self.fail("padding of a %d-D value or of the batch is not exported" % len(pads))
        users = self.users[i]
        at = self.src(i)
        user = self.nodes[users[0]] if len(users) == 1 else None
        conv = user is not None and user.kind == "module" and \
            isinstance(user.module, (nn.Conv2d, nn.Conv1d))
        if conv and value == 0.0 and pads[1] == (0, 0) and user.module.padding != "same":
            self.pending_pad[i] = (at, pads[2][0], pads[3][0])
            return
        (cb, ca), (pt, pb), (pl, pr) = pads[1], pads[2], pads[3]
        self.add("pad", i, [self.shaped(at, at.gshape)],
                 params={"before": [0, pt, pl, cb], "after": [0, pb, pr, ca],
                         "value": value})

    def reshape(self, i):
        j = self.nodes[i].ins[0]
        if j in self.pending_sum and self.users[j] == [i]:  # a sum without keepdim
            self.pending_sum[i] = self.pending_sum.pop(j)
            return
        if j in self.pending_sum or j in self.pending_pad:
            self.src(i)  # raises
        self.at[i] = self.place(i, self.at[j].vid, self.order(j))

    # -- driver ------------------------------------------------------------------------------
    def lower(self, i):
        node = self.nodes[i]
        self.path, self.module = node.path, node.module
        kind = node.kind
        if kind == "input":
            gshape, flat = self.graph_shape(node.shape)
            self.t.input = self.t.value(gshape, "input", i)
            self.at[i] = _At(self.t.input, gshape, flat)
        elif kind == "module":
            self.leaf(i)
        elif kind == "relu":
            self.clamp(i, ACT_RELU)
        elif kind == "clamp":
            lo, hi = node.attrs["lo"], node.attrs["hi"]
            key = (None if lo is None else float(lo), None if hi is None else float(hi))
            if key not in _CLAMPS:
                self.fail("clamp to [%s, %s]; only [0, inf), [0, 6] and [-1, 1] are "
                          "exported" % key)
            self.clamp(i, _CLAMPS[key])
        elif kind in ("logistic", "tanh"):
            self.elementwise(i, kind)
        elif kind == "leaky_relu":
            self.elementwise(i, "unary").params.update(fn=unary.LEAKY_RELU,
                                                       alpha=node.attrs["slope"])
        elif kind == "unary":
            self.elementwise(i, "unary").params.update(fn=node.attrs["fn"], alpha=0.0)
        elif kind == "hard_sigmoid":
            self.elementwise(i, "unary").params.update(fn=unary.HARD_SIGMOID,
                                                       alpha=node.attrs["alpha"])
        elif kind in ("add", "mul", "sub", "maximum", "minimum"):
            self.binary(i, kind)
        elif kind == "scale":
            self.affine(i, node.attrs["s"], 0.0)
        elif kind == "add_const":
            self.affine(i, 1.0, node.attrs["c"])
        else:
            getattr(self, kind)(i)


def trace(model, sample_shape):
    """Trace `model` for inputs of `sample_shape` (one sample, no batch axis: [C, H, W],
    [C, L] or [features]) into a Trace. Raises ExportError naming the module and op it cannot
    export, with the module's dotted path."""
    if not isinstance(model, nn.Module):
        raise TypeError("export: expected a burn.nn Module, got " + type(model).__name__)
    sample_shape = tuple(int(d) for d in sample_shape)
    if len(sample_shape) not in (1, 2, 3):
        raise ExportError("input samples must be [C, H, W], [C, L] or [features], got shape "
                          "%s" % (sample_shape,))
    batch = np.random.default_rng(0).standard_normal((TRACE_BATCH,) + sample_shape)
    nodes, out = record(model, batch.astype(np.float32))
    low = _Lowering(nodes)
    for i in range(len(nodes)):
        low.lower(i)
    t = low.t
    low.path, low.module = nodes[out].path, nodes[out].module
    if out in low.pending_sum or out not in low.at:
        low.fail("the model's output is a sum; only a mean is exported")
    at = low.at[out]
    if at.flat is None:
        low._unplaced(out)
    if not t.layers:
        raise ExportError("the model computes nothing to export (no ops after tracing)")
    if at.perm is not None:
        raise ExportError("the model ends with a Flatten of a feature map; its (C, H, W) "
                          "element order has no graph equivalent without a Linear after it")
    t.output = at.vid
    t.output_shape = at.gshape
    t.output_rank = len(nodes[out].shape)
    for layer in t.layers:
        if layer.w is not None:
            layer.w = np.ascontiguousarray(layer.w, dtype=np.float32)
            layer.b = np.ascontiguousarray(layer.b, dtype=np.float32)
    return t

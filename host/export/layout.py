"""The traced graph and where each recorded node lives in it.

A `Trace` holds the graph's values (NHWC shapes, or [1, features]) and its layers; `At` tells
which value holds a recorded node's result and in what element order. `Layout` is the
lowering's bookkeeping over them: graph shapes, placement of a node's elements (PyTorch's
(C, H, W) order against the graph's NHWC one), users, and the copies a reshape needs.
"""

import numpy as np

from burn.graph.fixedpoint import ACT_NONE
from burn.graph.ops import ANY_SHAPE

from .record import ExportError

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
        """Append a Value; returns its index."""
        self.values.append(Value(len(self.values), shape, name, node))
        return len(self.values) - 1


def _nhwc_order(c, h, w):
    """Model (C, H, W) element index of each NHWC graph element."""
    return np.arange(c * h * w).reshape(c, h, w).transpose(1, 2, 0).reshape(-1)


def chw(shape):
    """(C, H, W) of an [N, C, H, W] shape, or of an [N, C, L] one as [N, C, 1, L] (a 1-D
    value lives in the graph as the 2-D one with H = 1)."""
    return tuple(shape[1:]) if len(shape) == 4 else (shape[1], 1, shape[2])


class At:
    """How a recorded node lives in the graph: value `vid`, the graph shape its users see,
    and for [N, features] nodes the feature order `perm` (graph element j holds model
    feature perm[j]; None when they agree)."""

    def __init__(self, vid, gshape, flat, perm=None):
        self.vid = vid
        self.gshape = None if gshape is None else tuple(int(d) for d in gshape)
        self.flat = flat
        self.perm = perm


class Layout:
    """The lowering's state over the recorded `nodes` and the Trace it builds: where each
    node lives (`at`), the sums and paddings still waiting for the op that folds them,
    each value's producing layer, and each node's users."""

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

    def fail(self, why):
        """Raise ExportError naming the module being lowered and `why`."""
        kind = " (%s)" % type(self.module).__name__ if self.module is not None else ""
        raise ExportError("cannot export module '%s'%s: %s" % (self.path, kind, why))

    def graph_shape(self, shape):
        """(graph shape, flat) of a model shape: [N, C, H, W] and [N, C, L] as NHWC
        [1, H, W, C] (H = 1), [N, features] as [1, features] (flat)."""
        if shape[0] != TRACE_BATCH:
            self.fail("an op changes the batch dimension (shape %s)" % (shape,))
        if len(shape) in (3, 4):
            c, h, w = chw(shape)
            return (1, h, w, c), False
        if len(shape) == 2:
            return (1, shape[1]), True
        self.fail("values of rank %d are not exported (only [N, C, H, W], [N, C, L] and "
                  "[N, features])" % len(shape))

    def src(self, i, k=0):
        """The At of input k of node i."""
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
        """The At of node i held in value `vid`, whose graph element k is node i's model
        element order[k]. A node of rank 3 is the [N, C, 1, L] one when its elements are in
        that one's graph order; any other node of another rank than 2 or 4 is only a step
        between reshapes (or the input of a mean over all its elements), such as the
        [N, H, W] result of an index that drops the channel axis."""
        shape = self.nodes[i].shape
        if shape[0] != TRACE_BATCH:
            self.fail("an op changes the batch dimension (shape %s)" % (shape,))
        if len(shape) == 2:
            same = np.array_equal(order, np.arange(len(order)))
            return At(vid, (1, shape[1]), True, None if same else order)
        if len(shape) == 3 and not np.array_equal(order, _nhwc_order(*chw(shape))):
            return At(vid, None, None, order)
        if len(shape) in (3, 4):
            c, h, w = chw(shape)
            if not np.array_equal(order, _nhwc_order(c, h, w)):
                self.fail("a reshape to %s that reorders the elements of the NHWC graph (it "
                          "would need a transpose, which the runtime lacks)" % (shape,))
            return At(vid, (1, h, w, c), False)
        return At(vid, None, None, order)

    def order(self, j):
        """Node j's model element index of each element of its graph value."""
        at, shape = self.at[j], self.nodes[j].shape
        if at.flat is None or (at.flat and at.perm is not None):
            return at.perm
        if at.flat:
            return np.arange(shape[1])
        return _nhwc_order(*chw(shape))

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
        self.at[i] = At(layer.dst, gshape, flat)
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

    def shaped(self, at, gshape):
        """A value holding `at`'s elements with graph shape `gshape`: the same one,
        reshaped in place when its producer allows and no op reads it yet, else a copy."""
        v = self.t.values[at.vid]
        if v.shape == tuple(gshape):
            return at.vid
        layer = self.producer.get(at.vid)
        read = any(at.vid in other.ins for other in self.t.layers)
        if layer is not None and layer.kind in ANY_SHAPE and not read:
            v.shape = tuple(gshape)
            return at.vid
        dst = self.t.value(gshape, v.name + "/reshape", v.node)
        self.t.layers.append(Layer("copy", [at.vid], dst, v.name))
        self.producer[dst] = self.t.layers[-1]
        return dst

    def nhwc_src(self, i):
        """(value, graph shape) of node i's [N, C, H, W] input, in that graph shape."""
        at = self.src(i)
        if at.flat:
            self.fail("needs a [N, C, H, W] input, got a flattened one")
        return self.shaped(at, at.gshape), at.gshape

    def held(self, i, k=0):
        """The At of input k of node i, placed or not (see `place`)."""
        j = self.nodes[i].ins[k]
        if j in self.pending_sum or j in self.pending_pad:
            self.src(i, k)  # raises
        return self.at[j]

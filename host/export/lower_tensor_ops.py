"""Lowering of the tensor operations a forward may use (docs/export.md): elementwise and
binary ops, softmax, permutations, slices, matmul, concatenation, reshapes and functional
pools.
"""

import numpy as np

from .layout import At


class TensorOpLowering:
    """The lowerings of recorded tensor operations (a mixin of the tracer's lowering, over
    Layout's bookkeeping)."""

    def elementwise(self, i, kind):
        """A `kind` op of node i's input that keeps its shape and feature order; returns
        the layer."""
        at = self.src(i)
        layer = self.add(kind, i, [at.vid])
        self.at[i] = At(layer.dst, at.gshape, at.flat, at.perm)
        self.t.values[layer.dst].shape = self.t.values[at.vid].shape
        return layer

    def softmax(self, i):
        """A softmax over the channel / feature dim."""
        at = self.src(i)
        rank = 2 if at.flat else 4
        if self.nodes[i].attrs["dim"] % rank != 1:
            self.fail("softmax over dim %d; only the channel/feature dim 1 is supported"
                      % self.nodes[i].attrs["dim"])
        if at.perm is not None:
            self.fail("softmax over a flattened feature map is not supported")
        self.add("softmax", i, [self.shaped(at, at.gshape)])

    def binary(self, i, kind):
        """`kind` (add, mul, sub, maximum, minimum) of two computed values of one shape,
        or of a feature map and a per-channel value; the larger is the first operand."""
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

    def concat(self, i):
        """A concatenation of computed values: a `concat` op over [outer, inner_k] blocks."""
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

    def reshape(self, i):
        """A reshape: the same graph value in the node's model element order (the sum
        before a reshape that drops its dims stays pending)."""
        j = self.nodes[i].ins[0]
        if j in self.pending_sum and self.users[j] == [i]:  # a sum without keepdim
            self.pending_sum[i] = self.pending_sum.pop(j)
            return
        if j in self.pending_sum or j in self.pending_pad:
            self.src(i)  # raises
        self.at[i] = self.place(i, self.at[j].vid, self.order(j))

    def pool2d(self, i):
        """A pool from burn.max_pool2d / avg_pool2d in a forward."""
        a = self.nodes[i].attrs
        pt, _pb, pl, _pr = a["padding"]
        self.window(i, a["op"] + "_pool2d", a["kernel"], a["stride"], (pt, pl), a["dilation"],
                    a["count_include_pad"])

"""Folding while lowering: fused activations, affine maps into the weights of the op
before them (else a 1x1 depthwise or a diagonal fully connected op), a sum and the division
by its count as one `mean`, zero padding into the convolution after it.
"""

import numpy as np

from burn import nn
from burn.graph.fixedpoint import ACT_NONE, ACT_RELU, ACT_RELU6
from burn.graph.ops import FUSES_ACTIVATION, WEIGHTED


class Fold:
    """The lowerings that fold a node into the layer before or after it (a mixin of the
    tracer's lowering, over Layout's bookkeeping)."""

    def fusable(self, i, kinds):
        """The layer producing node i's input when node i may fold into it, else None."""
        at = self.src(i)
        layer = self.producer.get(at.vid)
        if layer is None or layer.kind not in kinds or not self.sole_user(i):
            return None
        return layer

    def clamp(self, i, code):
        """A clamp to activation `code`: the fused activation of the op before it where
        that op may take it, else a lone `clamp` op."""
        at = self.src(i)
        last = self.fusable(i, FUSES_ACTIVATION)
        if last is not None and (last.act == ACT_NONE or
                                 {last.act, code} <= {ACT_RELU, ACT_RELU6}):
            last.act = code if last.act == ACT_NONE else \
                (ACT_RELU6 if ACT_RELU6 in (last.act, code) else ACT_RELU)
            last.path += "+" + self.path
            self.alias(i, at)
            return
        self.elementwise(i, "clamp").act = code

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
        last = self.fusable(i, WEIGHTED)
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
        """A 1x1 depthwise convolution computing value `src` * scale + shift per channel."""
        c = len(shift)
        params = {"depth_mult": 1, "stride_h": 1, "stride_w": 1, "dil_h": 1, "dil_w": 1,
                  "pad_top": 0, "pad_left": 0}
        self.add("depthwise_conv2d", i, [src], w=np.asarray(scale).reshape(1, 1, 1, c),
                 b=np.asarray(shift), params=params)

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
        """The sum pending at node i's input times `s` (the division by its count) as one
        `mean` op."""
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

    def pad(self, i):
        """A constant pad: folded into the convolution that alone reads it (zeros, spatial
        axes only, not 'same' padding), else a `pad` op."""
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

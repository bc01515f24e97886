"""SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND with constant block shape and paddings (crops),
as burn ops that exist: a `pad` (SPACE_TO_BATCH_ND's paddings) or a cropping `strided`
copy (BATCH_TO_SPACE_ND's crops) around one `strided` copy that moves the blocks.

TFLM takes 4-D NHWC tensors with two spatial dims, and 3-D NHC ones as NHWC with W = 1;
so does this module. Parameters TFLM would refuse, or that would not fill the output
exactly, raise `tflite_move.MoveError`.
"""

import numpy as np

from burn.host.bst_writer import GraphOp
from burn.host.importers.tflite_move import MoveError, box, like_tensor


def _params(c, node):
    """(NHWC input shape, [bh, bw], [[before, after] for H and W]) of node's inputs."""
    shape = tuple(c.shape(node.inputs[0]))
    out = c.shape(node.outputs[0])
    if not 3 <= len(shape) <= 4 or not 3 <= len(out) <= 4:
        raise MoveError("input and output must be 3-D or 4-D, got %s and %s"
                        % (shape, tuple(out)))
    if c.tf.tensors[node.inputs[0]].dtype != c.tf.tensors[node.outputs[0]].dtype:
        raise MoveError("input and output types differ")
    spatial = len(shape) - 2
    block, pads = (c.tf.tensors[t] for t in node.inputs[1:3])
    for tt, what, want in ((block, "block_shape", (spatial,)), (pads, "paddings or crops",
                                                                  (spatial, 2))):
        if tt.data is None or tt.dtype != np.int32 or tuple(tt.shape) != want:
            raise MoveError("%s must be a constant int32 tensor of shape %s"
                            % (what, want))
    blocks = [int(v) for v in block.data.reshape(-1)] + [1] * (2 - spatial)
    edges = [[int(v) for v in row] for row in pads.data.reshape(-1, 2)] + \
        [[0, 0]] * (2 - spatial)
    if min(blocks) < 1 or min(min(e) for e in edges) < 0:
        raise MoveError("block_shape %s must be at least 1 and paddings %s at least 0"
                        % (blocks[:spatial], edges[:spatial]))
    return shape if spatial == 2 else shape[:2] + (1,) + shape[2:], blocks, edges


def _want(c, node, shape):
    """Check the output's shape: NHWC `shape`, without W for a 3-D op."""
    want = tuple(shape) if len(c.shape(node.inputs[0])) == 4 else \
        (shape[0], shape[1], shape[3])
    if tuple(c.shape(node.outputs[0])) != want:
        raise MoveError("output has shape %s, expected %s"
                        % (tuple(c.shape(node.outputs[0])), want))


def _space_to_batch(c, node):
    (n, h, w, ch), (bh, bw), ((pt, pb), (pl, pr)) = _params(c, node)
    hp, wp = h + pt + pb, w + pl + pr
    if hp % bh or wp % bw:
        raise MoveError("padded size %dx%d is not a multiple of block_shape %dx%d"
                        % (hp, wp, bh, bw))
    _want(c, node, (n * bh * bw, hp // bh, wp // bw, ch))
    x, y = c.act(node.inputs[0]), c.act(node.outputs[0])
    if pt or pb or pl or pr:
        three = len(c.shape(node.inputs[0])) == 3  # pad's dims: the input's, 1s first
        padded = like_tensor(c, y, (n, hp, ch) if three else (n, hp, wp, ch))
        value = c.quant(node.outputs[0])[1] if c.is_int8(node) else 0.0
        c.ops.append(GraphOp("pad", [x], [padded], params={
            "before": [0, 0, pt, 0] if three else [0, pt, pl, 0],
            "after": [0, 0, pb, 0] if three else [0, pb, pr, 0], "value": value}))
        x = padded
    # output [by, bx, n, oh, ow, c] reads padded [n, oh * bh + by, ow * bw + bx, c]
    c.ops.append(GraphOp("strided", [x], [y], params=box(0, [
        (bh, wp * ch), (bw, ch), (n, hp * wp * ch), (hp // bh, bh * wp * ch),
        (wp // bw, bw * ch), (ch, 1)])))


def _batch_to_space(c, node):
    (b, h, w, ch), (bh, bw), ((ct, cb), (cl, cr)) = _params(c, node)
    if b % (bh * bw):
        raise MoveError("batch %d is not a multiple of block_shape %dx%d" % (b, bh, bw))
    n, hf, wf = b // (bh * bw), h * bh, w * bw
    if ct + cb >= hf or cl + cr >= wf:
        raise MoveError("crops %s leave nothing of %dx%d" % ([[ct, cb], [cl, cr]], hf, wf))
    _want(c, node, (n, hf - ct - cb, wf - cl - cr, ch))
    x, y = c.act(node.inputs[0]), c.act(node.outputs[0])
    whole = like_tensor(c, y, (n, hf, wf, ch)) if ct or cb or cl or cr else y
    # output [n, h, by, w, bx, c] reads input [(by * bw + bx) * n + n, h, w, c]
    c.ops.append(GraphOp("strided", [x], [whole], params=box(0, [
        (n, h * w * ch), (h, w * ch), (bh, bw * n * h * w * ch), (w, ch),
        (bw, n * h * w * ch), (ch, 1)])))
    if whole != y:
        c.ops.append(GraphOp("strided", [whole], [y], params=box(
            (ct * wf + cl) * ch, [(n, hf * wf * ch), (hf - ct - cb, wf * ch),
                                  ((wf - cl - cr) * ch, 1)])))


def convert(c, node):
    """Emit the ops of SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND node `node` through importer
    `c` (burn.host.importers.tflite.convert)."""
    (_space_to_batch if node.name == "SPACE_TO_BATCH_ND" else _batch_to_space)(c, node)

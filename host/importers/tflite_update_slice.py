"""DYNAMIC_UPDATE_SLICE with constant start indices: the operand with the update written
over the box at those indices, clamped as TFLM clamps them (start = min(max(index, 0),
operand dim - update dim)).

It is made of burn ops that exist: axis by axis, from the innermost, the part built so
far (at first the update itself) is joined by a `concat` with the operand's elements
before and after it along that axis, read by `strided` copies. An update as large as the
operand is a `copy`. Values are copied raw, whatever their quantization, as TFLM copies
them. Parameters TFLM would refuse raise `tflite_move.MoveError`.
"""

import numpy as np

from burn.host.bst_writer import GraphOp
from burn.host.importers.tflite_move import MoveError, box, like_tensor


def _starts(c, node, shape, ushape):
    tt = c.tf.tensors[node.inputs[2]]
    if tt.data is None:
        raise MoveError("start indices must be a constant tensor")
    if tt.dtype not in (np.int32, np.int64) or tt.data.size != len(shape):
        raise MoveError("start indices must be %d int32 or int64 values" % len(shape))
    return [min(max(int(i), 0), d - u) for i, d, u in zip(tt.data.reshape(-1), shape, ushape)]


def convert(c, node):
    """Emit the ops of DYNAMIC_UPDATE_SLICE node `node` through importer `c`
    (burn.host.importers.tflite.convert)."""
    operand, update, y = node.inputs[0], node.inputs[1], node.outputs[0]
    shape, ushape = tuple(c.shape(operand)), tuple(c.shape(update))
    types = {c.tf.tensors[t].dtype for t in (operand, update, y)}
    if len(types) != 1:
        raise MoveError("operand, update and output types differ")
    if len(ushape) != len(shape) or any(u > d for u, d in zip(ushape, shape)):
        raise MoveError("update %s does not fit in operand %s" % (ushape, shape))
    if tuple(c.shape(y)) != shape:
        raise MoveError("output %s is not the operand's shape %s" % (tuple(c.shape(y)), shape))
    starts = _starts(c, node, shape, ushape)
    src, out = c.act(operand), c.act(y)
    cur = c.act(update)
    strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    axes = [k for k in range(len(shape)) if ushape[k] != shape[k]]
    if not axes:
        c.ops.append(GraphOp("copy", [cur], [out]))
        return
    for k in reversed(axes):
        outer, inner = int(np.prod(ushape[:k])), strides[k]
        lead = [(u, s) for u, s in zip(ushape[:k], strides)]
        offset = sum(s * st for s, st in zip(starts[:k], strides))
        pieces = [(starts[k], 0), (ushape[k], None),
                  (shape[k] - starts[k] - ushape[k], starts[k] + ushape[k])]
        parts, sizes = [], []
        for count, first in pieces:
            if not count:
                continue
            sizes.append(count * inner)
            if first is None:
                parts.append(cur)
                continue
            parts.append(like_tensor(c, out, (outer, count * inner)))
            c.ops.append(GraphOp("strided", [src], [parts[-1]], params=box(
                offset + first * inner, lead + [(count, inner), (inner, 1)])))
        whole = out if k == axes[0] else like_tensor(c, out, (outer, sum(sizes)))
        c.ops.append(GraphOp("concat", parts, [whole], params={
            "outer": outer, "inner_sizes": sizes}))
        cur = whole

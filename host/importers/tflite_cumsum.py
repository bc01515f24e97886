"""CUMSUM of float32 along a constant axis, as burn ops that exist: each position's slice
is read by a `strided` copy, the running sum is a chain of `add` ops in TFLM's order (from
the end for `reverse`), and a `concat` joins the sums; an `exclusive` sum starts from
zeros, a `select` of a constant 0. Each add rounds as TFLM's float accumulator does, so
the sums are TFLM's.

TFLM's int8 CUMSUM rescales every input and rounds once after the whole sum, which a chain
of burn's int8 adds cannot repeat: it is refused, as is an axis longer than a concat joins.
"""

import numpy as np

from burn.host.bst_writer import GraphOp
from burn.host.importers.tflite_move import MoveError, box, like_tensor

_MAX_PIECES = 32  # burn.bst_ops._MAX_CONCAT


def _axis(c, node, rank):
    tt = c.tf.tensors[node.inputs[1]]
    if tt.data is None or tt.dtype != np.int32 or tt.data.size != 1:
        raise MoveError("axis must be one constant int32 value")
    axis = int(tt.data.reshape(-1)[0])
    if not -rank <= axis < rank:
        raise MoveError("axis %d is out of range for %d dims" % (axis, rank))
    return axis % rank


def convert(c, node):
    """Emit the ops of CUMSUM node `node` through importer `c` (burn.host.importers.
    tflite.convert)."""
    x, y = node.inputs[0], node.outputs[0]
    types = {c.tf.tensors[t].dtype.name for t in (x, y)}
    if types != {"float32"}:
        raise MoveError("CUMSUM of %s is not supported: burn's runs float32 (TFLM's int8 "
                        "rounds once after the whole sum, which a chain of adds cannot "
                        "repeat)" % "/".join(sorted(t.upper() for t in types)))
    shape = tuple(c.shape(x))
    if tuple(c.shape(y)) != shape or not shape:
        raise MoveError("input %s and output %s differ" % (shape, tuple(c.shape(y))))
    axis = _axis(c, node, len(shape))
    o = node.options or {}
    count = shape[axis]
    if count > _MAX_PIECES:
        raise MoveError("an axis of %d elements, more than the %d a concat joins"
                        % (count, _MAX_PIECES))
    outer, inner = int(np.prod(shape[:axis])), int(np.prod(shape[axis + 1:]))
    src, out = c.act(x), c.act(y)
    exclusive = bool(o.get("Exclusive"))
    order = list(reversed(range(count)) if o.get("Reverse") else range(count))
    sums, total = [None] * count, None
    for i, pos in enumerate(order):
        last = i == count - 1
        if exclusive and last and total is not None:
            sums[pos] = total  # the sum of the others; this slice adds to nothing
            break
        part = like_tensor(c, out, (outer, inner))
        c.ops.append(GraphOp("strided", [src], [part], params=box(
            pos * inner, [(outer, count * inner), (inner, 1)])))
        if exclusive:
            if total is None:  # zeros, of the slice's size (select reads it once)
                total = like_tensor(c, out, (outer, inner))
                c.ops.append(GraphOp("select", [part], [total], consts={
                    "cond": np.zeros(1, np.int8), "y": np.zeros(1, np.float32)}))
            sums[pos] = total
            if last:
                break
        if total is not None:
            new = like_tensor(c, out, (outer, inner))
            c.ops.append(GraphOp("add", [total, part], [new], params={"act": 0}))
            part = new
        total = part
        if not exclusive:
            sums[pos] = total
    c.ops.append(GraphOp("concat", sums, [out], params={
        "outer": outer, "inner_sizes": [inner] * count}))

"""The TFLite ops that move data without arithmetic, as strided copies (burn.graph.strided).

`boxes(tf, node)` gives, for each output of TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V,
UNPACK, DEPTH_TO_SPACE or SPACE_TO_DEPTH, the strided op's parameters: the offset of the
first element read and the box of up to six (count, stride) axes, in the output's order,
that reads the rest. Axes of one element are dropped and axes that continue each other are
merged, so a TRANSPOSE of five dims or the six-axis shuffle of DEPTH_TO_SPACE fits. A box
that reads the whole input in order is an identity (`is_identity`), which the importer
folds into a buffer rename. GATHER (constant positions) and MIRROR_PAD are made of such
boxes joined by burn's concat op (`convert` emits them all).

Parameters TFLM would refuse raise `MoveError` with TFLM's reason; so do those it accepts
but then computes nothing sensible from (a permutation with repeats, a slice outside the
input), and STRIDED_SLICE's ellipsis and new-axis masks, which TFLM ignores.
"""

import numpy as np

from burn.host.bst_writer import GraphOp, GraphTensor

DIMS = 6  # burn.graph.strided.DIMS


class MoveError(ValueError):
    """An op of this module that cannot be converted."""


def _strides(shape):
    """Row-major element strides of `shape`."""
    out, step = [], 1
    for d in reversed(shape):
        out.insert(0, step)
        step *= d
    return out


def _const(tf, t, what, types=(np.int32,)):
    """The values of constant tensor `t` as a list of ints (a 1-D or scalar tensor)."""
    tt = tf.tensors[t] if t >= 0 else None
    if tt is None or tt.data is None:
        raise MoveError("%s must be a constant tensor" % what)
    if tt.dtype not in [np.dtype(x) for x in types]:
        raise MoveError("%s must be %s, got %s" % (what, " or ".join(
            np.dtype(x).name for x in types), tt.dtype.name))
    if len(tt.shape) > 1:
        raise MoveError("%s must be 1-D, got shape %s" % (what, tt.shape))
    return [int(v) for v in tt.data.reshape(-1)]


def _rank(shape, most, message):
    if len(shape) > most:
        raise MoveError(message)
    return len(shape)


def _axis(axis, rank):
    if not -rank <= axis < rank:
        raise MoveError("axis %d is out of range for %d dims" % (axis, rank))
    return axis % rank


def box(offset, axes):
    """The strided op's parameters for reading `axes` [(count, stride)] from `offset`."""
    merged = []
    for d, s in axes:
        if d == 1:
            continue
        if merged and merged[-1][1] == d * s:
            merged[-1] = (merged[-1][0] * d, s)
        else:
            merged.append((d, s))
    if len(merged) > DIMS:
        raise MoveError("the copy needs %d strided axes, more than %d" % (len(merged), DIMS))
    merged = [(1, 0)] * (DIMS - len(merged)) + merged
    return {"offset": offset, "dims": [d for d, _s in merged],
            "strides": [s for _d, s in merged]}


def is_identity(params, size):
    """Whether a box reads all `size` elements of its input in order."""
    return params["offset"] == 0 and params["dims"][-1] == size == int(np.prod(
        params["dims"])) and (size == 1 or params["strides"][-1] == 1)


def _want(tf, t, shape):
    got = tuple(tf.tensors[t].shape)
    if got != tuple(shape):
        raise MoveError("output %d has shape %s, expected %s" % (t, got, tuple(shape)))


def _transpose(tf, node, shape):
    rank = _rank(shape, 5, "Transpose op only supports 1D-5D input arrays.")
    perm = _const(tf, node.inputs[1], "perm")
    if len(perm) != rank:
        raise MoveError("perm has %d entries for %d dims" % (len(perm), rank))
    if any(not 0 <= p < rank for p in perm):
        raise MoveError("Transpose op permutations array is out of bounds.")
    if sorted(perm) != list(range(rank)):
        raise MoveError("perm %s is not a permutation" % perm)
    _want(tf, node.outputs[0], [shape[p] for p in perm])
    strides = _strides(shape)
    return [box(0, [(shape[p], strides[p]) for p in perm])]


def _slice(tf, node, shape):
    rank = _rank(shape, 5, "slice supports at most 5 dims")
    types = (np.int32, np.int64)
    begin = _const(tf, node.inputs[1], "begin", types)
    size = _const(tf, node.inputs[2], "size", types)
    if tf.tensors[node.inputs[1]].dtype != tf.tensors[node.inputs[2]].dtype:
        raise MoveError("begin and size must have the same type")
    if len(begin) != rank or len(size) != rank:
        raise MoveError("begin and size need %d entries each" % rank)
    counts = []
    for b, n, d in zip(begin, size, shape):
        n = d - b if n == -1 else n
        if not 0 <= b <= d or not 0 <= n <= d - b:
            raise MoveError("begin %s and size %s do not fit shape %s" % (begin, size, shape))
        counts.append(n)
    if int(np.prod(counts)) != int(np.prod(tf.tensors[node.outputs[0]].shape)):
        raise MoveError("the output does not hold the %s slice" % counts)
    strides = _strides(shape)
    return [box(sum(b * s for b, s in zip(begin, strides)), list(zip(counts, strides)))]


def _clamp(v, lo, hi):
    return hi if v > hi else lo if v < lo else v


def _strided_slice(tf, node, shape):
    rank = _rank(shape, 4, "input dim should not exceed 4")
    o = node.options or {}
    if o.get("EllipsisMask") or o.get("NewAxisMask"):
        raise MoveError("ellipsis_mask and new_axis_mask are not supported (TFLM ignores "
                        "them)")
    if o.get("Offset"):
        raise MoveError("offset is not supported (TFLM ignores it)")
    begin, end, step = (_const(tf, t, what) for t, what in zip(
        node.inputs[1:4], ("begin", "end", "strides")))
    if not len(begin) == len(end) == len(step) == rank:
        raise MoveError("begin, end and strides need %d entries each" % rank)
    strides = _strides(shape)
    offset, axes, out = 0, [], []
    for k in range(rank):
        d, s, bit = shape[k], step[k], 1 << k
        if s == 0:
            raise MoveError("stride value has to be non-zero")
        lo, hi = (0, d) if s > 0 else (-1, d - 1)
        start = begin[k] + d if begin[k] < 0 else begin[k]
        start = (lo if s > 0 else hi) if o.get("BeginMask", 0) & bit else _clamp(start, lo, hi)
        if o.get("ShrinkAxisMask", 0) & bit:
            if s < 0 or not 0 <= start < d:
                raise MoveError("shrunk axis %d: begin %d with stride %d reads no element"
                                % (k, begin[k], s))
            count = 1
        else:
            stop = end[k] + d if end[k] < 0 else end[k]
            stop = (hi if s > 0 else lo) if o.get("EndMask", 0) & bit else \
                _clamp(stop, lo, hi)
            count = max(0, -((start - stop) // s))  # ceil((stop - start) / s)
            out.append(count)
        offset += start * strides[k] if count else 0
        axes.append((count, s * strides[k]))
    _want(tf, node.outputs[0], out)
    return [box(offset, axes)]


def _split_boxes(tf, node, shape, axis, sizes, keep_axis=True):
    """One box per output: the consecutive pieces of `sizes` along `axis`."""
    if len(sizes) != len(node.outputs):
        raise MoveError("%d pieces for %d outputs" % (len(sizes), len(node.outputs)))
    strides = _strides(shape)
    boxes, at = [], 0
    for t, n in zip(node.outputs, sizes):
        piece = list(shape)
        piece[axis] = n
        _want(tf, t, piece if keep_axis else piece[:axis] + piece[axis + 1:])
        boxes.append(box(at * strides[axis], [(c, s) for c, s in zip(piece, strides)]))
        at += n
    return boxes


def _split(tf, node, shape):
    axis_values = _const(tf, node.inputs[0], "axis")
    if len(axis_values) != 1:
        raise MoveError("axis must be one value")
    axis = _axis(axis_values[0], len(shape))
    num = (node.options or {}).get("NumSplits", len(node.outputs))
    if num < 1 or num != len(node.outputs) or shape[axis] % num:
        raise MoveError("Not an even split: %d outputs, num_splits %d, axis size %d"
                        % (len(node.outputs), num, shape[axis]))
    return _split_boxes(tf, node, shape, axis, [shape[axis] // num] * num)


def _split_v(tf, node, shape):
    sizes = _const(tf, node.inputs[1], "size_splits", (np.int32, np.int64))
    axis_values = _const(tf, node.inputs[2], "axis")
    if len(axis_values) != 1:
        raise MoveError("axis must be one value")
    axis = _axis(axis_values[0], len(shape))
    if sizes.count(-1) > 1 or any(n < -1 for n in sizes):
        raise MoveError("size_splits %s: at most one -1 and no other negative size" % sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[axis] - sum(sizes) - 1
    if any(n < 0 for n in sizes) or sum(sizes) != shape[axis]:
        raise MoveError("size_splits %s do not add up to the axis size %d"
                        % (sizes, shape[axis]))
    return _split_boxes(tf, node, shape, axis, sizes)


def _unpack(tf, node, shape):
    o = node.options or {}
    axis = _axis(o.get("Axis", 0), len(shape))
    if o.get("Num", len(node.outputs)) != shape[axis] or len(node.outputs) != shape[axis]:
        raise MoveError("num %d and %d outputs do not match axis size %d"
                        % (o.get("Num", len(node.outputs)), len(node.outputs), shape[axis]))
    return _split_boxes(tf, node, shape, axis, [1] * shape[axis], keep_axis=False)


def _block(tf, node, shape):
    if len(shape) != 4:
        raise MoveError("input must be 4-D (NHWC), got shape %s" % (shape,))
    b = (node.options or {}).get("BlockSize", 0)
    if b < 1:
        raise MoveError("block_size %d must be at least 1" % b)
    return b


def _depth_to_space(tf, node, shape):
    n, h, w, c = shape
    b = _block(tf, node, shape)
    if c % (b * b):
        raise MoveError("depth %d is not a multiple of block_size %d squared" % (c, b))
    oc = c // (b * b)
    _want(tf, node.outputs[0], (n, h * b, w * b, oc))
    # output [n, h, by, w, bx, oc] reads input [n, h, w, (by * b + bx) * oc + oc]
    return [box(0, [(n, h * w * c), (h, w * c), (b, b * oc), (w, c), (b, oc), (oc, 1)])]


def _space_to_depth(tf, node, shape):
    n, h, w, c = shape
    b = _block(tf, node, shape)
    if h % b or w % b:
        raise MoveError("height %d and width %d must be multiples of block_size %d"
                        % (h, w, b))
    _want(tf, node.outputs[0], (n, h // b, w // b, c * b * b))
    # output [n, oh, ow, by, bx, c] reads input [n, oh * b + by, ow * b + bx, c]
    return [box(0, [(n, h * w * c), (h // b, b * w * c), (w // b, b * c), (b, w * c),
                     (b, c), (c, 1)])]


def _reverse(tf, node, shape):
    rank = _rank(shape, 8, "input has more than 8 dims")
    tt = tf.tensors[node.inputs[1]]
    if tt.dtype != np.int32:
        raise MoveError("Axis Type '%s' is not supported by reverse." % tt.dtype.name)
    if len(tt.shape) != 1 or tt.shape[0] > rank:
        raise MoveError("axis must be 1-D with at most %d entries, got shape %s"
                        % (rank, tt.shape))
    axes = sorted(_axis(a, rank) for a in _const(tf, node.inputs[1], "axis"))
    if axes != list(range(axes[0], axes[0] + len(axes))):
        raise MoveError("Non-contiguous `axes` not supported")
    _want(tf, node.outputs[0], shape)
    strides = _strides(shape)
    offset = sum((shape[a] - 1) * strides[a] for a in axes)
    return [box(offset, [(d, -s if a in axes else s)
                          for a, (d, s) in enumerate(zip(shape, strides))])]


def _broadcast_to(tf, node, shape):
    out = _const(tf, node.inputs[1], "shape", (np.int32, np.int64))
    if len(out) > 5 or len(shape) > len(out):
        raise MoveError("BroadcastTo only supports 1-5D input and the output needs at least "
                        "its input's %d dims, got %s" % (len(shape), out))
    dims = (1,) * (len(out) - len(shape)) + tuple(shape)
    if any(d != 1 and d != o for d, o in zip(dims, out)):
        raise MoveError("input %s does not broadcast to %s" % (tuple(shape), out))
    _want(tf, node.outputs[0], out)
    strides = _strides(dims)
    return [box(0, [(o, 0 if d == 1 else s) for d, o, s in zip(dims, out, strides)])]


def _fill(tf, node, shape):
    if shape:
        raise MoveError("the value tensor must be a scalar, got shape %s" % (tuple(shape),))
    if tf.tensors[node.inputs[1]].data is not None:
        raise MoveError("a FILL of a constant value is a constant, which a .bst graph does "
                        "not hold")
    out = tuple(tf.tensors[node.outputs[0]].shape)
    dims = tf.tensors[node.inputs[0]]
    if dims.data is not None and _const(tf, node.inputs[0], "dims", (
            np.int8, np.int16, np.int32, np.int64)) != list(out):
        raise MoveError("dims %s do not match the output's shape %s"
                        % (dims.data.tolist(), out))
    return [box(0, [(int(np.prod(out)), 0)])]


def _runs(values):
    """`values` cut into runs of evenly spaced values: [(first, step, count)]."""
    runs = []
    i = 0
    while i < len(values):
        step = values[i + 1] - values[i] if i + 1 < len(values) else 1
        j = i + 1
        while j < len(values) and values[j] - values[j - 1] == step:
            j += 1
        runs.append((values[i], step, j - i))
        i = j
    return runs


def _gather(tf, node, shape):
    """[(outer, [(params, elements per outer index)])]: one piece per run of evenly spaced
    indices, which a concat joins when there are several."""
    o = node.options or {}
    if o.get("BatchDims", 0):
        raise MoveError("batch_dims %d is not supported" % o["BatchDims"])
    tt = tf.tensors[node.inputs[1]]
    if tt.dtype != np.int32:
        raise MoveError("Positions of type '%s' are not supported by gather." % tt.dtype.name)
    if tt.data is None:
        raise MoveError("positions must be a constant tensor")
    axis = _axis(o.get("Axis", 0), len(shape))
    indices = [int(v) for v in tt.data.reshape(-1)]
    if any(not 0 <= i < shape[axis] for i in indices):
        raise MoveError("positions %s are outside the axis of %d" % (indices, shape[axis]))
    _want(tf, node.outputs[0], shape[:axis] + tt.shape + shape[axis + 1:])
    outer, inner = int(np.prod(shape[:axis])), int(np.prod(shape[axis + 1:]))
    runs = _runs(indices)
    if len(runs) > _MAX_PIECES:
        raise MoveError("%d runs of evenly spaced positions, more than %d"
                        % (len(runs), _MAX_PIECES))
    return [(outer, [(box(first * inner, [(outer, shape[axis] * inner),
                                           (count, step * inner), (inner, 1)]), count * inner)
                     for first, step, count in runs])]


def _gather_nd(tf, node, shape):
    """[(1, [(params, elements)])]: the slices that constant `indices` pick, one piece per
    run of evenly spaced slices."""
    tt = tf.tensors[node.inputs[1]]
    if tt.dtype != np.int32:
        raise MoveError("Indices of type '%s' are not supported by gather_nd."
                        % tt.dtype.name)
    if tt.data is None:
        raise MoveError("indices must be a constant tensor")
    if not tt.shape or tt.shape[-1] < 1:
        raise MoveError("Indices must be at least a vector.")
    if tt.shape[-1] > len(shape):
        raise MoveError("Index innermost dimension length must be <= params rank.")
    if tt.shape[-1] > 5:
        raise MoveError("Index innermost dimension length must not exceed 5.")
    k = tt.shape[-1]
    _want(tf, node.outputs[0], tuple(tt.shape[:-1]) + tuple(shape[k:]))
    inner, strides = int(np.prod(shape[k:])), _strides(shape)
    starts = []
    for index in tt.data.reshape(-1, k).tolist():
        if any(not 0 <= i < d for i, d in zip(index, shape)):
            raise MoveError("indices %s are outside params %s" % (index, tuple(shape)))
        starts.append(sum(i * s for i, s in zip(index, strides)))
    runs = _runs(starts)
    if len(runs) > _MAX_PIECES:
        raise MoveError("%d runs of evenly spaced slices, more than %d"
                        % (len(runs), _MAX_PIECES))
    return [(1, [(box(first, [(count, step), (inner, 1)]), count * inner)
                 for first, step, count in runs])]


def _mirror_pad(tf, node, shape):
    """[(outer, [(params or None for the padded tensor itself, elements per outer index)])]:
    one concat per padded axis, of the mirrored pieces before and after and the tensor
    padded so far, which grows axis by axis."""
    tt = tf.tensors[node.inputs[1]]
    if tt.data is None or tt.dtype not in (np.int32, np.int64) or \
            tuple(tt.shape) != (len(shape), 2):
        raise MoveError("paddings must be a constant int32 [%d, 2] tensor" % len(shape))
    pads = [[int(v) for v in row] for row in tt.data.reshape(-1, 2)]
    mode = (node.options or {}).get("Mode", 0)
    if mode not in (0, 1):
        raise MoveError("unknown mode %d" % mode)
    symmetric = mode == 1
    steps, now = [], list(shape)
    for a, (before, after) in enumerate(pads):
        d = now[a]
        most = d if symmetric else d - 1
        if not 0 <= before <= most or not 0 <= after <= most:
            raise MoveError("paddings %s: at most %d on axis %d in %s mode"
                            % (pads, most, a, "SYMMETRIC" if symmetric else "REFLECT"))
        if before == after == 0:
            continue
        outer, inner = int(np.prod(now[:a])), int(np.prod(now[a + 1:]))
        line = [(outer, d * inner)]
        first_before = before - 1 if symmetric else before
        first_after = d - 1 if symmetric else d - 2
        pieces = [(box(first_before * inner, line + [(before, -inner), (inner, 1)]),
                   before * inner), (None, d * inner),
                  (box(first_after * inner, line + [(after, -inner), (inner, 1)]),
                   after * inner)]
        steps.append((outer, [p for p in pieces if p[1]]))
        now[a] = d + before + after
    _want(tf, node.outputs[0], now)
    return steps


OPS = {"TRANSPOSE": _transpose, "SLICE": _slice, "STRIDED_SLICE": _strided_slice,
       "SPLIT": _split, "SPLIT_V": _split_v, "UNPACK": _unpack,
       "DEPTH_TO_SPACE": _depth_to_space, "SPACE_TO_DEPTH": _space_to_depth,
       "REVERSE_V2": _reverse, "BROADCAST_TO": _broadcast_to, "FILL": _fill}
# ops made of pieces joined by concats (burn's concat op)
PIECES = {"GATHER": _gather, "MIRROR_PAD": _mirror_pad, "GATHER_ND": _gather_nd}
_MAX_PIECES = 32  # burn.bst_ops._MAX_CONCAT
# the input the op moves (SPLIT takes its axis first, FILL its dims)
_DATA = {"SPLIT": 1, "FILL": 1}


def data_input(node):
    """The tensor index of the data `node` moves."""
    return node.inputs[_DATA.get(node.name, 0)]


def _shape(tf, node):
    x = data_input(node)
    for t in node.outputs:
        if tf.tensors[t].dtype != tf.tensors[x].dtype:
            raise MoveError("input and output types differ")
    return tuple(tf.tensors[x].shape)


def boxes(tf, node):
    """[params of the strided op] of TFLite node `node` (an OPS op), one per output."""
    return OPS[node.name](tf, node, _shape(tf, node))


def convert(c, node):
    """Emit the ops of TFLite node `node` (an OPS or PIECES op) through importer `c`
    (burn.host.importers.tflite.convert): strided copies, and concats of their pieces."""
    x = data_input(node)
    if node.name in OPS:
        for t, params in zip(node.outputs, boxes(c.tf, node)):
            c.emit("strided", node, params=params, ins=[x], outs=[t])
        return
    steps = PIECES[node.name](c.tf, node, _shape(c.tf, node))
    if not steps:  # a MIRROR_PAD of nothing
        c.emit("copy", node)
        return
    src, out = c.act(x), c.act(node.outputs[0])
    for k, (outer, pieces) in enumerate(steps):
        whole = out if k == len(steps) - 1 else \
            like_tensor(c, out, (outer, sum(n for _p, n in pieces)))
        parts = []
        for params, n in pieces:
            if params is None:  # the tensor padded so far
                parts.append(src)
                continue
            parts.append(whole if len(pieces) == 1 else like_tensor(c, out, (outer, n)))
            c.ops.append(GraphOp("strided", [src], [parts[-1]], params=params))
        if len(pieces) > 1:
            c.ops.append(GraphOp("concat", parts, [whole], params={
                "outer": outer, "inner_sizes": [n for _p, n in pieces]}))
        src = whole


def like_tensor(c, like, shape):
    """A new graph tensor of `shape` with the dtype and quantization of tensor `like`."""
    t = c.tensors[like]
    name = "%s/%d" % (t.name, len(c.tensors))
    c.tensors.append(GraphTensor(name[-48:], shape, t.dtype, t.scale, t.zero_point))
    return len(c.tensors) - 1

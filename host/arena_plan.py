"""The activation arena planner: one offset per tensor in one buffer per dtype.

Tensors alive at the same time never overlap, except that an op's output may overlap an
input that dies at that op when the kernel's write order makes it safe (see
docs/bst-format.md, "Arena and in-place execution"). Several placement orders are tried and
the smallest arena wins.
"""

ITEMSIZE = {"int8": 1, "float32": 4}

_ELEMENTWISE = ("add", "mul", "clamp", "copy", "logistic", "tanh", "requantize")
_WINDOWED = ("conv2d", "depthwise_conv2d", "avg_pool2d", "max_pool2d")


def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def tensor_bytes(tensor):
    """Bytes a GraphTensor takes in its arena."""
    return _numel(tensor.shape) * ITEMSIZE[tensor.dtype]


def _clamped(v, hi):
    return min(max(0, v), hi)


def _near(points, n):
    """The integers within 2 of each of `points` that lie in [0, n)."""
    return sorted({q + k for q in points for k in (-2, -1, 0, 1, 2) if 0 <= q + k < n})


def _window_delta(op, x, y):
    """delta for ops that slide a window over NHWC input, output pixels in raster order.
    Only the window's top-left corner matters: it is the first input byte a pixel reads.

    For output pixel p the delta is (p + 1) * out_pix - m(p) * in_pix, where m(p) is the
    smallest input pixel read by p or any later pixel. The top-left row and column are
    clamped linear functions of oy and ox, so the smallest read of a later output row is
    its first pixel's, and the delta is piecewise linear in (b, oy, ox): its largest value
    lies at a corner of a piece. Only those corners are evaluated, a constant number."""
    n, ih, iw, ic = (int(d) for d in x.shape)
    oh, ow, oc = (int(d) for d in y.shape[1:])
    sh, sw = op.params["stride_h"], op.params["stride_w"]
    pt, pl = op.params["pad_top"], op.params["pad_left"]
    in_pix = ic * ITEMSIZE[x.dtype]
    out_pix = oc * ITEMSIZE[y.dtype]

    def first_read(b, oy, ox):
        if oy == oh:  # the first pixel of the next batch's first row
            b, oy, ox = b + 1, 0, 0
        if b == n:
            return n * ih * iw
        return (b * ih + _clamped(oy * sh - pt, ih - 1)) * iw + _clamped(ox * sw - pl, iw - 1)

    rows = _near((0, oh - 1, -(-pt // sh), (ih - 1 + pt) // sh), oh)
    cols = _near((0, ow - 1, -(-pl // sw), (iw - 1 + pl) // sw), ow)
    delta = None
    for b in sorted({0, n - 1}):
        for oy in rows:
            later = first_read(b, oy + 1, 0)
            for ox in cols:
                p = (b * oh + oy) * ow + ox
                d = (p + 1) * out_pix - min(later, first_read(b, oy, ox)) * in_pix
                delta = d if delta is None else max(delta, d)
    return delta


def _rows_delta(rows, in_row_bytes, out_row_bytes):
    """delta when output row r is written after reading input row r only: the largest of
    (r + 1) * out - r * in, linear in r, so at the first or the last row."""
    return max(out_row_bytes, rows * out_row_bytes - (rows - 1) * in_row_bytes)


def overlap_delta(op, input_index, tensors):
    """Bytes by which the output of `op` must start below input `input_index` for it to
    overlap that input, or None when they must not overlap at all."""
    x = tensors[op.inputs[input_index]]
    y = tensors[op.outputs[0]]
    if len(op.outputs) != 1 or x.dtype != y.dtype:
        return None
    if op.op in _ELEMENTWISE:
        if _numel(x.shape) != _numel(y.shape):
            return None  # a broadcast operand is read again and again
        return 0
    if op.op in _WINDOWED:
        return _window_delta(op, x, y)
    size = ITEMSIZE[x.dtype]
    if op.op == "fully_connected":
        out_f, in_f = op.consts["w"].shape
        return _rows_delta(_numel(y.shape) // out_f, in_f * size, out_f * size)
    if op.op == "softmax":
        depth = int(x.shape[-1])
        return _rows_delta(_numel(x.shape) // depth, depth * size, depth * size)
    if op.op == "mean":
        p = op.params
        return _rows_delta(p["outer"], p["reduce"] * p["inner"] * size, p["inner"] * size)
    return None


def lifetimes(graph):
    """(first, last) op index of every tensor; graph inputs start at -1, outputs end after
    the last op."""
    end = len(graph.ops)
    first = [None] * len(graph.tensors)
    last = [None] * len(graph.tensors)
    for tid, _shape in graph.inputs:
        first[tid] = -1
        last[tid] = -1
    for i, op in enumerate(graph.ops):
        for tid in op.inputs:
            last[tid] = i
        for tid in op.outputs:
            if first[tid] is None:
                first[tid] = i
                last[tid] = i
    for tid, _shape in graph.outputs:
        last[tid] = end
    return first, last


def _pair_deltas(graph, last):
    """{(out_tid, in_tid): delta} for every legal output-over-dying-input overlap."""
    pairs = {}
    for i, op in enumerate(graph.ops):
        for k, tid in enumerate(op.inputs):
            if last[tid] != i or tid in op.outputs:
                continue
            d = overlap_delta(op, k, graph.tensors)
            key = (op.outputs[0], tid)
            if d is None or pairs.get(key, 0) is None:
                pairs[key] = None
            else:
                pairs[key] = max(d, pairs.get(key, d))
    return {k: d for k, d in pairs.items() if d is not None}


def _legal(t, off, u, placed, sizes, pairs):
    """May tensor t sit at `off` given tensor u already placed (lifetimes overlap)?"""
    uo = placed[u]
    if off + sizes[t] <= uo or uo + sizes[u] <= off:
        return True
    if (t, u) in pairs:
        return off + pairs[(t, u)] <= uo
    if (u, t) in pairs:
        return uo + pairs[(u, t)] <= off
    return False


def _place(order, sizes, live_with, pairs, align, prefer_high):
    """Place tensors in `order`, each at the legal offset that grows the span least."""
    placed = {}
    lo = hi = 0
    for t in order:
        others = [u for u in live_with[t] if u in placed]
        cands = {0}
        for u in others:
            uo = placed[u]
            cands.update((uo + sizes[u], uo - sizes[t]))
            if (t, u) in pairs:
                cands.add(uo - pairs[(t, u)])
            if (u, t) in pairs:
                cands.add(uo + pairs[(u, t)])
        best = None
        for c in sorted(cands, reverse=prefer_high):
            c -= c % align
            if not all(_legal(t, c, u, placed, sizes, pairs) for u in others):
                continue
            span = max(hi, c + sizes[t]) - min(lo, c) if placed else sizes[t]
            if best is None or span < best[0]:
                best = (span, c)
        placed[t] = best[1]
        lo = min(lo, best[1]) if len(placed) > 1 else best[1]
        hi = max(hi, best[1] + sizes[t]) if len(placed) > 1 else best[1] + sizes[t]
    return {t: o - lo for t, o in placed.items()}, hi - lo


def plan_arena(graph):
    """Plan the arenas of `graph`: returns (offsets, arena) where offsets[tid] is a byte
    offset in the arena of the tensor's dtype and arena maps dtype -> bytes."""
    first, last = lifetimes(graph)
    for tid, t in enumerate(graph.tensors):
        if first[tid] is None and any(tid in op.inputs for op in graph.ops):
            raise ValueError("tensor %d (%s) is read but never written" % (tid, t.name))
    pairs = _pair_deltas(graph, last)
    sizes = [tensor_bytes(t) for t in graph.tensors]
    offsets = [0] * len(graph.tensors)
    arena = {}
    for dtype in ITEMSIZE:
        tids = [t for t in range(len(sizes)) if graph.tensors[t].dtype == dtype
                and first[t] is not None]
        live_with = {t: [u for u in tids if u != t and first[t] <= last[u]
                         and first[u] <= last[t]] for t in tids}
        orders = (
            sorted(tids, key=lambda t: (first[t], -sizes[t])),
            sorted(tids, key=lambda t: (-sizes[t], first[t])),
        )
        best = None
        for order in orders:
            for prefer_high in (False, True):
                plan = _place(order, sizes, live_with, pairs, ITEMSIZE[dtype], prefer_high)
                if best is None or plan[1] < best[1]:
                    best = plan
        for t, off in (best[0] if best else {}).items():
            offsets[t] = off
        arena[dtype] = best[1] if best else 0
    return offsets, arena

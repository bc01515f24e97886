"""How far an op's output may overlap its input in the arena, and the check of a whole plan.

Kernels write output units (pixels, rows, elements) in increasing address order, and unit
`p` only after reading every input byte it needs, so an output may start `delta` bytes below
an input that dies at that op (docs/bst-format.md, "Arena and in-place execution"). The
arena planner (`burn.host.arena_plan`) places tensors with `overlap_delta`, and the `.bst`
reader refuses, with `check_plan`, any plan that overwrites a tensor still needed.
"""

# bytes per element of each arena's tensors
ITEMSIZE = {"int8": 1, "float32": 4, "int16": 2, "int32": 4, "int64": 8, "uint8": 1,
            "uint32": 4}
# the op kinds whose in-place rule is elementwise / windowed in the op table burn.graph.ops
# (which the firmware leaves out; tests/host/test_op_table.py checks these against it)
ELEMENTWISE = ("add", "mul", "clamp", "copy", "logistic", "tanh", "requantize", "unary",
               "prelu", "sub", "squared_difference", "maximum", "minimum")
WINDOWED = ("conv2d", "depthwise_conv2d", "avg_pool2d", "max_pool2d")


def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _clamped(v, hi):
    return min(max(0, v), hi)


def _near(points, n):
    """The integers within 2 of each of `points` that lie in [0, n)."""
    return sorted({q + k for q in points for k in (-2, -1, 0, 1, 2) if 0 <= q + k < n})


def window_delta(xshape, yshape, itemsize, params):
    """delta of an op that slides a window over an NHWC input (`params`: stride_h,
    stride_w, pad_top, pad_left), output pixels in raster order. Only the window's top-left
    corner matters: it is the first input byte a pixel reads.

    For output pixel p the delta is (p + 1) * out_pix - m(p) * in_pix, where m(p) is the
    smallest input pixel read by p or any later pixel. The top-left row and column are
    clamped linear functions of oy and ox, so the smallest read of a later output row is
    its first pixel's, and the delta is piecewise linear in (b, oy, ox): its largest value
    lies at a corner of a piece. Only those corners are evaluated, a constant number."""
    n, ih, iw, ic = [int(d) for d in xshape]
    oh, ow, oc = [int(d) for d in yshape[1:]]
    sh, sw = params["stride_h"], params["stride_w"]
    pt, pl = params["pad_top"], params["pad_left"]
    in_pix = ic * itemsize
    out_pix = oc * itemsize

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


def rows_delta(rows, in_row_bytes, out_row_bytes):
    """delta when output row r is written after reading input row r only: the largest of
    (r + 1) * out - r * in, linear in r, so at the first or the last row."""
    return max(out_row_bytes, rows * out_row_bytes - (rows - 1) * in_row_bytes)


def overlap_delta(kind, params, xshape, yshape, itemsize, wshape=None):
    """Bytes by which the output (`yshape`) of an op `kind` with one output of the same
    dtype (`itemsize` bytes) as its input (`xshape`) must start below that input to overlap
    it, or None when they must not overlap at all. `wshape`: the weights' shape of a
    fully_connected."""
    if kind in ELEMENTWISE:
        if _numel(xshape) != _numel(yshape):
            return None  # a broadcast operand is read again and again
        return 0
    if itemsize == 2:
        return None  # the int16 kernels of the other ops write as they go, without a scratch
    if kind in WINDOWED:
        return window_delta(xshape, yshape, itemsize, params)
    if kind == "fully_connected":
        out_f, in_f = wshape
        return rows_delta(_numel(yshape) // out_f, in_f * itemsize, out_f * itemsize)
    if kind == "softmax":
        depth = int(xshape[-1])
        return rows_delta(_numel(xshape) // depth, depth * itemsize, depth * itemsize)
    if kind == "mean":
        return rows_delta(params["outer"], params["reduce"] * params["inner"] * itemsize,
                          params["inner"] * itemsize)
    return None


def lifetimes(count, ops, inputs, outputs):
    """(first, last) op index of each of `count` tensors: written first, read or written
    last; graph `inputs` (tensor ids) start at -1, graph `outputs` end after the last op;
    None for a tensor never written. `ops`: (input ids, output ids) in execution order."""
    end = len(ops)
    first = [None] * count
    last = [None] * count
    for tid in inputs:
        first[tid] = last[tid] = -1
    for i, (ins, outs) in enumerate(ops):
        for tid in ins:
            last[tid] = i
        for tid in outs:
            if first[tid] is None:
                first[tid] = i
            last[tid] = i
    for tid in outputs:
        last[tid] = end
    return first, last


def check_plan(tensors, ops, inputs, outputs, delta):
    """Refuse (ValueError naming the op and tensors) a plan that puts two tensors of one
    dtype that are alive at the same time on the same bytes, unless the later one is the
    output of an op writing over its dying input no further than `delta(i, k)` allows (the
    `overlap_delta` of op i's input k, or None). `tensors`: (shape, dtype, byte offset, ...)
    each; `ops`: (kind, input ids, output ids) in order; `inputs`, `outputs`:
    tensor ids of the graph."""
    first, last = lifetimes(len(tensors), [(o[1], o[2]) for o in ops], inputs, outputs)
    born = {}
    for tid, at in enumerate(first):
        if at is not None:
            born.setdefault(at, []).append(tid)
    live = []
    for i in range(-1, len(ops)):
        new = born.get(i, ())
        for t in new:
            live.append(t)
            for u in live:
                if u != t and _overlap(tensors[t], tensors[u]):
                    _allowed(tensors, ops, i, t, u, last, delta)
        if i >= 0:
            _in_place_reads(tensors, ops[i], i, delta)
        live = [u for u in live if last[u] > i]


def _overlap(a, b):
    """Do tensors a and b (shape, dtype, offset, ...) share arena bytes?"""
    if a[1] != b[1]:
        return False
    size = ITEMSIZE[a[1]]
    return a[2] < b[2] + _numel(b[0]) * size and b[2] < a[2] + _numel(a[0]) * size


def _name(i, ops):
    return "graph input" if i < 0 else "op %d (%s)" % (i, ops[i][0])


def _allowed(tensors, ops, i, t, u, last, delta):
    """Tensor t, born at op i, overlaps u, alive: legal only as op i's output over its
    input u dying at i, starting at least delta below it."""
    need = None
    if i >= 0 and last[u] == i and len(ops[i][2]) == 1 and ops[i][2][0] == t:
        ins = ops[i][1]
        for k in range(len(ins)):
            if ins[k] == u:
                d = delta(i, k)
                if d is None:
                    need = None
                    break
                need = d if need is None else max(need, d)
    if need is None:
        raise ValueError("%s writes tensor %d over tensor %d, which is still needed "
                         "(arena offsets %d and %d)" % (_name(i, ops), t, u, tensors[t][2],
                                                        tensors[u][2]))
    if tensors[t][2] + need > tensors[u][2]:
        raise ValueError("%s writes tensor %d at arena offset %d over its input tensor %d at "
                         "%d: the kernel needs the output at least %d bytes below"
                         % (_name(i, ops), t, tensors[t][2], u, tensors[u][2], need))


def _in_place_reads(tensors, op, i, delta):
    """An op that reads and writes the same tensor: only where its kernel allows delta 0."""
    kind, ins, outs = op
    for k in range(len(ins)):
        if ins[k] in outs:
            d = delta(i, k) if len(outs) == 1 else None
            if d is None or d > 0:
                raise ValueError("op %d (%s) writes tensor %d over itself, which its kernel "
                                 "cannot do" % (i, kind, ins[k]))

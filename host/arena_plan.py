"""The activation arena planner: one offset per tensor in one buffer per dtype.

Tensors alive at the same time never overlap, except that an op's output may overlap an
input that dies at that op when the kernel's write order makes it safe (see
docs/bst-format.md, "Arena and in-place execution"). Several placement orders are tried and
the smallest arena wins. The overlap formulas live in `burn.graph.in_place`, shared with
the `.bst` reader, which refuses any other overlap.
"""

from burn.graph import in_place
from burn.graph.in_place import ITEMSIZE


def tensor_bytes(tensor):
    """Bytes a GraphTensor takes in its arena."""
    n = 1
    for d in tensor.shape:
        n *= int(d)
    return n * ITEMSIZE[tensor.dtype]


def overlap_delta(op, input_index, tensors):
    """Bytes by which the output of `op` must start below input `input_index` for it to
    overlap that input, or None when they must not overlap at all (burn.graph.in_place)."""
    if len(op.outputs) != 1:
        return None
    x = tensors[op.inputs[input_index]]
    y = tensors[op.outputs[0]]
    if x.dtype != y.dtype:
        return None
    w = op.consts.get("w")
    return in_place.overlap_delta(op.op, op.params, x.shape, y.shape, ITEMSIZE[x.dtype],
                                  None if w is None else w.shape)


def lifetimes(graph):
    """(first, last) op index of every tensor; graph inputs start at -1, outputs end after
    the last op (burn.graph.in_place.lifetimes, the rule the .bst reader checks)."""
    return in_place.lifetimes(len(graph.tensors), [(op.inputs, op.outputs) for op in graph.ops],
                              [tid for tid, _shape in graph.inputs],
                              [tid for tid, _shape in graph.outputs])


def _pair_deltas(graph, last):
    """{(out_tid, in_tid): delta} for every legal output-over-dying-input overlap."""
    pairs = {}
    for i, op in enumerate(graph.ops):
        if not op.outputs:  # assign_variable, call_once: nothing to lay over an input
            continue
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


# the op kinds that run subgraphs, and the parameters that name them (burn.graph.control)
CALLS = {"call_once": ("graph",), "if": ("then", "else"), "while": ("cond", "body")}


def _calls(op):
    return [op.params[key] for key in CALLS.get(op.op, ())]


def _subgraph_levels(graph, sizes):
    """{subgraph: {dtype: base}}: where each subgraph's own arena starts within the region
    of all subgraphs, so that a subgraph lies above every subgraph that runs it (the calls
    form no cycle: ValueError otherwise), and the region's size per dtype. Subgraphs that
    never run at the same time (two branches, a cond and its body) share bytes."""
    count = len(graph.subgraphs)
    callers = {s: set() for s in range(count)}
    for s, g in enumerate(graph.subgraphs):
        for op in g.ops:
            for c in _calls(op):
                if not 0 <= c < count:
                    raise ValueError("subgraph %d op %s calls subgraph %d, which does not "
                                     "exist" % (s, op.op, c))
                callers[c].add(s)
    base, todo = {}, set(range(count))
    while todo:
        ready = [s for s in sorted(todo) if callers[s] <= set(base)]
        if not ready:
            raise ValueError("subgraph cycle among subgraphs %s" % sorted(todo))
        for s in ready:
            base[s] = {d: max([base[c][d] + sizes[c][d] for c in callers[s]], default=0)
                       for d in ITEMSIZE}
            todo.discard(s)
    region = {d: max([base[s][d] + sizes[s][d] for s in base], default=0) for d in ITEMSIZE}
    return base, region


def plan_arena(graph):
    """Plan the arenas of `graph`: returns (offsets, arena) where offsets[tid] is a byte
    offset in the arena of the tensor's dtype and arena maps dtype -> bytes. A graph with
    subgraphs plans each subgraph on its own, stacks them above the subgraphs that run them
    (_subgraph_levels), and plans the main graph with that region as one more tensor, alive
    from its first op that runs a subgraph to its last."""
    from burn.host.bst_writer import Graph, GraphOp, GraphTensor

    if not graph.subgraphs:
        return _plan_graph(graph)
    plans = [_plan_graph(Graph(graph.tensors, g.ops, [(t, ()) for t in g.inputs],
                               [(t, ()) for t in g.outputs])) for g in graph.subgraphs]
    base, region = _subgraph_levels(graph, [arena for _o, arena in plans])
    calling = [i for i, op in enumerate(graph.ops) if _calls(op)]
    tensors, ops = list(graph.tensors), list(graph.ops)
    frame = {}
    for dtype, size in region.items():
        if size and calling:
            frame[dtype] = len(tensors)
            tensors.append(GraphTensor("(subgraphs)", (size // ITEMSIZE[dtype],), dtype))
    if frame:
        a, b = calling[0], calling[-1]
        ops[a] = GraphOp(ops[a].op, ops[a].inputs, ops[a].outputs + list(frame.values()),
                         ops[a].consts, ops[a].params)
        ops[b] = GraphOp(ops[b].op, ops[b].inputs + list(frame.values()), ops[b].outputs,
                         ops[b].consts, ops[b].params)
    offsets, arena = _plan_graph(Graph(tensors, ops, graph.inputs, graph.outputs))
    for s, g in enumerate(graph.subgraphs):
        mine = set(g.inputs) | set(g.outputs) | {t for op in g.ops
                                                 for t in op.inputs + op.outputs}
        for t in mine:
            dtype = graph.tensors[t].dtype
            offsets[t] = offsets[frame[dtype]] + base[s][dtype] + plans[s][0][t] \
                if dtype in frame else plans[s][0][t]
    return offsets[:len(graph.tensors)], arena


def _plan_graph(graph):
    """plan_arena of a graph whose ops run no subgraph (or whose subgraphs are placed
    apart)."""
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

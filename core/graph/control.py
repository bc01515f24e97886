"""Subgraphs and resource variables of a `.bst` graph: TFLite's IF, WHILE and CALL_ONCE, and
READ_VARIABLE / ASSIGN_VARIABLE (docs/bst-format.md, "Subgraphs and variables").

A file with a `subgraphs` or `variables` key has this module set them up before its ops are
prepared (`setup`): it refuses a call to a subgraph that does not exist or a cycle of calls
(a graph that would call itself), a tensor shared by two graphs and a variable that no op
writes, makes each variable's buffer outside the arena (drawing on `ctx.room`, as an svdf's
state does) and one list of steps per subgraph, which burn.bst_ops prepares as it prepares
the main graph's. `prepare(step, ctx, variant)` binds the control ops; every kernel here is
a loop of copies and subgraph runs, as TFLM's: IF copies its operands into the chosen
branch's inputs, runs it and copies its outputs out; WHILE copies its operands into its
outputs, then runs the cond subgraph on them and, while its first output is nonzero, the
body, whose outputs it copies back. Each subgraph has its own arena plan within the shared
arena; `check_frames` refuses a plan where a subgraph's tensors overlap a tensor of a
calling graph that is alive at the call.

Resource variables are buffers of the model, read and written by copies: they keep their
values from one inference to the next. They start at their rest value (TFLM's: every byte
the int8 zero point of the first value assigned, so 0 for a float variable), and so does
Model.reset(), as TFLM's Reset(), which leaves CALL_ONCE done; Model.reset(init=True) also
re-arms CALL_ONCE, so the next inference runs the init subgraphs again, as after load.
MicroPython-safe; a default firmware leaves this module out.
"""

from burn.bst import ITEMSIZE, TYPECODE, zeros
from burn.graph import layout
from burn.graph.in_place import lifetimes
from burn.shape import numel

MAX_SUBGRAPHS = 256
CALLS = {"call_once": ("graph",), "if": ("then", "else"), "while": ("cond", "body")}
KINDS = ("call_once", "if", "while", "read_variable", "assign_variable", "constant")
_CAN_CAST = hasattr(memoryview, "cast")


class Subgraph:
    """A subgraph bound at load: its steps (prepared like the main graph's), its input and
    output tensor ids and their arena views."""

    def __init__(self, index, ops, inputs, outputs):
        self.index = index
        self.ops = ops
        self.inputs = inputs
        self.outputs = outputs
        self.steps = []


def _callees(ops, count, where):
    """The subgraphs that `ops` call, checked to exist; `where` names the graph."""
    found = []
    for i, op in enumerate(ops):
        for key in CALLS.get(op[0], ()):
            g = op[4].get(key)
            if type(g) is not int or not 0 <= g < count:
                raise ValueError("%sop %d (%s): %s subgraph %r does not exist (the file has "
                                 "%d)" % (where, i, op[0], key, g, count))
            found.append(g)
    return found


def _check_calls(bst):
    """Refuse a call to a missing subgraph or a cycle of calls (a subgraph that would run
    itself, as WHILE's body running the same WHILE), without running anything."""
    count = len(bst.subgraphs)
    if count > MAX_SUBGRAPHS:
        raise ValueError("%d subgraphs: more than %d" % (count, MAX_SUBGRAPHS))
    calls = [_callees(g[0], count, "subgraph %d " % s) for s, g in enumerate(bst.subgraphs)]
    _callees(bst.ops, count, "")
    state = [0] * count  # 0 unseen, 1 on the path, 2 done
    for root in range(count):
        if state[root]:
            continue
        path = [root]
        todo = [(root, 0)]
        state[root] = 1
        while todo:
            g, k = todo.pop()
            if k < len(calls[g]):
                todo.append((g, k + 1))
                c = calls[g][k]
                if state[c] == 1:
                    cycle = path[path.index(c):] + [c]
                    raise ValueError("subgraph cycle: " + " -> ".join(
                        ["subgraph %d" % x for x in cycle]) + " (a graph may not call itself)")
                if state[c] == 0:
                    state[c] = 1
                    path.append(c)
                    todo.append((c, 0))
            else:
                state[g] = 2
                path.pop()
    return calls


def _owners(bst):
    """Refuse a tensor that two graphs use (each graph's tensors are its own, planned on
    their own); returns [set of tensor ids] per subgraph."""
    owner = {}
    sets = []
    for g, (ops, ins, outs) in enumerate([(bst.ops, [t for t, _s in bst.inputs],
                                           [t for t, _s in bst.outputs])] + bst.subgraphs):
        mine = set(ins) | set(outs)
        for op in ops:
            mine.update(op[1])
            mine.update(op[2])
        for t in mine:
            if t in owner:
                raise ValueError("tensor %d belongs to %s and %s" % (
                    t, _graph_name(owner[t]), _graph_name(g)))
            owner[t] = g
        sets.append(mine)
    return sets


def _graph_name(g):
    return "the main graph" if g == 0 else "subgraph %d" % (g - 1)


def setup(ctx, bst):
    """Check the calls between graphs and make ctx.graphs (a Subgraph each, steps not yet
    prepared), ctx.variables ([buffer, rest value, dtype] each) and ctx.once (CALL_ONCE's
    done flags)."""
    from burn.bst_ops import Step

    _check_calls(bst)
    ctx.tensor_sets = _owners(bst)
    ctx.once = []
    ctx.graphs = []
    for s, (ops, ins, outs) in enumerate(bst.subgraphs):
        g = Subgraph(s, ops, ins, outs)
        for i, op in enumerate(ops):
            step = Step(i, *op)
            step.sub = s
            g.steps.append(step)
        ctx.graphs.append(g)
    written = [False] * len(bst.variables)
    for ops in [bst.ops] + [g[0] for g in bst.subgraphs]:
        for op in ops:
            v = op[4].get("var")
            if op[0] == "assign_variable" and type(v) is int and 0 <= v < len(written):
                written[v] = True
    ctx.variables = []
    for v, (dtype, count, rest, name) in enumerate(bst.variables):
        if not written[v]:
            raise ValueError("variable %d (%s) is never assigned: a read of it would have "
                             "no value (TFLM's too)" % (v, name))
        size = count * ITEMSIZE[dtype]
        left = ctx.room - ctx.arena_bytes
        if size > left:
            raise ValueError("variable %d (%s): %d bytes, more than the %d the model may use "
                             "beyond its arena" % (v, name, size, left))
        ctx.room -= size
        buf = zeros(TYPECODE[dtype], count)
        _fill(buf, rest)
        ctx.variables.append([buf, rest, dtype])


def _fill(buf, value):
    for i in range(len(buf)):
        buf[i] = value


def reset(ctx, init):
    """Variables back to their rest value; with `init`, CALL_ONCE re-armed too, and a
    CALL_ONCE that comes before every other step of the main graph run now rather than at
    the next inference: the same, since no step reads a variable before it and its
    subgraph's tensors overlap none alive at the call, and a plan of the model leaves it
    out (burn.bst_ops.flex_plan, burn.host.flex.runtime)."""
    for buf, rest, _dtype in ctx.variables:
        _fill(buf, rest)
    if init:
        for flag in ctx.once:
            flag[0] = 0
        for s in ctx._steps:
            if s.kind != "call_once":
                break
            s.k(*s.a)


def all_steps(ctx):
    """The steps of every subgraph, in order."""
    out = []
    for g in ctx.graphs:
        out += g.steps
    return out


def check_frames(ctx, steps, tensors):
    """Refuse a plan where a tensor of a subgraph that an op calls (or of one that it calls,
    and so on) shares arena bytes with a tensor of the calling graph alive at that op."""
    graphs = [(steps, [t for t, _s in ctx._bst.inputs], [t for t, _s in ctx._bst.outputs],
               "")] + [(g.steps, g.inputs, g.outputs, "subgraph %d " % g.index)
                       for g in ctx.graphs]
    reach = {}

    def reached(s):  # the tensors of subgraph s and of every subgraph it calls
        if s not in reach:
            found = set(ctx.tensor_sets[s + 1])
            for step in ctx.graphs[s].steps:
                for c in step.calls:
                    found |= reached(c)
            reach[s] = found
        return reach[s]

    for gsteps, ins, outs, where in graphs:
        first = last = None
        for i, step in enumerate(gsteps):
            if not step.calls:
                continue
            if first is None:
                first, last = lifetimes(len(tensors), [(s.ins, s.outs) for s in gsteps],
                                        ins, outs)
            inner = set()
            for c in step.calls:
                inner |= reached(c)
            alive = [u for u in range(len(tensors)) if first[u] is not None and
                     first[u] <= i <= last[u]]
            for t in inner:
                for u in alive:
                    a, b = tensors[t], tensors[u]
                    size = ITEMSIZE[a[1]]
                    if a[1] == b[1] and a[2] < b[2] + numel(b[0]) * size and \
                            b[2] < a[2] + numel(a[0]) * size:
                        raise ValueError(
                            "%sop %d (%s): tensor %d of a subgraph it runs overlaps tensor %d, "
                            "alive at the op (arena offsets %d and %d)" % (
                                where, i, step.kind, t, u, a[2], b[2]))


# -- kernels ---------------------------------------------------------------------------------

def _copies(pairs):
    for fn, src, dst, n in pairs:
        fn(src, dst, n)


def _call_once(done, graph, run):
    if not done[0]:
        run(graph)
        done[0] = 1


def _if(cond, run, then_g, then_in, then_out, else_g, else_in, else_out):
    if cond[0]:
        _copies(then_in)
        run(then_g)
        _copies(then_out)
    else:
        _copies(else_in)
        run(else_g)
        _copies(else_out)


def _while(run, start, cond_g, cond_in, flag, body_g, body_in, body_out):
    _copies(start)
    _copies(cond_in)
    run(cond_g)
    while flag[0]:
        _copies(body_in)
        run(body_g)
        _copies(body_out)
        _copies(cond_in)
        run(cond_g)


# -- prepare ---------------------------------------------------------------------------------

def _copier(dtype, variant):
    """burn.graph.layout's copy for `dtype`: the viper one for int8 unless plain."""
    return layout.copy_s8 if dtype == "int8" and variant != "plain" else layout.copy


def _pairs(step, ctx, src, dst, what, variant):
    """[(copy, source view, destination view, count)] from tensors `src` to tensors `dst`,
    which must agree in number, dtype and size (TFLM copies bytes between tensors of one
    type)."""
    if len(src) != len(dst):
        step.fail("%s: %d tensors for %d" % (what, len(src), len(dst)))
    out = []
    for k in range(len(src)):
        a, b = ctx.tensors[src[k]], ctx.tensors[dst[k]]
        if a[1] != b[1] or numel(a[0]) != numel(b[0]):
            step.fail("%s %d: %s %s into %s %s" % (what, k, a[1], a[0], b[1], b[0]))
        out.append((_copier(a[1], variant), ctx.view(src[k]), ctx.view(dst[k]), numel(a[0])))
    return out


def _graph(step, ctx, key):
    g = step.params.get(key)
    if type(g) is not int or not 0 <= g < len(ctx.graphs):
        step.fail("%s subgraph %r does not exist" % (key, g))
    step.calls.append(g)
    return ctx.graphs[g]


def _flag(step, ctx, tid, what):
    """The view of a bool (int8 0/1) tensor of one element."""
    shape, dtype = ctx.tensors[tid][:2]
    if dtype != "int8" or numel(shape) != 1:
        step.fail("%s must be one bool (int8) element, not %s %s" % (what, dtype, shape))
    return ctx.view(tid)


def _arity(step, n_in, n_out):
    if (n_in is not None and len(step.ins) != n_in) or \
            (n_out is not None and len(step.outs) != n_out):
        step.fail("expected %s inputs and %s outputs" % (n_in, n_out))


def _variable(step, ctx):
    v = step.params.get("var")
    if type(v) is not int or not 0 <= v < len(ctx.variables):
        step.fail("variable %r does not exist" % (v,))
    return ctx.variables[v]


def _value(step, ctx, tid, var, variant):
    """(copy, the tensor's view, count) of tensor `tid`, of variable `var`'s type and size."""
    shape, dtype = ctx.tensors[tid][:2]
    if dtype != var[2] or numel(shape) != len(var[0]):
        step.fail("tensor %d is %s %s; the variable holds %d %s values" % (
            tid, dtype, shape, len(var[0]), var[2]))
    return _copier(dtype, variant), ctx.view(tid), len(var[0])


def _const_value(step, ctx, dtype, count):
    """Constant `value` of the step: `count` values of `dtype`, int8 bytes read signed."""
    if "value" not in step.consts:
        step.fail("missing constant value")
    buf, dt, shape = ctx.const(step, "value")
    if dt != dtype or numel(shape) != count:
        step.fail("constant value is %s %s, expected %d %s values" % (dt, shape, count, dtype))
    if dt == "int8" and _CAN_CAST and isinstance(buf, memoryview) and buf.format == "B":
        buf = buf.cast("b")
    return buf


def prepare(step, ctx, variant=None):
    """Check and bind a control op or variable op (see the module docstring)."""
    kind = step.kind
    step.runtime = "plain"
    step.calls = []
    run = ctx.run_graph
    if kind == "call_once":
        _arity(step, 0, 0)
        g = _graph(step, ctx, "graph")
        done = [0]
        ctx.once.append(done)
        step.k, step.a = _call_once, (done, g, run)
    elif kind == "if":
        if not step.ins:
            step.fail("expected a condition")
        cond = _flag(step, ctx, step.ins[0], "the condition")
        a = (cond, run)
        for key in ("then", "else"):
            g = _graph(step, ctx, key)
            a += (g, _pairs(step, ctx, step.ins[1:], g.inputs, "operand", variant),
                  _pairs(step, ctx, g.outputs, step.outs, key + " output", variant))
        step.k, step.a = _if, a
    elif kind == "while":
        cond, body = _graph(step, ctx, "cond"), _graph(step, ctx, "body")
        if not cond.outputs:
            step.fail("the cond subgraph has no output")
        flag = _flag(step, ctx, cond.outputs[0], "the cond subgraph's output 0")
        step.k = _while
        step.a = (run, _pairs(step, ctx, step.ins, step.outs, "operand", variant), cond,
                  _pairs(step, ctx, step.outs, cond.inputs, "cond input", variant), flag, body,
                  _pairs(step, ctx, step.outs, body.inputs, "body input", variant),
                  _pairs(step, ctx, body.outputs, step.outs, "body output", variant))
    elif kind == "read_variable":
        _arity(step, 0, 1)
        var = _variable(step, ctx)
        fn, view, n = _value(step, ctx, step.outs[0], var, variant)
        step.k, step.a = fn, (var[0], view, n)
    elif kind == "assign_variable":
        _arity(step, None, 0)
        var = _variable(step, ctx)
        if len(step.ins) == 1:
            fn, view, n = _value(step, ctx, step.ins[0], var, variant)
        elif not step.ins:
            n = len(var[0])
            fn, view = layout.copy, _const_value(step, ctx, var[2], n)
        else:
            step.fail("expected one input or a constant value")
        step.k, step.a = fn, (view, var[0], n)
    elif kind == "constant":
        _arity(step, 0, 1)
        shape, dtype = ctx.tensors[step.outs[0]][:2]
        n = numel(shape)
        step.k = layout.copy
        step.a = (_const_value(step, ctx, dtype, n), ctx.view(step.outs[0]), n)
    else:
        step.fail("not a control op")

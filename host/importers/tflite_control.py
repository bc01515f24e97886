"""The subgraphs and resource variables of a TFLite model, resolved before conversion.

`plan(tf)` follows the calls from the main graph (IF's branches, WHILE's cond and body,
CALL_ONCE's init subgraph) and refuses a call to a subgraph the file lacks or a cycle of
calls, naming the node. It gives each subgraph that runs a `.bst` subgraph index (in the
file's order) and resolves every resource handle to a variable: VAR_HANDLE names a variable
by its shared name (TFLM's MicroResourceVariables: the same name is the same variable, in
any subgraph), and a handle passed to a subgraph as an IF or WHILE operand is the caller's.
A handle that cannot be followed to one variable, a variable that is read but never
assigned (TFLM reads a buffer it never allocated), or reads and writes of a variable that
disagree in type or size (TFLM copies bytes between them) is refused, naming node, op and
types.

A variable's rest value is TFLM's: the buffer TFLM allocates, when it prepares the first
ASSIGN_VARIABLE of the variable (subgraph by subgraph, op by op) whose handle comes from a
VAR_HANDLE of its own subgraph, has each byte set to the int8 zero point of that op's value
(0 for a value without quantization), and its Reset() sets it so again.
"""

import numpy as np

from burn.host.bst_writer import Variable
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite_prune import called
from burn.host.importers.tflite_read import RESOURCE

# the numpy types a variable, an IF or WHILE operand may have, and their .bst dtypes
# (a BOOL is int8 0/1)
STORED = {np.dtype(np.bool_): "int8", np.dtype(np.int8): "int8", np.dtype(np.int16): "int16",
          np.dtype(np.int32): "int32", np.dtype(np.float32): "float32",
          np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8",
          np.dtype(np.uint32): "uint32"}
# the TFLite type names of those, as TFLM's type pairs spell them (op_coverage)
TYPE_NAMES = ("bool", "float32", "int8", "int16", "int32", "int64", "uint8", "uint32")


def is_resource(tf, t):
    """Whether tensor `t` of subgraph `tf` is a resource handle."""
    return t >= 0 and tf.tensors[t].type_name == RESOURCE


def type_name(tt):
    """A tensor's type as TFLM's messages name it ('float32', 'bool', 'RESOURCE')."""
    return tt.type_name.lower() if tt.type_name != RESOURCE else "resource"


class Control:
    """The resolved calls and variables of a model (see the module docstring)."""

    def __init__(self, tf):
        self.tf = tf
        self.order = []       # the TFLite subgraphs that run, but the main one, in file order
        self.index = {}       # TFLite subgraph -> .bst subgraph index
        self.handles = {}     # (TFLite subgraph, tensor) -> variable index
        self.names = []       # each variable's shared name
        self.values = {}      # variable -> [(subgraph, node, value tensor, assigned?)]
        self.used = []        # the variables some op assigns: the .bst's, in this order

    def subgraph(self, node, field):
        """The .bst index of the subgraph that option `field` of `node` names."""
        return self.index[node.options[field]]

    def variable(self, sub, node):
        """The .bst index of the variable of `node`'s resource operand (its input 0)."""
        return self.used.index(self.handles[(sub, node.inputs[0])])

    def variables(self):
        """[burn.host.bst_writer.Variable] of every variable that is assigned, in index
        order."""
        out = []
        for v in self.used:
            name = self.names[v]
            s, _node, t, _assigned = self._first_assign(v)
            tt = self.tf.subgraphs[s].tensors[t]
            byte = (tt.zero_points[0] & 0xFF) if tt.scales and tt.zero_points else 0
            dtype = STORED[tt.dtype]
            store = np.dtype(np.int8) if tt.dtype == np.bool_ else tt.dtype
            rest = np.frombuffer(bytes([byte]) * store.itemsize, store)[0].item()
            out.append(Variable(name[-48:], tt.shape, dtype, rest))
        return out

    def _first_assign(self, v):
        uses = [u for u in self.values[v] if u[3]]
        own = [u for u in uses if u[1] is not None and u[1] >= 0]
        return (own or uses)[0]


def _reachable(tf):
    """The TFLite subgraphs the main graph runs, checked: every index exists and no call
    leads back to a graph on its own path."""
    count = len(tf.subgraphs)
    order, state = [], {0: 1}

    def visit(s, path):
        for node in tf.subgraphs[s].ops:
            for field, g in called(node):
                if type(g) is not int or not 0 <= g < count:
                    raise TFLiteImportError(
                        "%s: %s %r: no such subgraph (the model has %d)"
                        % (node.where(), field, g, count))
                if state.get(g) == 1:
                    cycle = path[path.index(g):] + [g]
                    raise TFLiteImportError(
                        "%s: subgraph cycle %s (a graph may not run itself)" % (
                            node.where(), " -> ".join("subgraph %d" % x for x in cycle)))
                if g not in state:
                    state[g] = 1
                    visit(g, path + [g])
                    state[g] = 2
                    order.append(g)

    visit(0, [0])
    return sorted(order)


def _resolve_handles(c, subs):
    """Map each resource tensor of the running subgraphs to its variable."""
    tf = c.tf
    for s in subs:
        g = tf.subgraphs[s]
        for node in g.ops:
            if node.name != "VAR_HANDLE":
                continue
            if len(node.outputs) != 1 or not is_resource(g, node.outputs[0]):
                raise TFLiteImportError("%s: needs one resource output" % node.where())
            opts = node.options or {}
            name = opts.get("SharedName") or ""
            if not name:
                raise TFLiteImportError("%s: a variable without a shared name" % node.where())
            if name not in c.names:
                c.names.append(name)
                c.values[c.names.index(name)] = []
            c.handles[(s, node.outputs[0])] = c.names.index(name)
    changed = True
    while changed:  # handles passed into subgraphs as IF and WHILE operands
        changed = False
        for s in subs:
            for node in tf.subgraphs[s].ops:
                if node.name not in ("IF", "WHILE"):
                    continue
                first = 1 if node.name == "IF" else 0
                for _field, g in called(node):
                    callee = tf.subgraphs[g]
                    for k, t in enumerate(node.inputs[first:]):
                        v = c.handles.get((s, t))
                        if v is None or k >= len(callee.inputs):
                            continue
                        key = (g, callee.inputs[k])
                        if c.handles.get(key, v) != v:
                            raise TFLiteImportError(
                                "%s: subgraph %d input %d receives two variables (%s and %s)"
                                % (node.where(), g, k, c.names[c.handles[key]], c.names[v]))
                        if key not in c.handles:
                            c.handles[key] = v
                            changed = True
                    if node.name == "WHILE":  # a loop variable keeps its handle
                        for k, t in enumerate(node.inputs):
                            v = c.handles.get((s, t))
                            if v is not None and k < len(node.outputs) and \
                                    (s, node.outputs[k]) not in c.handles:
                                c.handles[(s, node.outputs[k])] = v
                                changed = True


def _check_variables(c, subs):
    tf = c.tf
    reads = {}
    for s in subs:
        g = tf.subgraphs[s]
        for node in g.ops:
            if node.name not in ("READ_VARIABLE", "ASSIGN_VARIABLE"):
                continue
            need = 1 if node.name == "READ_VARIABLE" else 2
            outs = 1 if node.name == "READ_VARIABLE" else 0
            if len(node.inputs) != need or min(node.inputs) < 0 or len(node.outputs) != outs:
                raise TFLiteImportError("%s: needs %d inputs and %d outputs, has %s -> %s"
                                        % (node.where(), need, outs, node.inputs,
                                           node.outputs))
            t = node.inputs[0]
            if not is_resource(g, t) and g.tensors[t].type_name != "int32":
                raise TFLiteImportError("%s: the variable operand is %s; TFLM takes a "
                                        "resource" % (node.where(), type_name(g.tensors[t])))
            v = c.handles.get((s, t))
            if v is None:
                raise TFLiteImportError(
                    "%s: its resource operand (tensor %d) does not come from a VAR_HANDLE "
                    "that burn can follow" % (node.where(), t))
            value = node.inputs[1] if outs == 0 else node.outputs[0]
            tt = g.tensors[value]
            if tt.dtype not in STORED:
                raise TFLiteImportError("%s: a variable of %s: burn holds %s values" % (
                    node.where(), type_name(tt), ", ".join(TYPE_NAMES)))
            own = any(n.name == "VAR_HANDLE" and n.outputs == [t] for n in g.ops)
            if outs == 0:
                c.values[v].append((s, node.index if own else -1, value, True))
            else:
                reads.setdefault(v, []).append((s, node, value))
    for v, name in enumerate(c.names):
        assigned = c.values[v]
        if not assigned:
            if v in reads:
                node = reads[v][0][1]
                raise TFLiteImportError(
                    "%s: variable %r is read but never assigned (no ASSIGN_VARIABLE writes "
                    "it; TFLM would read a buffer it never allocated)" % (node.where(), name))
            continue
        s0, _n, t0, _a = c._first_assign(v)
        ref = tf.subgraphs[s0].tensors[t0]
        for s, _n, t, _a in assigned:
            _same(tf.subgraphs[s].tensors[t], ref, name, "assigned", s)
        for s, node, t in reads.get(v, ()):
            tt = tf.subgraphs[s].tensors[t]
            if tt.dtype != ref.dtype or _numel(tt) != _numel(ref):
                raise TFLiteImportError(
                    "%s: reads variable %r as %s %s; it holds %s %s" % (
                        node.where(), name, type_name(tt), list(tt.shape), type_name(ref),
                        list(ref.shape)))


def _numel(tt):
    return int(np.prod(tt.shape, dtype=np.int64))


def _same(tt, ref, name, what, s):
    if tt.dtype != ref.dtype or _numel(tt) != _numel(ref):
        raise TFLiteImportError("variable %r is %s %s %s and %s %s (subgraph %d): TFLM copies "
                                "bytes between values of one type and size" % (
                                    name, what, type_name(ref), list(ref.shape),
                                    type_name(tt), list(tt.shape), s))


def plan(tf):
    """The Control of TfModel `tf` (pruned: burn.host.importers.tflite_prune)."""
    c = Control(tf)
    c.order = _reachable(tf)
    c.index = {s: k for k, s in enumerate(c.order)}
    _resolve_handles(c, [0] + c.order)
    _check_variables(c, [0] + c.order)
    c.used = [v for v in range(len(c.names)) if c.values[v]]
    return c

"""Converters of the control ops and resource variables: IF, WHILE, CALL_ONCE, VAR_HANDLE,
READ_VARIABLE and ASSIGN_VARIABLE (burn.graph.control runs them; the calls and variables
are resolved before conversion by burn.host.importers.tflite_control).

Resource handles have no tensor in a `.bst`: VAR_HANDLE emits nothing, and the resource
operands of IF and WHILE (with the subgraph inputs and outputs they pass to) are left out
of the op and of the subgraphs. A constant operand of IF or WHILE becomes a `constant` op
that fills a tensor of its own. Everything TFLM's Prepare() checks is checked here, with
the types named: IF's condition one bool, WHILE's loop variables and the subgraphs' inputs
and outputs of one type and size each.
"""

import numpy as np

from burn.bst import PLAIN_INTS
from burn.host.bst_writer import GraphOp
from burn.host.importers.tflite.registry import Fail, converts
from burn.host.importers.tflite_control import STORED, is_resource, type_name


def _types(c, tf, t):
    tt = tf.tensors[t]
    return "%s %s" % (type_name(tt), list(tt.shape))


def _agree(c, node, what, tf_a, a, tf_b, b):
    """TFLM copies bytes between tensors of one type and size: refuse others."""
    x, y = tf_a.tensors[a], tf_b.tensors[b]
    if is_resource(tf_a, a) != is_resource(tf_b, b) or (
            not is_resource(tf_a, a) and (x.dtype != y.dtype or
                                          np.prod(x.shape) != np.prod(y.shape))):
        raise Fail("%s: %s into %s (TFLM copies between tensors of one type and size)"
                   % (what, _types(c, tf_a, a), _types(c, tf_b, b)))


def _kept(tf, tensors):
    """The tensors that are not resource handles."""
    return [t for t in tensors if not is_resource(tf, t)]


def _flag(c, tf, t, what):
    tt = tf.tensors[t]
    if tt.dtype != np.bool_ or np.prod(tt.shape) != 1:
        raise Fail("%s is %s; TFLM takes one bool" % (what, _types(c, tf, t)))


def _callee(c, node, field):
    return c.tf.subgraphs[node.options[field]]


def _positions(tf, tensors):
    return [k for k, t in enumerate(tensors) if not is_resource(tf, t)]


@converts("VAR_HANDLE", arity=0)
def _var_handle(c, node):
    """Nothing: the importer resolved the handle (tflite_control)."""


@converts("CALL_ONCE", arity=0, many_outputs=True)
def _call_once(c, node):
    if node.inputs or node.outputs:
        raise Fail("CALL_ONCE takes no tensors, has %s -> %s" % (node.inputs, node.outputs))
    g = c.control.subgraph(node, "InitSubgraphIndex")
    c.ops.append(GraphOp("call_once", [], [], params={"graph": g}))


@converts("READ_VARIABLE", arity=1, bool_inputs=True, int16=True, int32=True,
          plain_ints=PLAIN_INTS)
def _read_variable(c, node):
    c.emit("read_variable", node, ins=[], params={"var": c.control.variable(c.sub, node)})


@converts("ASSIGN_VARIABLE", arity=2, bool_inputs=True, int16=True, int32=True,
          plain_ints=PLAIN_INTS, many_outputs=True)
def _assign_variable(c, node):
    v = c.control.variable(c.sub, node)
    t = node.inputs[1]
    data = c.tf.tensors[t].data
    if data is not None:
        c.ops.append(GraphOp("assign_variable", [], [], params={"var": v},
                             consts={"value": c.stored(t)}))
    else:
        c.ops.append(GraphOp("assign_variable", [c.act(t)], [], params={"var": v}))


@converts("IF", arity=1, bool_inputs=True, int16=True, int32=True, plain_ints=PLAIN_INTS,
          many_outputs=True)
def _if(c, node):
    tf = c.tf
    _flag(c, tf, node.inputs[0], "the condition")
    operands = node.inputs[1:]
    for field in ("ThenSubgraphIndex", "ElseSubgraphIndex"):
        g = _callee(c, node, field)
        if len(g.inputs) != len(operands) or len(g.outputs) != len(node.outputs):
            raise Fail("subgraph %d takes %d inputs and gives %d outputs; the IF has %d "
                       "operands and %d outputs" % (node.options[field], len(g.inputs),
                                                    len(g.outputs), len(operands),
                                                    len(node.outputs)))
        for k, t in enumerate(operands):
            _agree(c, node, "operand %d" % (k + 1), tf, t, g, g.inputs[k])
        for k, t in enumerate(node.outputs):
            _agree(c, node, "subgraph %d output %d" % (node.options[field], k), g,
                   g.outputs[k], tf, t)
    ins = [c.operand(node.inputs[0])] + [c.operand(t) for t in _kept(tf, operands)]
    c.ops.append(GraphOp("if", ins, [c.act(t) for t in _kept(tf, node.outputs)],
                         params={"then": c.control.subgraph(node, "ThenSubgraphIndex"),
                                 "else": c.control.subgraph(node, "ElseSubgraphIndex")}))


@converts("WHILE", arity=0, bool_inputs=True, int16=True, int32=True, plain_ints=PLAIN_INTS,
          many_outputs=True)
def _while(c, node):
    tf = c.tf
    n = len(node.inputs)
    if len(node.outputs) != n:
        raise Fail("%d loop variables in, %d out" % (n, len(node.outputs)))
    cond, body = _callee(c, node, "CondSubgraphIndex"), _callee(c, node, "BodySubgraphIndex")
    for what, g in (("cond", cond), ("body", body)):
        if len(g.inputs) != n or (g is body and len(g.outputs) != n):
            raise Fail("the %s subgraph takes %d inputs and gives %d outputs; the WHILE has "
                       "%d loop variables" % (what, len(g.inputs), len(g.outputs), n))
    if not cond.outputs:
        raise Fail("the cond subgraph gives no output")
    _flag(c, cond, cond.outputs[0], "the cond subgraph's output")
    for k in range(n):
        _agree(c, node, "loop variable %d" % k, tf, node.inputs[k], tf, node.outputs[k])
        _agree(c, node, "loop variable %d" % k, tf, node.inputs[k], cond, cond.inputs[k])
        _agree(c, node, "loop variable %d" % k, tf, node.inputs[k], body, body.inputs[k])
        _agree(c, node, "body output %d" % k, body, body.outputs[k], tf, node.outputs[k])
    c.ops.append(GraphOp("while", [c.operand(t) for t in _kept(tf, node.inputs)],
                         [c.act(t) for t in _kept(tf, node.outputs)],
                         params={"cond": c.control.subgraph(node, "CondSubgraphIndex"),
                                 "body": c.control.subgraph(node, "BodySubgraphIndex")}))


def stored(data, dtype):
    """A constant's values as the .bst holds them: BOOL as int8 0/1."""
    if dtype not in STORED:
        raise Fail("a constant of %s: burn holds bool, float32, int8, int16, int32, int64, "
                   "uint8 and uint32" % dtype)
    return np.ascontiguousarray(data, dtype=STORED[dtype])

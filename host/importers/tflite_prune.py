"""Before conversion, what a TFLite graph computes at import time and what nothing uses.

- SHAPE reads only its input's shape, which a TFLite file fixes (burn's shapes are static),
  so its output becomes a constant and the op goes; so does BROADCAST_ARGS of two constant
  shapes (a SHAPE's output, say): its output is their broadcast shape, computed here.
- An op none of whose outputs reaches a graph output through data operands is dropped. The
  shape operand of RESHAPE and the axis of EXPAND_DIMS are not data: the importer takes the
  output's shape from the file, so a dynamic-reshape chain of the Keras converter (SHAPE ->
  STRIDED_SLICE -> PACK -> RESHAPE) leaves nothing to convert.

Both run before the importer checks the ops, so an unsupported op that nothing needs is no
longer a reason to refuse the model.
"""

import numpy as np

from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite_read import TfModel

FOLDED_AT_IMPORT = ("SHAPE", "BROADCAST_ARGS")
# op -> index of its first operand that only gives a shape or an axis
_SHAPE_OPERANDS = {"RESHAPE": 1, "EXPAND_DIMS": 1}


def data_inputs(node):
    """The input tensors of `node` that carry data (not a shape or an axis), -1s left out."""
    return [t for t in node.inputs[:_SHAPE_OPERANDS.get(node.name)] if t >= 0]


def _broadcast_args(tf, node):
    """The output of BROADCAST_ARGS of two constant 1-D shapes, as TFLM's kernel checks it."""
    if len(node.inputs) != 2 or len(node.outputs) != 1 or min(node.inputs + node.outputs) < 0:
        raise TFLiteImportError("%s: needs two inputs and one output" % node.where())
    a, b, out = (tf.tensors[t] for t in node.inputs + node.outputs)
    if a.data is None or b.data is None:
        raise TFLiteImportError("%s: shapes computed at run time are not supported (burn "
                                "folds BROADCAST_ARGS of constant shapes at import)"
                                % node.where())
    if a.dtype not in (np.int32, np.int64) or {a.dtype, b.dtype, out.dtype} != {a.dtype}:
        raise TFLiteImportError("%s: shapes and output must be all int32 or all int64, got "
                                "%s, %s, %s" % (node.where(), a.type_name, b.type_name,
                                                out.type_name))
    if len(a.shape) != 1 or len(b.shape) != 1:
        raise TFLiteImportError("%s: the shapes must be 1-D" % node.where())
    x, y = [int(v) for v in a.data.reshape(-1)], [int(v) for v in b.data.reshape(-1)]
    n = max(len(x), len(y))
    x, y = [1] * (n - len(x)) + x, [1] * (n - len(y)) + y
    if any(p != q and 1 not in (p, q) for p, q in zip(x, y)):
        raise TFLiteImportError("%s: shapes %s and %s are incompatible" % (node.where(),
                                                                          x, y))
    if tuple(out.shape) != (n,):
        raise TFLiteImportError("%s: output %s cannot hold a shape of %d dims"
                                % (node.where(), tuple(out.shape), n))
    out.data = np.array([q if p == 1 else p for p, q in zip(x, y)], out.dtype)


def _fold_shapes(tf):
    for node in tf.ops:
        if node.name == "BROADCAST_ARGS":
            _broadcast_args(tf, node)
        if node.name != "SHAPE":
            continue
        if len(node.inputs) != 1 or len(node.outputs) != 1 or min(node.inputs +
                                                                   node.outputs) < 0:
            raise TFLiteImportError("%s: needs one input and one output" % node.where())
        src, out = tf.tensors[node.inputs[0]], tf.tensors[node.outputs[0]]
        if out.dtype not in (np.int32, np.int64) or tuple(out.shape) != (len(src.shape),):
            raise TFLiteImportError("%s: output %s %s cannot hold the shape %s" % (
                node.where(), out.type_name, out.shape, tuple(src.shape)))
        out.data = np.array(src.shape, out.dtype)


# ops that act beyond their outputs (a variable's value, a subgraph's): never dropped
SIDE_EFFECTS = ("ASSIGN_VARIABLE", "CALL_ONCE", "IF", "WHILE")
# the options of the ops that run subgraphs, which name them
SUBGRAPH_FIELDS = {"IF": ("ThenSubgraphIndex", "ElseSubgraphIndex"),
                   "WHILE": ("CondSubgraphIndex", "BodySubgraphIndex"),
                   "CALL_ONCE": ("InitSubgraphIndex",)}


def called(node):
    """[(option field, subgraph index)] of the subgraphs `node` runs (IF, WHILE, CALL_ONCE);
    an op without its options table names index None."""
    return [(f, node.options.get(f) if node.options else None)
            for f in SUBGRAPH_FIELDS.get(node.name, ())]


def _prune_one(tf):
    _fold_shapes(tf)
    needed = set(tf.outputs)
    live = []
    for node in reversed(tf.ops):
        if node.name in FOLDED_AT_IMPORT or not (needed.intersection(node.outputs) or
                                                 node.name in SIDE_EFFECTS):
            continue
        live.append(node)
        needed.update(data_inputs(node))
    return TfModel(tf.tensors, live[::-1], tf.inputs, tf.outputs, tf.description, None,
                   tf.index, tf.name)


def prune(tf):
    """`tf` with SHAPE and BROADCAST_ARGS ops folded into constants and the ops nothing
    needs dropped (a new TfModel; the tensors are shared, folded outputs gain their data),
    and so each subgraph that its control ops run, directly or not (their outputs are
    needed as a whole: the caller reads them by position)."""
    subs = list(tf.subgraphs)
    todo, seen = [0], {0}
    while todo:
        s = todo.pop()
        subs[s] = _prune_one(subs[s])
        for node in subs[s].ops:
            for _field, g in called(node):
                if type(g) is int and 0 <= g < len(subs) and g not in seen:
                    seen.add(g)
                    todo.append(g)
    for g in subs:
        g.subgraphs = subs
    return subs[0]

"""Before conversion, what a TFLite graph computes at import time and what nothing uses.

- SHAPE reads only its input's shape, which a TFLite file fixes (burn's shapes are static),
  so its output becomes a constant and the op goes.
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

FOLDED_AT_IMPORT = ("SHAPE",)
# op -> index of its first operand that only gives a shape or an axis
_SHAPE_OPERANDS = {"RESHAPE": 1, "EXPAND_DIMS": 1}


def data_inputs(node):
    """The input tensors of `node` that carry data (not a shape or an axis), -1s left out."""
    return [t for t in node.inputs[:_SHAPE_OPERANDS.get(node.name)] if t >= 0]


def _fold_shapes(tf):
    for node in tf.ops:
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


def prune(tf):
    """`tf` with SHAPE ops folded into constants and the ops nothing needs dropped (a new
    TfModel; the tensors are shared, SHAPE outputs gain their data)."""
    _fold_shapes(tf)
    needed = set(tf.outputs)
    live = []
    for node in reversed(tf.ops):
        if node.name in FOLDED_AT_IMPORT or not needed.intersection(node.outputs):
            continue
        live.append(node)
        needed.update(data_inputs(node))
    return TfModel(tf.tensors, live[::-1], tf.inputs, tf.outputs, tf.description)

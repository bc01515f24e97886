"""The Python module `burn import model.onnx -o model.py` writes: a `burn.nn.Module` class
whose `__init__` builds the layers and whose `forward` is the lowered graph, one line per
ONNX node, plus `load()`, which reads the weights file (`.npz`, no pickles) next to it.

Only names and numbers made by the importer go into the code; ONNX node and tensor names
appear in comments, escaped with `ascii()`, so a hostile name cannot become code."""

_HEADER = '''"""{title}: imported from {source} (ONNX opset {opset}) by `burn import`.

    from {module} import load
    model = load()          # weights from {weights}, next to this file
    y = model(x)            # x: {shape}, batch first (any batch size)
"""

import os

import numpy as np

import burn  # noqa: F401  (used by the forward lines)
from burn import nn
from burn.host.convert import to_tensor
from burn.nn import functional as F  # noqa: F401

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), {weights!r})


class {cls}(nn.Module):
    """The imported network ({layers} layers, {lines} forward operations)."""

    def __init__(self):
        super().__init__()
'''

_FOOTER = '''

def load(path=WEIGHTS):
    """A {cls} in eval mode with the imported weights (an .npz of float32 arrays)."""
    model = {cls}()
    with np.load(path, allow_pickle=False) as w:
        model.load_state_dict({{k: to_tensor(w[k]) for k in w.files}})
    return model.eval()
'''


def _comment(node):
    return "# %s %s" % (node.op, ascii(node.name))


def python_source(builder, module, weights, source, cls="Model"):
    """The module's text: `module` is its import name, `weights` the file name of the
    weights, `source` the ONNX file name (for the docstring)."""
    g = builder.graph
    (_, shape), = g.inputs
    layers = [(n, s) for n, s in builder.layers if s is not None]
    text = _HEADER.format(title=cls, source=ascii(source)[1:-1], opset=g.opset,
                          module=module, weights=weights, shape=list(shape), cls=cls,
                          layers=len(layers), lines=len(builder.lines))
    out = [text]
    for name, src in builder.layers:
        if src is None:
            shape = tuple(builder.weights[name].shape)
            out.append("        self.register_buffer(%r, burn.zeros(%r))\n" % (name, shape))
        else:
            out.append("        self.%s = %s\n" % (name, src))
    out.append("\n    def forward(self, x):\n")
    for name, expr, node in builder.lines:
        out.append("        %s = %s  %s\n" % (name, expr, _comment(node)))
    results = [builder.values[o].name for o in g.outputs]
    out.append("        return %s\n" % ", ".join(results))
    out.append(_FOOTER.format(cls=cls))
    return "".join(out)

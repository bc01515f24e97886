"""Lower a checked ONNX graph (`onnx_read.OnnxGraph`) to a `burn.nn` model: layers with
weights (Conv2d, Linear, BatchNorm2d) and a forward pass of burn tensor operations.

Each node becomes one line of Python (`x3 = F.relu(x2)`) that is run at once on a sample
input (batch 1) by the model being built, so every shape is known from the real op and the
lines are the generated module's forward, exactly as they ran. Constants fold first
(`onnx_fold`). A value's first dim is the batch: a reshape that keeps it writes
`x.shape[0]`, so the model takes any batch size, as it must to train and to export.

Layers: onnx_registry (LOWERED, Var), then the handlers that fill it (onnx_ops,
onnx_ops_math, onnx_resize), then this engine, which imports them all.
"""

import math
import warnings

import numpy as np

import burn
from burn import nn
from burn.nn import functional as F

from ..convert import to_numpy, to_tensor
from . import onnx_ops, onnx_ops_math, onnx_resize  # noqa: F401  (register the handlers)
from .onnx_fold import FOLDS, constant, fold
from .onnx_read import ONNXImportError
from .onnx_registry import LOWERED, QDQ_OPS, Var


def supported_ops():
    """The ONNX ops the importer converts (the quantized ones into int8 graphs: onnx_qdq),
    sorted."""
    return sorted(set(LOWERED) | set(FOLDS) | set(QDQ_OPS))


class _Imported(nn.Module):
    def forward(self, x):  # replaced by the generated module's forward
        raise NotImplementedError


class Builder:
    """The model under construction: `layers` [(attribute, constructor source)],
    `weights` {state_dict key: numpy array}, `lines` of the forward."""

    def __init__(self, graph, device):
        self.graph = graph
        self.device = device
        self.model = _Imported()
        self.layers = []
        self.weights = {}
        self.lines = []
        self.values = dict(graph.constants)
        self.computed = {}  # Python name -> its tensor on the sample input
        self.counts = {}
        self.node = None

    # -- naming and values ------------------------------------------------------------
    def fresh(self, prefix):
        """A new attribute or variable name: conv0, conv1, x1, ..."""
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        return "%s%d" % (prefix, n)

    def fail(self, message):
        """Raise ONNXImportError about the node being lowered."""
        raise ONNXImportError("%s: %s" % (self.node.where(), message))

    def get(self, i):
        """Input `i` of the current node: a Var, a numpy array, or None when absent."""
        names = self.node.inputs
        if i >= len(names) or not names[i]:
            return None
        if names[i] not in self.values:
            self.fail("input %s is an optional output this importer does not compute"
                      % ascii(names[i]))
        return self.values[names[i]]

    def var(self, i):
        """Input `i`, which must be computed (not a constant)."""
        v = self.get(i)
        if not isinstance(v, Var):
            self.fail("input %d must be a computed value" % i)
        return v

    def const(self, i, default=None):
        """Input `i`, which must be a constant (numpy array) when present."""
        v = self.get(i)
        if v is None:
            return default
        if isinstance(v, Var):
            self.fail("input %d must be a constant" % i)
        return v

    def number(self, value):
        """Python source for a finite float (NaN and infinities are refused)."""
        value = float(value)
        if not math.isfinite(value):
            self.fail("constant %r is not a finite number" % value)
        return repr(value)

    def operand(self, v):
        """Python source for an operand: a name, a number, or a registered buffer."""
        if isinstance(v, Var):
            return v.name
        if v.size == 1:
            return self.number(v.reshape(-1)[0])
        name = self.fresh("const")
        self.layers.append((name, None))
        self.weights[name] = np.asarray(v, np.float32)
        self.model.register_buffer(name, to_tensor(self.weights[name], self.device))
        return "self." + name

    # -- emitting -----------------------------------------------------------------------
    def layer(self, prefix, source, weights):
        """Add a layer built by `source` (e.g. "nn.Linear(4, 2)") with `weights`; returns
        its attribute expression."""
        name = self.fresh(prefix)
        try:
            module = eval(source, {"nn": nn})  # source built here from numbers only
            module.load_state_dict({k: to_tensor(np.asarray(w)) for k, w in weights.items()})
            module.to(self.device)
        except (ValueError, TypeError) as e:
            self.fail("cannot build %s: %s" % (source, e))
        self.model.add_module(name, module)
        self.layers.append((name, source))
        for k, w in weights.items():
            self.weights[name + "." + k] = np.asarray(w)
        return "self." + name

    def emit(self, expr, output=0):
        """Bind the node's output `output` to `expr`, run on the sample input now."""
        self.values[self.node.outputs[output]] = self.compute(expr)

    def compute(self, expr):
        """A new forward line `xN = expr`, run on the sample input now; returns its Var."""
        name = self.fresh("x")
        scope = dict(self.computed, self=self.model, burn=burn, F=F)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                tensor = eval(expr, scope)  # expr built here from names and numbers only
        except (ValueError, TypeError, IndexError, ArithmeticError) as e:
            self.fail(" ".join(str(e).split()))
        self.computed[name] = tensor
        self.lines.append((name, expr, self.node))
        return Var(name, tensor)

    def alias(self, value, output=0):
        """The output is `value` itself (Identity, Dropout)."""
        self.values[self.node.outputs[output]] = value

    def reshape(self, x, shape):
        """Emit a reshape of Var `x` to `shape`, keeping the batch dim symbolic when the
        first dims agree."""
        shape = tuple(int(d) for d in shape)
        if shape == x.shape:
            return self.alias(x)
        if shape and x.shape and shape[0] == x.shape[0]:
            rest = "".join(", %d" % d for d in shape[1:])
            return self.emit("%s.reshape((%s.shape[0]%s))" % (x.name, x.name, rest))
        return self.emit("%s.reshape(%r)" % (x.name, shape))

    # -- the whole graph ----------------------------------------------------------------
    def run(self, sample):
        """Lower every node; `sample` is the input tensor (batch 1)."""
        unsupported = unsupported_nodes(self.graph)
        if unsupported:
            qdq = any(n.op in QDQ_OPS for n in unsupported)
            raise ONNXImportError("unsupported ONNX ops in %d nodes: %s%s" % (
                len(unsupported), ", ".join(n.where() for n in unsupported),
                "; a quantized (QDQ) model imports only to an int8 .bst (burn import "
                "model.onnx -o model.bst, or onnx_qdq.int8_graph)" if qdq else ""))
        name, _ = self.graph.inputs[0]
        self.values[name] = Var("x", sample)
        self.computed["x"] = sample
        self.model.eval()
        for node in self.graph.nodes:
            self.node = node
            try:
                self._lower(node)
            except ONNXImportError:
                raise
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
                # attributes of the wrong kind or count (a mutated or hand-made file)
                self.fail("malformed node (%s: %s)" % (type(e).__name__, e))
        for out in self.graph.outputs:
            if not isinstance(self.values.get(out), Var):
                raise ONNXImportError("graph output %s is a constant" % ascii(out))
        return self

    def _lower(self, node):
        if node.op == "Constant":
            self.values[node.outputs[0]] = constant(node)
            return
        ins = [self.get(i) for i in range(len(node.inputs))]
        if node.op == "Shape" and isinstance(ins[0], Var):
            start, end = node.attrs.get("start", 0), node.attrs.get("end")
            self.values[node.outputs[0]] = np.asarray(ins[0].shape[start:end], np.int64)
            return
        if node.op in FOLDS and not any(isinstance(v, Var) for v in ins):
            self.values[node.outputs[0]] = fold(node, ins)
            return
        if node.op not in LOWERED:
            self.fail("only constant inputs are supported")
        LOWERED[node.op](self, node)


def unsupported_nodes(graph):
    """The nodes no handler converts: unknown ops, and ops that only fold (Cast, Expand,
    ...) with an input computed from the graph input."""
    computed = {graph.inputs[0][0]}
    found = []
    for n in graph.nodes:
        dynamic = n.op != "Shape" and any(v in computed for v in n.inputs)
        if dynamic:
            computed.update(n.outputs)
        if n.op not in LOWERED and (n.op not in FOLDS or dynamic):
            found.append(n)
    return found


def sample_output(builder):
    """The graph outputs on the sample input, as numpy arrays."""
    return [to_numpy(builder.values[o].tensor) for o in builder.graph.outputs]


def lower(graph, device="numpy"):
    """A Builder holding the lowered graph (its model ran once on a zero sample on
    `device`)."""
    import burn.host  # registers the host backends' names

    _, shape = graph.inputs[0]
    return Builder(graph, device).run(burn.zeros(shape, device=device))

"""Quantized ONNX (QDQ and QLinear ops) to an int8 `.bst` graph.

The ONNX graph is translated into the TFLite importer's model objects
(`tflite_read.TfModel`: NHWC tensors with scales and zero points, TFLite op names and
options) and `tflite.convert.build_graph` converts those, so a quantized ONNX model gets the
same checks, the same fixed-point multipliers (computed as TFLM's Prepare() does), reshape
folding and arena planning as a TFLite file.

Values while walking the graph:
- a constant is a numpy array; a DequantizeLinear of a constant integer array is a `QConst`
  (the integers, scales, zero points, axis): weights and int32 biases;
- an activation is an `Act`: a tensor of the TfModel (int8, or float32 at the input), its
  ONNX shape, and whether the ONNX value is the integers themselves or their dequantized
  float view;
- the float output of a float op (Conv, Gemm, Add, ...) stays `Pending` until the
  QuantizeLinear that reads it gives its quantization; the op is emitted then. Relu and Clip
  between the op and the QuantizeLinear become its fused activation.

Layout: a 4-D value is NCHW in ONNX and NHWC in the graph. A reshape of a 4-D value keeps the
NHWC element order; `Act.order` (graph position -> ONNX position) records it, and only a
fully connected layer may read such a value (it takes its weight columns in that order).

Layers: onnx_qdq_registry (the values, HANDLERS), then the handlers that fill it
(onnx_qdq_ops, onnx_qlinear), then this engine, which imports them all.
"""

import numpy as np

from burn.host.bst_writer import runtime_tests

from . import onnx_qdq_ops  # noqa: F401  (registers the handlers)
from .errors import TFLiteImportError
from .onnx_fold import FOLDS, constant, fold
from .onnx_qdq_registry import (
    HANDLERS,
    PRECHECKS,
    Act,
    Fail,
    Pending,
    QConst,
    checked,
    graph_shape,
)
from .onnx_qlinear import QLINEAR
from .onnx_read import ONNXImportError
from .onnx_registry import QDQ_OPS
from .tflite.convert import build_graph
from .tflite.selftest import random_inputs
from .tflite_read import TfModel, TfOp, TfTensor

_BAD = object()  # the value of an output whose node could not be translated


class Translator:
    """The TfModel under construction: `tensors`, `ops`, and the values by ONNX name."""

    def __init__(self, graph):
        self.graph = graph
        self.values = dict(graph.constants)
        self.tensors = []
        self.ops = []
        self.node = None
        self.pending = {}  # id -> Pending not yet quantized
        self.uses = {}
        for n in graph.nodes:
            for v in n.inputs:
                self.uses[v] = self.uses.get(v, 0) + 1
        for v in graph.outputs:
            self.uses[v] = self.uses.get(v, 0) + 1

    # -- the TfModel ----------------------------------------------------------------------
    def tensor(self, shape, dtype, quant=None, data=None, qdim=0, name=""):
        """A new TfModel tensor (graph `shape`); `quant` is (scales, zero points) lists."""
        scales, zps = quant if quant is not None else ([], [])
        self.tensors.append(TfTensor(name or "t%d" % len(self.tensors), tuple(shape),
                                     np.dtype(dtype), data, list(scales), list(zps), qdim))
        return len(self.tensors) - 1

    def activation(self, shape, scale, zp):
        """A new int8 activation tensor of ONNX `shape`, named after the node's output."""
        return self.tensor(graph_shape(checked(shape)), np.int8, ([float(scale)], [int(zp)]),
                           name=str(self.node.outputs[0]) if self.node.outputs else "")

    def const(self, data, quant=None, qdim=0):
        """A constant tensor holding `data` as it is."""
        return self.tensor(data.shape, data.dtype, quant, np.ascontiguousarray(data), qdim)

    def op(self, name, inputs, outputs, options=None):
        """Append a TfModel op named by the ONNX node it comes from."""
        self.ops.append(TfOp(self.node.index, name, list(inputs), list(outputs), options,
                             self.node.where()))

    def quant(self, t):
        """(scale, zero point) of int8 tensor t."""
        tt = self.tensors[t]
        return tt.scales[0], tt.zero_points[0]

    def is_float(self, t):
        """Whether tensor t is float32 (the graph's input)."""
        return self.tensors[t].dtype == np.float32

    # -- inputs of the node being translated -------------------------------------------
    def get(self, i):
        """Input i: an array, QConst, Act or Pending; None when absent."""
        names = self.node.inputs
        if i >= len(names) or not names[i]:
            return None
        if names[i] not in self.values:
            raise Fail("input %s is an output this importer does not compute"
                       % ascii(names[i]))
        return self.values[names[i]]

    def view(self, i):
        """Input i, which must be the dequantized view of an int8 activation."""
        v = self.get(i)
        if isinstance(v, Pending):
            raise Fail("input %d is the float output of %s, which no QuantizeLinear "
                       "quantizes" % (i, v.node.where()))
        if not isinstance(v, Act) or not v.view or self.is_float(v.t):
            raise Fail("input %d must be a dequantized int8 activation (a DequantizeLinear "
                       "of a QuantizeLinear)" % i)
        return v

    def int8(self, i):
        """Input i, which must be an int8 activation (QLinear ops)."""
        v = self.get(i)
        if not isinstance(v, Act) or v.view or self.is_float(v.t):
            raise Fail("input %d must be an int8 activation" % i)
        return v

    def constant(self, i, what, default=None):
        """Input i, which must be a constant array when present."""
        v = self.get(i)
        if v is None:
            return default
        if not isinstance(v, np.ndarray):
            raise Fail("%s (input %d) must be a constant" % (what, i))
        return v

    def weights(self, i, what="weights"):
        """Input i, which must be a dequantized constant (QConst)."""
        v = self.get(i)
        if not isinstance(v, QConst):
            raise Fail("%s (input %d) must be a DequantizeLinear of an int8 constant" % (what, i))
        return v

    def canonical(self, act, i=0):
        """`act`, refused when its elements are not in the canonical graph order."""
        if act.order is not None:
            raise Fail("input %d is a reshaped 4-D value whose elements the graph holds in "
                       "NHWC order; only Gemm or MatMul may read it" % i)
        return act

    # -- outputs ----------------------------------------------------------------------
    def set(self, value, output=0):
        """Bind output `output` of the node to `value`."""
        self.values[self.node.outputs[output]] = value

    def defer(self, shape, emit, order=None):
        """The node's float output waits for its QuantizeLinear (see Pending)."""
        name = self.node.outputs[0]
        if self.uses.get(name, 0) != 1:
            raise Fail("its float output must be read by one QuantizeLinear only")
        p = Pending(self.node, checked(shape), emit, order)
        self.pending[id(p)] = p
        self.set(p)

    def resolve(self, p, scale, zp):
        """Emit Pending `p` into a new int8 tensor of quantization (scale, zp)."""
        del self.pending[id(p)]
        out = self.activation(p.shape, scale, zp)
        node, self.node = self.node, p.node
        try:
            p.emit(out, p.code)
        except Fail as e:
            raise Fail("%s: %s" % (p.node.where(), e)) from None
        finally:
            self.node = node
        return Act(out, p.shape, False, p.order)

    def fixed_output(self, kind, x, out, fixed, options=None):
        """Emit `kind` of Act x (an op whose int8 output must have quantization `fixed`:
        TFLM's for softmax, logistic, tanh; the input's for a clamp) into `out`, through a
        requantize when `out` has another quantization."""
        if self.quant(out) == fixed:
            self.op(kind, [x.t], [out], options)
            return
        tmp = self.tensor(self.tensors[out].shape, np.int8, ([fixed[0]], [fixed[1]]))
        self.op(kind, [x.t], [tmp], options)
        self.op("QUANTIZE", [tmp], [out])

    def requantized(self, act, scale, zp):
        """Tensor of `act` with quantization (scale, zp): itself, or a requantized copy."""
        if self.quant(act.t) == (scale, zp):
            return act.t
        out = self.tensor(self.tensors[act.t].shape, np.int8, ([scale], [zp]))
        self.op("QUANTIZE", [act.t], [out])
        return out

    # -- the walk -----------------------------------------------------------------------
    def run(self):
        """Translate every node; returns the TfModel. Raises ONNXImportError listing every
        node that cannot be translated."""
        name, shape = self.graph.inputs[0]
        x = self.tensor(graph_shape(shape), np.float32, name=name[-48:])
        self.values[name] = Act(x, shape, False)
        errors = []
        for node in self.graph.nodes:
            self.node = node
            try:
                with np.errstate(all="ignore"):  # overflows are refused where they matter
                    self._node(node, HANDLERS, PRECHECKS)
            except Fail as e:
                errors.append("%s: %s" % (node.where(), e))
                for o in node.outputs:
                    self.values[o] = _BAD
            except ONNXImportError as e:  # from folding: it names the node
                errors.append(str(e))
                for o in node.outputs:
                    self.values[o] = _BAD
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
                errors.append("%s: malformed (%s: %s)" % (node.where(), type(e).__name__, e))
                for o in node.outputs:
                    self.values[o] = _BAD
        for p in self.pending.values():
            errors.append("%s: its float output is not quantized (no QuantizeLinear reads "
                          "it)" % p.node.where())
        outputs = [] if errors else [self._output(o) for o in self.graph.outputs]
        if errors:
            raise ONNXImportError("cannot import the quantized model: " + "; ".join(errors),
                                  errors)
        return TfModel(self.tensors, self.ops, [x], outputs, "")

    def _node(self, node, handlers, prechecks):
        ins = [self.values.get(v) if v else None for v in node.inputs]
        if any(v is _BAD for v in ins):
            for o in node.outputs:  # already reported at the node that failed
                self.values[o] = _BAD
            if node.op in prechecks:  # its own attributes may be wrong too
                prechecks[node.op](self, node)
            return
        if node.op == "Constant":
            self.set(constant(node))
        elif node.op == "Shape" and isinstance(ins[0], (Act, Pending)):
            start, end = node.attrs.get("start", 0), node.attrs.get("end")
            self.set(np.asarray(ins[0].shape[start:end], np.int64))
        elif node.op in FOLDS and ins and all(v is None or isinstance(v, np.ndarray)
                                              for v in ins):
            self.set(fold(node, ins))
        elif node.op in handlers:
            handlers[node.op](self, node)
        else:
            raise Fail("not supported in a quantized model")

    def _output(self, name):
        v = self.values.get(name)
        where = "graph output %s" % ascii(name)
        if not isinstance(v, Act) or self.is_float(v.t):
            raise ONNXImportError("%s must be an int8 activation or its DequantizeLinear"
                                  % where)
        if v.order is not None:
            raise ONNXImportError("%s is a reshaped 4-D value held in NHWC order" % where)
        if not v.view:
            return v.t
        out = self.tensor(self.tensors[v.t].shape, np.float32, name=name[-48:])
        self.ops.append(TfOp(len(self.ops), "DEQUANTIZE", [v.t], [out], None, where))
        return out


def is_quantized(graph):
    """Whether an OnnxGraph holds quantized ops (it then imports only to an int8 .bst)."""
    return any(n.op in QDQ_OPS or n.op in QLINEAR for n in graph.nodes)


def unsupported_nodes(graph):
    """The nodes of a quantized OnnxGraph whose op the int8 import has no handler for."""
    return [n for n in graph.nodes if n.op not in HANDLERS and n.op not in FOLDS]


def int8_graph(graph, tests=3, labels=(), metadata=None):
    """The int8 Graph (`burn.host.bst_writer.Graph`) of a quantized OnnxGraph, with `tests`
    reference tests computed by burn's runtime on seeded random inputs. Raises
    ONNXImportError (one line naming every node that cannot be imported)."""
    tf = Translator(graph).run()
    meta = {"importer": "onnx", "dtype": "int8", "input_layout": "NHWC"}
    meta.update(metadata or {})
    try:
        g, _arena = build_graph(tf, labels, meta)
    except TFLiteImportError as e:
        raise ONNXImportError(str(e), e.problems) from None
    if tests:
        g.tests = runtime_tests(g, random_inputs(g, tests))
    return g

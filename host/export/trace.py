"""Trace a `burn.nn` model into a float inference graph in NHWC, ready to quantize.

The model's real forward pass is recorded (`record.py`), then lowered node by node into
graph layers and folded:
- BatchNorm2d goes into the convolution (or the Linear, through a reshape to
  [N, features, 1, 1]) before it, or else becomes a 1x1 depthwise convolution;
- ReLU, ReLU6 and clamps to [-1, 1] become the fused activation of the op before them;
- `x * c`, `x / c`, `x + c` go into the weights and bias of the op before them where it
  has no other user (else a 1x1 depthwise op, or a diagonal fully connected one);
- a sum over dims followed by the division by their size is one `mean` op;
- zero padding before a convolution becomes the convolution's own padding;
- reshapes rename a buffer: the PyTorch (C, H, W) element order of a flattened feature map
  is kept by permuting the columns of the Linear that reads it, and a copy is made only
  where a kernel needs the new shape and the buffer's producer cannot write it.
Dropout and Identity leave nothing. Any other operation raises ExportError naming the
module and the op. The result is a `Trace`: the values (graph shapes, each with the
recorded node whose result it holds, which calibration observes) and the layers between
them, with float32 weights in the layouts of the `burn.graph` kernels.

The lowering is made of layout.py (the Trace's values and where each node lives in them),
fold.py (the folds above), lower_modules.py and lower_tensor_ops.py.
"""

import numpy as np

from burn import nn
from burn.graph import unary
from burn.graph.fixedpoint import ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1

from .fold import Fold
from .layout import TRACE_BATCH, At, Layout
from .lower_modules import ModuleLowering
from .lower_tensor_ops import TensorOpLowering
from .record import ExportError, record

# The burn.nn layers that export; any other module exports when its forward uses only the
# tensor operations listed in docs/export.md.
SUPPORTED = ("Sequential", "Conv2d", "ConvTranspose2d", "BatchNorm2d", "Linear", "MaxPool2d",
             "AvgPool2d", "AdaptiveAvgPool2d", "Conv1d", "BatchNorm1d", "MaxPool1d",
             "AvgPool1d", "AdaptiveAvgPool1d", "ReLU", "ReLU6", "LeakyReLU", "Hardsigmoid",
             "Sigmoid", "Tanh", "Softmax", "Flatten", "Dropout", "Identity")
_CLAMPS = {(0.0, None): ACT_RELU, (0.0, 6.0): ACT_RELU6, (-1.0, 1.0): ACT_RELU_N1_TO_1}


class _Lowering(Layout, Fold, ModuleLowering, TensorOpLowering):
    """Lowers the recorded nodes one by one into the Trace `t`."""

    def lower(self, i):
        """Lower recorded node i by its kind."""
        node = self.nodes[i]
        self.path, self.module = node.path, node.module
        kind = node.kind
        if kind == "input":
            gshape, flat = self.graph_shape(node.shape)
            self.t.input = self.t.value(gshape, "input", i)
            self.at[i] = At(self.t.input, gshape, flat)
        elif kind == "module":
            self.leaf(i)
        elif kind == "relu":
            self.clamp(i, ACT_RELU)
        elif kind == "clamp":
            lo, hi = node.attrs["lo"], node.attrs["hi"]
            key = (None if lo is None else float(lo), None if hi is None else float(hi))
            if key not in _CLAMPS:
                self.fail("clamp to [%s, %s]; only [0, inf), [0, 6] and [-1, 1] are "
                          "exported" % key)
            self.clamp(i, _CLAMPS[key])
        elif kind in ("logistic", "tanh"):
            self.elementwise(i, kind)
        elif kind == "leaky_relu":
            self.elementwise(i, "unary").params.update(fn=unary.LEAKY_RELU,
                                                       alpha=node.attrs["slope"])
        elif kind == "unary":
            self.elementwise(i, "unary").params.update(fn=node.attrs["fn"], alpha=0.0)
        elif kind == "hard_sigmoid":
            self.elementwise(i, "unary").params.update(fn=unary.HARD_SIGMOID,
                                                       alpha=node.attrs["alpha"])
        elif kind in ("add", "mul", "sub", "maximum", "minimum"):
            self.binary(i, kind)
        elif kind == "scale":
            self.affine(i, node.attrs["s"], 0.0)
        elif kind == "add_const":
            self.affine(i, 1.0, node.attrs["c"])
        else:
            getattr(self, kind)(i)


def trace(model, sample_shape):
    """Trace `model` for inputs of `sample_shape` (one sample, no batch axis: [C, H, W],
    [C, L] or [features]) into a Trace. Raises ExportError naming the module and op it cannot
    export, with the module's dotted path."""
    if not isinstance(model, nn.Module):
        raise TypeError("export: expected a burn.nn Module, got " + type(model).__name__)
    sample_shape = tuple(int(d) for d in sample_shape)
    if len(sample_shape) not in (1, 2, 3):
        raise ExportError("input samples must be [C, H, W], [C, L] or [features], got shape "
                          "%s" % (sample_shape,))
    batch = np.random.default_rng(0).standard_normal((TRACE_BATCH,) + sample_shape)
    nodes, out = record(model, batch.astype(np.float32))
    low = _Lowering(nodes)
    for i in range(len(nodes)):
        low.lower(i)
    t = low.t
    low.path, low.module = nodes[out].path, nodes[out].module
    if out in low.pending_sum or out not in low.at:
        low.fail("the model's output is a sum; only a mean is exported")
    at = low.at[out]
    if at.flat is None:
        low._unplaced(out)
    if not t.layers:
        raise ExportError("the model computes nothing to export (no ops after tracing)")
    if at.perm is not None:
        raise ExportError("the model ends with a Flatten of a feature map; its (C, H, W) "
                          "element order has no graph equivalent without a Linear after it")
    t.output = at.vid
    t.output_shape = at.gshape
    t.output_rank = len(nodes[out].shape)
    for layer in t.layers:
        if layer.w is not None:
            layer.w = np.ascontiguousarray(layer.w, dtype=np.float32)
            layer.b = np.ascontiguousarray(layer.b, dtype=np.float32)
    return t

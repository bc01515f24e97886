"""Record a model's real forward pass as a list of nodes, the input of export tracing.

The model runs on its own device with tensors whose backend is a `_Recorder`: it computes
every primitive with the model's backend and, when an operand descends from the input,
records a `Node`. Leaf layers (convolution, BatchNorm, Linear, pools) are recorded whole:
while a model is recorded, `Module.__call__` runs them on plain tensors and records one
node, so their weights stay theirs. Every other module (Sequential, a custom block) runs
its own `forward`, whose tensor operations (residual adds, concatenation, means, reshapes,
products, clamps, sigmoid, softmax, leaky ReLU, hard sigmoid, padding, pools, permutations,
slices, matrix products of two computed values) become nodes named after the innermost
module that ran them. An operation the `.bst` graph has no counterpart for raises
ExportError naming that module and the operation.

A reshape costs no primitive: `Tensor.reshape` (which flatten, view and squeeze use) records
a `reshape` node while a model is recorded, and a value used with another shape than it
was made with gets one where it is used.
"""

import numpy as np

import burn
from burn.backend import Backend
from burn.device import Device
from burn.graph import unary as _unary_codes
from burn.nn.module import Module
from burn.tensor import Tensor

from ..convert import to_numpy, to_tensor

_RECORDED = ("unary", "binary", "clamp", "reduce", "cat", "pad", "pool2d", "permute",
             "slice", "matmul")
# Every other primitive of burn.backend.Backend; with an operand from the input it fails.
_OTHER = tuple(sorted(n for n, v in vars(Backend).items() if callable(v) and
                      not n.startswith("_") and n not in _RECORDED))
_UNARY = {"relu": "relu", "sigmoid": "logistic", "tanh": "tanh"}
# burn unary ops that are the optional `unary` op's float functions: name -> its fn code
_UNARY_FN = {name: getattr(_unary_codes, name.upper()) for name in (
    "abs", "neg", "sqrt", "rsqrt", "exp", "log", "sin", "cos", "floor", "ceil", "round")}


class ExportError(ValueError):
    """A model (or a part of it, named by its path) that cannot be exported."""


def leaf_types():
    """The layer classes recorded whole, as one node each."""
    from burn import nn
    return (nn.Conv2d, nn.Conv1d, nn.ConvTranspose2d, nn.BatchNorm2d, nn.Linear, nn.MaxPool2d,
            nn.AvgPool2d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool1d)


class Node:
    """One recorded operation: `kind`, input node indices `ins`, the model-layout `shape`
    of its result (batch first), `attrs`, the `path` and `module` it came from (the layer
    itself for a "module" node, else the module whose forward ran it), and
    `value`, its result on the recording's inputs (a numpy array)."""

    def __init__(self, kind, ins, shape, attrs, path, module, value):
        self.kind = kind
        self.ins = list(ins)
        self.shape = tuple(int(d) for d in shape)
        self.attrs = attrs
        self.path = path
        self.module = module
        self.value = value


class _H:
    """A handle of the recording backend: the node it holds (None for a constant) and the
    model backend's handle."""

    def __init__(self, node, inner):
        self.node = node
        self.inner = inner


class _Recorder:
    def __init__(self, device, paths, keep):
        self.device = device
        self.keep = keep
        self.inner = device.backend
        self.name = "export-record<" + self.inner.name + ">"
        self.paths = paths
        self.stack = []
        self.nodes = []
        self.reshaped = {}

    # -- bookkeeping ----------------------------------------------------------------------
    def where(self):
        return self.stack[-1] if self.stack else ("<model>", None)

    def fail(self, what):
        path, module = self.where()
        kind = " (%s)" % type(module).__name__ if module is not None else ""
        raise ExportError("cannot export module '%s'%s: %s" % (path, kind, what))

    def node(self, kind, ins, shape, inner, dtype, attrs=None, module=None, path=None):
        if dtype is not burn.float32:
            self.fail("op %s on %s values; only float32 is exported" % (kind, dtype))
        value = None
        if self.keep is None or len(self.nodes) in self.keep:
            value = to_numpy(Tensor(inner, tuple(shape), dtype, self.device))
        here, owner = self.where()
        self.nodes.append(Node(kind, ins, shape, attrs or {}, path or here, module or owner,
                               value))
        return _H(len(self.nodes) - 1, inner)

    def use(self, h, shape, by=None):
        """The node index of traced handle `h` used with `shape` (a reshape node, named
        after the module running or else `by`, when the shape is not the one it was made
        with)."""
        shape = tuple(int(d) for d in shape)
        n = self.nodes[h.node]
        if n.shape == shape:
            return h.node
        key = (h.node, shape)
        if key not in self.reshaped:
            path, owner = self.where() if self.stack or by is None else (by.path, by.module)
            value = None if n.value is None else n.value.reshape(shape)
            self.nodes.append(Node("reshape", [h.node], shape, {}, path, owner, value))
            self.reshaped[key] = len(self.nodes) - 1
        return self.reshaped[key]

    def shape_of(self, h):
        return self.nodes[h.node].shape

    def const(self, h, shape, op, out_shape=None):
        """The constant operand `h` of shape `shape` as one float, or, when it differs only
        along dim 1 of `out_shape` (a per-channel or per-feature constant), as an array of
        the channel count."""
        if isinstance(h, (int, float)):
            return float(h)
        inner = h.inner if isinstance(h, _H) else h  # a parameter or buffer of the model
        vals = np.asarray(self.inner.to_flat(inner, int(np.prod(shape)), burn.float32),
                          np.float32)
        if len(set(vals.tolist())) == 1:
            return float(vals[0])
        aligned = (1,) * (len(out_shape or ()) - len(shape)) + tuple(shape)
        if out_shape is None or len(out_shape) < 2 or len(aligned) != len(out_shape) or \
                any(d != 1 for k, d in enumerate(aligned) if k != 1) or \
                aligned[1] != out_shape[1]:
            self.fail("op %s with a constant tensor operand of shape %s; a number or one value "
                      "per channel (dim 1) is exported" % (op, tuple(shape)))
        return vals.astype(np.float64)

    @staticmethod
    def traced(h):
        return isinstance(h, _H) and h.node is not None

    @staticmethod
    def raw(h):
        return h.inner if isinstance(h, _H) else h

    # -- storage: constants -----------------------------------------------------------------
    def __getattr__(self, name):
        if name not in _OTHER:
            raise AttributeError(name)
        fn = getattr(self.inner, name)

        def primitive(*args):
            if any(self.traced(a) for a in args) or \
                    any(isinstance(a, (list, tuple)) and any(self.traced(x) for x in a)
                        for a in args):
                self.fail("op %s is not supported by the .bst runtime" % name)
            out = fn(*[self.raw(a) for a in args])
            return _H(None, out) if name not in ("to_flat", "to_bytes") else out
        return primitive

    def to_flat(self, h, n, dtype):
        return self.inner.to_flat(h.inner, n, dtype)

    def to_bytes(self, h, n, dtype):
        return self.inner.to_bytes(h.inner, n, dtype)

    # -- recorded primitives ----------------------------------------------------------------
    def unary(self, op, h, n, dtype):
        out = self.inner.unary(op, h.inner, n, dtype)
        if not self.traced(h):
            return _H(None, out)
        if op in _UNARY_FN:
            return self.node("unary", [h.node], self.shape_of(h), out, dtype,
                             {"fn": _UNARY_FN[op]})
        if op not in _UNARY:
            self.fail("op %s is not supported by the .bst runtime" % op)
        return self.node(_UNARY[op], [h.node], self.shape_of(h), out, dtype)

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        out = self.inner.binary(op, self.raw(a), a_shape, self.raw(b), b_shape, out_shape,
                                dtype)
        ta, tb = self.traced(a), self.traced(b)
        if not (ta or tb):
            return _H(None, out)
        if ta and tb:
            if op not in ("add", "mul", "sub", "maximum", "minimum"):
                self.fail("op %s of two computed values is not supported (add, sub, mul, "
                          "maximum and minimum are)" % op)
            return self.node(op, [self.use(a, a_shape), self.use(b, b_shape)], out_shape,
                             out, dtype)
        x, shape, c, c_shape = (a, a_shape, b, b_shape) if ta else (b, b_shape, a, a_shape)
        if tuple(out_shape) != tuple(shape):
            self.fail("op %s broadcasts a value against a constant" % op)
        value = self.const(c, c_shape, op, out_shape)
        if op == "add" or (op == "sub" and ta):
            kind, attrs = "add_const", {"c": value if op == "add" else -value}
        elif op == "mul" or (op == "div" and ta and np.all(value != 0)):
            kind, attrs = "scale", {"s": value if op == "mul" else 1.0 / value}
        else:
            self.fail("op %s with a constant operand is not supported (x + c, x - c, x * c "
                      "and x / c are)" % op)
        return self.node(kind, [self.use(x, shape)], out_shape, out, dtype, attrs)

    def clamp(self, h, n, lo, hi, dtype):
        out = self.inner.clamp(h.inner, n, lo, hi, dtype)
        if not self.traced(h):
            return _H(None, out)
        return self.node("clamp", [h.node], self.shape_of(h), out, dtype,
                         {"lo": lo, "hi": hi})

    def reduce(self, op, h, shape, dim, dtype):
        out = self.inner.reduce(op, h.inner, shape, dim, dtype)
        if not self.traced(h):
            return _H(None, out)
        if op != "sum":
            self.fail("reduction %s is not supported (mean is)" % op)
        out_shape = tuple(shape[:dim]) + (1,) + tuple(shape[dim + 1:])
        return self.node("sum", [self.use(h, shape)], out_shape, out, dtype, {"dim": dim})

    def cat(self, hs, shapes, dim, dtype):
        out = self.inner.cat([self.raw(h) for h in hs], shapes, dim, dtype)
        flags = [self.traced(h) for h in hs]
        if not any(flags):
            return _H(None, out)
        if not all(flags):
            self.fail("concatenation of a computed value with a constant is not supported")
        shape = list(shapes[0])
        shape[dim] = sum(s[dim] for s in shapes)
        return self.node("concat", [self.use(h, s) for h, s in zip(hs, shapes)], shape, out,
                         dtype, {"dim": dim})

    def permute(self, h, shape, perm, dtype):
        out = self.inner.permute(h.inner, shape, perm, dtype)
        if not self.traced(h):
            return _H(None, out)
        return self.node("permute", [self.use(h, shape)], [shape[p] for p in perm], out, dtype,
                         {"perm": tuple(perm)})

    def slice(self, h, shape, starts, steps, out_shape, dtype):
        out = self.inner.slice(h.inner, shape, starts, steps, out_shape, dtype)
        if not self.traced(h):
            return _H(None, out)
        return self.node("slice", [self.use(h, shape)], out_shape, out, dtype,
                         {"starts": tuple(starts), "steps": tuple(steps)})

    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        """A matrix product of two computed values, one [rows, cols] matrix per sample:
        operands [N, C, L] or [N, 1, H, W] (seen here as [N, rows, cols])."""
        out = self.inner.matmul(self.raw(a), a_shape, self.raw(b), b_shape, out_shape, dtype)
        ta, tb = self.traced(a), self.traced(b)
        if not (ta or tb):
            return _H(None, out)
        if not (ta and tb):
            self.fail("matmul of a computed value by a constant is not supported (nn.Linear "
                      "is)")
        own = [self.shape_of(a), self.shape_of(b)]
        if any(s[0] != o[0] or not (len(o) == 3 or (len(o) == 4 and o[1] == 1))
               for s, o in zip((a_shape, b_shape), own)):
            self.fail("matmul of values of shapes %s and %s; it exports with one matrix per "
                      "sample: operands [N, C, L] or [N, 1, H, W]" % tuple(own))
        return self.node("matmul", [self.use(a, a_shape), self.use(b, b_shape)], out_shape,
                         out, dtype)

    def pad(self, h, shape, pads, value, dtype):
        out = self.inner.pad(h.inner, shape, pads, value, dtype)
        if not self.traced(h):
            return _H(None, out)
        out_shape = [s + p[0] + p[1] for s, p in zip(shape, pads)]
        return self.node("pad", [self.use(h, shape)], out_shape, out, dtype,
                         {"pads": [tuple(p) for p in pads], "value": float(value)})

    def pool2d(self, op, h, shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        out = self.inner.pool2d(op, h.inner, shape, kernel, stride, padding, dilation,
                                ceil_mode, count_include_pad, out_shape, dtype)
        if not self.traced(h):
            return _H(None, out)
        attrs = {"op": op, "kernel": tuple(kernel), "stride": tuple(stride),
                 "padding": tuple(padding), "dilation": tuple(dilation),
                 "count_include_pad": bool(count_include_pad)}
        return self.node("pool2d", [self.use(h, shape)], out_shape, out, dtype, attrs)

    def softmax(self, x, dim):
        """Softmax as one node (Tensor.softmax looks this override up by name)."""
        inner = burn.softmax(Tensor(x.handle.inner, x.shape, x.dtype, self.device), dim)
        if not self.traced(x.handle):
            return Tensor(_H(None, inner.handle), x.shape, x.dtype, x.device)
        h = self.node("softmax", [self.use(x.handle, x.shape)], x.shape, inner.handle,
                      x.dtype, {"dim": dim})
        return Tensor(h, x.shape, x.dtype, x.device)

    def activation(self, kind, fn, x, attrs):
        """`fn(x)` computed by the model's backend, recorded as one `kind` node."""
        inner = fn(Tensor(x.handle.inner, x.shape, x.dtype, self.device))
        if not self.traced(x.handle):
            return Tensor(_H(None, inner.handle), x.shape, x.dtype, x.device)
        h = self.node(kind, [self.use(x.handle, x.shape)], x.shape, inner.handle, x.dtype,
                      attrs)
        return Tensor(h, x.shape, x.dtype, x.device)

    def leaky_relu(self, x, slope):
        """LeakyReLU as one node (burn.leaky_relu looks this override up by name)."""
        return self.activation("leaky_relu", lambda t: burn.leaky_relu(t, slope), x,
                               {"slope": float(slope)})

    def hard_sigmoid(self, x, alpha, beta):
        """The hard sigmoid as one node with beta 0.5 (burn.ops.hard_sigmoid looks this
        override up by name); another beta is the shift (beta - 0.5) / alpha before it,
        recorded as `x + c`."""
        from burn.ops.hard_sigmoid import hard_sigmoid

        if self.traced(x.handle) and beta != 0.5:
            if alpha == 0:
                self.fail("hard_sigmoid with alpha 0 (a constant) is not exported")
            x, beta = x + (beta - 0.5) / alpha, 0.5
        return self.activation("hard_sigmoid", lambda t: hard_sigmoid(t, alpha, beta), x,
                               {"alpha": float(alpha)})

    # -- modules ------------------------------------------------------------------------------
    def call(self, module, args, kwargs, leaves):
        path = self.paths.get(id(module), type(module).__name__)
        x = args[0] if args else None
        leaf = isinstance(module, leaves) and isinstance(x, Tensor) and \
            self.traced(x.handle) and len(args) == 1 and not kwargs
        self.stack.append((path, module))
        try:
            if not leaf:
                return module.forward(*args, **kwargs)
            y = module.forward(Tensor(x.handle.inner, x.shape, x.dtype, self.device))
            h = self.node("module", [self.use(x.handle, x.shape)], y.shape, y.handle,
                          y.dtype, module=module)
            return Tensor(h, y.shape, y.dtype, x.device)
        except ExportError:
            raise
        except (ValueError, TypeError) as e:
            self.fail("its forward failed while traced: %s" % e)
        finally:
            self.stack.pop()


def _model_device(model):
    for p in model.parameters():
        return p.device
    return burn.device("numpy")


def record(model, batch, keep=None):
    """(nodes, output node index): `model` run in eval mode on `batch` (a float32 numpy
    array, batch first) with every operation recorded. Node 0 is the input. With `keep` (a
    set of node indices), only those nodes keep their `value`."""
    from ..autodiff import no_grad

    if not isinstance(model, Module):
        raise TypeError("export: expected a burn.nn Module, got " + type(model).__name__)
    device = _model_device(model)
    paths = {id(m): name for name, m in model.named_modules() if name}
    paths[id(model)] = "<model>"
    rec = _Recorder(device, paths, keep)
    # The model's own name: its parameters and buffers mix with recorded values (as
    # constants), and .to(its device) leaves a recorded value as it is.
    here = Device.__new__(Device)
    here.name, here.backend = device.name, rec
    x = to_tensor(np.asarray(batch, np.float32), device)
    rec.nodes.append(Node("input", [], x.shape, {}, "input", None, np.asarray(batch)))
    leaves = leaf_types()
    saved = Module.__call__
    was_training = model.training
    model.eval()

    def call(module, *args, **kwargs):
        return rec.call(module, args, kwargs, leaves)

    def reshape(t, *shape):
        out = saved_reshape(t, *shape)
        if not rec.traced(out.handle):
            return out
        h = _H(rec.use(out.handle, out.shape), out.handle.inner)
        return Tensor(h, out.shape, out.dtype, out.device)

    saved_reshape = Tensor.reshape
    Module.__call__, Tensor.reshape = call, reshape
    try:
        with no_grad():
            y = call(model, Tensor(_H(0, x.handle), x.shape, x.dtype, here))
    finally:
        Module.__call__, Tensor.reshape = saved, saved_reshape
        model.train(was_training)
    if not isinstance(y, Tensor) or not rec.traced(y.handle):
        raise ExportError("the model's forward must return one tensor computed from its "
                          "input, got " + type(y).__name__)
    return rec.nodes, rec.use(y.handle, y.shape, rec.nodes[y.handle.node])

"""The ONNX op handlers of `onnx_lower` for elementwise math, activations, several-input
ops, reductions, comparisons and normalizations: each becomes one or a few lines of burn
tensor operations (comparisons give burn bool tensors, ArgMax an int32 one)."""

import numpy as np

from .onnx_read import MAX_ACTIVATION, check_dims
from .onnx_registry import Var, lowers

# ONNX op -> burn Tensor method (one input, elementwise)
_METHODS = {"Abs": "abs", "Neg": "neg", "Sqrt": "sqrt", "Exp": "exp", "Log": "log",
            "Sin": "sin", "Cos": "cos", "Floor": "floor", "Ceil": "ceil", "Round": "round",
            "Reciprocal": "reciprocal", "Erf": "erf", "Sign": "sign"}


def _method(b, node):
    b.emit("%s.%s()" % (b.var(0).name, _METHODS[node.op]))


lowers(*_METHODS)(_method)


def _elu(b, x, alpha):
    """Source of x where x > 0, else alpha * (exp(x) - 1)."""
    return "burn.where(%s > 0.0, %s, (%s.exp() - 1.0) * %s)" % (x, x, x, b.number(alpha))


@lowers("Elu")
def elu(b, node):
    """Elu -> burn.where(x > 0, x, alpha * (exp(x) - 1))."""
    b.emit(_elu(b, b.var(0).name, node.attrs.get("alpha", 1.0)))


@lowers("Selu")
def selu(b, node):
    """Selu -> gamma * the Elu form with its alpha."""
    a = node.attrs
    b.emit("%s * %s" % (_elu(b, b.var(0).name, a.get("alpha", 1.67326319217681884765625)),
                        b.number(a.get("gamma", 1.05070102214813232421875))))


def _softplus(x):
    """Source of log(1 + exp(x)), computed without overflow."""
    return "((-%s.abs()).exp() + 1.0).log() + F.relu(%s)" % (x, x)


@lowers("Softplus")
def softplus(b, node):
    """Softplus -> log(1 + exp(-|x|)) + relu(x)."""
    b.emit(_softplus(b.var(0).name))


@lowers("Mish")
def mish(b, node):
    """Mish -> x * tanh(softplus(x))."""
    x = b.var(0).name
    b.emit("%s * F.tanh(%s)" % (x, _softplus(x)))


@lowers("Softsign")
def softsign(b, node):
    """Softsign -> x / (|x| + 1)."""
    x = b.var(0).name
    b.emit("%s / (%s.abs() + 1.0)" % (x, x))


@lowers("ThresholdedRelu")
def thresholded_relu(b, node):
    """ThresholdedRelu -> burn.where(x > alpha, x, 0)."""
    x = b.var(0).name
    b.emit("burn.where(%s > %s, %s, 0.0)" % (x, b.number(node.attrs.get("alpha", 1.0)), x))


@lowers("Gelu")
def gelu(b, node):
    """Gelu (opset 20) -> F.gelu, exact or with the tanh approximation."""
    approximate = node.attrs.get("approximate", "none")
    if approximate not in ("none", "tanh"):
        b.fail("approximate %r is not supported (none and tanh are)" % (approximate,))
    b.emit("F.gelu(%s, approximate=%r)" % (b.var(0).name, approximate))


@lowers("PRelu")
def prelu(b, node):
    """PRelu with a constant slope -> burn.where(x > 0, x, x * slope)."""
    x, slope = b.var(0), b.const(1)
    if slope is None:
        b.fail("the slope must be a constant")
    try:
        out = np.broadcast_shapes(x.shape, slope.shape)
    except ValueError:
        b.fail("slope of shape %s does not broadcast to input %s" % (slope.shape, x.shape))
    if out != x.shape:
        b.fail("slope of shape %s does not broadcast to input %s" % (slope.shape, x.shape))
    b.emit("burn.where(%s > 0.0, %s, %s * %s)" % (x.name, x.name, x.name, b.operand(slope)))


@lowers("Pow")
def pow_(b, node):
    """Pow by a constant scalar exponent -> x * x (2), sqrt (0.5), x ** e otherwise."""
    x, e = b.var(0), b.const(1)
    if e is None or e.size != 1:
        b.fail("only a constant scalar exponent is supported")
    e = float(e.reshape(-1)[0])
    if e == 1.0:
        return b.alias(x)
    forms = {2.0: "%s * %s" % (x.name, x.name), 0.5: "%s.sqrt()" % x.name,
             -0.5: "%s.rsqrt()" % x.name, -1.0: "%s.reciprocal()" % x.name}
    b.emit(forms.get(e, "%s ** %s" % (x.name, b.number(e))))


def _operands(b, node):
    parts = [b.get(i) for i in range(len(node.inputs))]
    if not parts or any(p is None for p in parts):
        b.fail("needs one or more inputs")
    check_dims(node.where(), np.broadcast_shapes(*(p.shape for p in parts)), MAX_ACTIVATION)
    return [b.operand(p) for p in parts]


@lowers("Min", "Max")
def min_max(b, node):
    """Min / Max of several inputs -> nested burn.minimum / burn.maximum."""
    fn = "burn.minimum" if node.op == "Min" else "burn.maximum"
    parts = _operands(b, node)
    expr = parts[0]
    for p in parts[1:]:
        expr = "%s(%s, %s)" % (fn, expr, p)
    b.emit(expr if len(parts) > 1 else "%s + 0.0" % expr)


@lowers("Sum", "Mean")
def sum_mean(b, node):
    """Sum / Mean of several inputs -> a + b + ... (divided by their count)."""
    parts = _operands(b, node)
    expr = " + ".join(parts)
    if len(parts) == 1:
        expr += " + 0.0"
    if node.op == "Mean" and len(parts) > 1:
        expr = "(%s) / %s" % (expr, b.number(len(parts)))
    b.emit(expr)


_REDUCE = {"ReduceMean": "mean", "ReduceSum": "sum", "ReduceMax": "amax", "ReduceMin": "amin",
           "ReduceProd": "prod"}


@lowers(*_REDUCE)
def reduce(b, node):
    """ReduceMean / Sum / Max / Min / Prod over constant axes (an attribute, or input 1
    from opsets 13 (Sum) and 18) -> mean, sum, amax, amin or prod."""
    x = b.var(0)
    axes = b.const(1) if node.inputs[1:] else node.attrs.get("axes")
    keep = bool(node.attrs.get("keepdims", 1))
    if axes is None or len(np.asarray(axes).reshape(-1)) == 0:
        if node.attrs.get("noop_with_empty_axes", 0):
            return b.alias(x)
        axes = range(len(x.shape))
    rank = len(x.shape)
    axes = [int(a) for a in np.asarray(axes).reshape(-1)]
    if any(not -rank <= a < rank for a in axes):
        b.fail("axes %r are outside the %d dims" % (axes, rank))
    dims = tuple(sorted({a % rank for a in axes}))
    if node.op == "ReduceMax" and keep and rank == 4 and dims == (2, 3):
        return _spatial_max(b, x)
    b.emit("%s.%s(%r, keepdim=%s)" % (x.name, _REDUCE[node.op], dims, keep))


def _spatial_max(b, x):
    """The max over H and W of an [N, C, H, W] value as one whole-map max pool (which
    exports to .bst)."""
    b.emit("F.max_pool2d(%s, %r)" % (x.name, x.shape[2:]))


@lowers("GlobalMaxPool")
def global_max_pool(b, node):
    """GlobalMaxPool -> a whole-map F.max_pool2d on [N, C, H, W], else amax over the
    spatial dims, dims kept."""
    x = b.var(0)
    if len(x.shape) < 3:
        b.fail("needs an [N, C, ...] input, got shape %s" % (x.shape,))
    if len(x.shape) == 4:
        return _spatial_max(b, x)
    b.emit("%s.amax(%r, keepdim=True)" % (x.name, tuple(range(2, len(x.shape)))))


@lowers("ArgMax", "ArgMin")
def arg_max(b, node):
    """ArgMax / ArgMin along one axis -> argmax / argmin (int32 indices)."""
    x, a = b.var(0), node.attrs
    if a.get("select_last_index", 0):
        b.fail("select_last_index=1 is not supported")
    axis = int(a.get("axis", 0))
    if not -len(x.shape) <= axis < len(x.shape):
        b.fail("axis %d is outside the %d dims" % (axis, len(x.shape)))
    b.emit("%s.%s(%d, keepdim=%s)" % (x.name, node.op.lower(), axis % len(x.shape),
                                      bool(a.get("keepdims", 1))))


_COMPARE = {"Equal": "==", "Greater": ">", "Less": "<", "GreaterOrEqual": ">=",
            "LessOrEqual": "<="}


@lowers(*_COMPARE)
def compare(b, node):
    """Equal / Greater / Less / GreaterOrEqual / LessOrEqual -> a burn bool tensor."""
    x, y = b.get(0), b.get(1)
    if not isinstance(x, Var):  # a constant first: the comparison mirrored
        mirror = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "=="}
        return b.emit("%s %s %s" % (b.operand(y), mirror[_COMPARE[node.op]], b.operand(x)))
    b.emit("%s %s %s" % (x.name, _COMPARE[node.op], b.operand(y)))


@lowers("Not")
def not_(b, node):
    """Not of a bool value -> ~x."""
    b.emit("~%s" % b.var(0).name)


@lowers("Where")
def where(b, node):
    """Where with a computed condition -> burn.where (constant branches become numbers or
    buffers)."""
    cond = b.var(0)
    x, y = b.get(1), b.get(2)
    check_dims(node.where(), np.broadcast_shapes(cond.shape, x.shape, y.shape), MAX_ACTIVATION)
    b.emit("burn.where(%s, %s, %s)" % (cond.name, b.operand(x), b.operand(y)))


@lowers("LayerNormalization")
def layer_norm(b, node):
    """LayerNormalization over the last dims (from `axis`) -> nn.LayerNorm with its scale
    and bias."""
    x, scale, bias = b.var(0), b.const(1), b.const(2)
    axis = int(node.attrs.get("axis", -1))
    rank = len(x.shape)
    if not -rank <= axis < rank or axis % rank == 0:
        b.fail("axis %d must name a dim after the batch" % axis)
    if node.attrs.get("stash_type", 1) != 1:
        b.fail("stash_type %r is not supported" % node.attrs["stash_type"])
    dims = x.shape[axis % rank:]
    if scale is None or scale.size != int(np.prod(dims)):
        b.fail("scale must be a constant of shape %s" % (dims,))
    if bias is not None and bias.size != scale.size:
        b.fail("B must be a constant of shape %s" % (dims,))
    weights = {"weight": scale.astype(np.float32).reshape(dims)}
    if bias is not None:
        weights["bias"] = bias.astype(np.float32).reshape(dims)
    layer = b.layer("ln", "nn.LayerNorm(%r, eps=%s, bias=%s)" % (
        dims, b.number(node.attrs.get("epsilon", 1e-5)), bias is not None), weights)
    b.emit("%s(%s)" % (layer, x.name))


@lowers("InstanceNormalization")
def instance_norm(b, node):
    """InstanceNormalization -> (x - mean) / sqrt(var + eps) over the spatial dims, then
    the per-channel scale and bias (buffers)."""
    x, scale, bias = b.var(0), b.const(1), b.const(2)
    rank = len(x.shape)
    if rank < 3:
        b.fail("needs an [N, C, ...] input, got shape %s" % (x.shape,))
    c = x.shape[1]
    if any(v is None or v.size != c for v in (scale, bias)):
        b.fail("scale and B must be constants of shape (%d,)" % c)
    per_channel = (c,) + (1,) * (rank - 2)
    dims = tuple(range(2, rank))
    d = b.compute("%s - %s.mean(%r, keepdim=True)" % (x.name, x.name, dims))
    v = b.compute("(%s * %s).mean(%r, keepdim=True)" % (d.name, d.name, dims))
    b.emit("%s * (%s + %s).rsqrt() * %s + %s" % (
        d.name, v.name, b.number(node.attrs.get("epsilon", 1e-5)),
        b.operand(scale.reshape(per_channel)), b.operand(bias.reshape(per_channel))))


@lowers("Split")
def split(b, node):
    """Split along one axis (constant sizes, an attribute or even parts) -> one slice per
    output."""
    x = b.var(0)
    axis = int(node.attrs.get("axis", 0))
    if not -len(x.shape) <= axis < len(x.shape):
        b.fail("axis %d is outside the %d dims" % (axis, len(x.shape)))
    axis %= len(x.shape)
    size, n = x.shape[axis], len(node.outputs)
    sizes = b.const(1) if node.inputs[1:] else node.attrs.get("split")
    if sizes is None:
        part = -(-size // n)
        sizes = [min(part, size - i * part) for i in range(n)]
    sizes = [int(s) for s in np.asarray(sizes).reshape(-1)]
    if len(sizes) != n or sum(sizes) != size or min(sizes) < 0:
        b.fail("split sizes %r do not cut %d into %d outputs" % (sizes, size, n))
    start = 0
    for k, s in enumerate(sizes):
        b.emit("%s[%s%d:%d]" % (x.name, ":, " * axis, start, start + s), output=k)
        start += s


@lowers("Tile")
def tile(b, node):
    """Tile by constant repeats -> burn.cat of copies along each repeated dim."""
    x, reps = b.var(0), b.const(1)
    if reps is None or reps.size != len(x.shape):
        b.fail("repeats must be a constant with one value per dim (%d)" % len(x.shape))
    reps = [int(r) for r in reps.reshape(-1)]
    if min(reps) < 1:
        b.fail("repeats must be positive, got %r" % (reps,))
    check_dims(node.where(), tuple(d * r for d, r in zip(x.shape, reps)), MAX_ACTIVATION)
    if reps == [1] * len(reps):
        return b.alias(x)
    v = x
    last = max(i for i, r in enumerate(reps) if r > 1)
    for dim, r in enumerate(reps):
        if r > 1:
            expr = "burn.cat([%s], dim=%d)" % (", ".join([v.name] * r), dim)
            if dim == last:
                return b.emit(expr)
            v = b.compute(expr)

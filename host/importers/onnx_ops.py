"""The ONNX op handlers of `onnx_lower`: each turns one node into a burn.nn layer and/or one
line of burn tensor operations (NCHW, as ONNX and PyTorch)."""

import numpy as np

from .onnx_fold import fold
from .onnx_read import MAX_ACTIVATION, check_dims
from .onnx_registry import Var, lowers

MAX_GATHER = 4096  # indices of a Gather on a computed value (one slice each in the code)


def _pair(values, what, b):
    if values is None or len(values) != 2:
        b.fail("%s must have 2 values (2-D windows only), got %r" % (what, values))
    return tuple(int(v) for v in values)


def _window(b, node, x, kernel, dilations=(1, 1), attrs=None):
    """(strides, (pad top, left, bottom, right)) of a 2-D window op, auto_pad included, on
    `x` (a Var or an [N, C, H, W] shape), with the node's attributes or `attrs`; the padded
    input is bounded before anything is allocated."""
    shape = x if isinstance(x, tuple) else x.shape
    strides, pads = _window_pads(b, node.attrs if attrs is None else attrs, shape, kernel,
                                 dilations)
    n, c, h, w = shape
    check_dims(node.where() + " padded input",
               (n, c, h + pads[0] + pads[2], w + pads[1] + pads[3]), MAX_ACTIVATION)
    if min(strides) < 1:
        b.fail("strides must be positive, got %r" % (strides,))
    return strides, pads


def _window_pads(b, a, shape, kernel, dilations):
    strides = _pair(a.get("strides", [1, 1]), "strides", b)
    auto = a.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", "VALID"):
        pads = a.get("pads", [0, 0, 0, 0]) if auto == "NOTSET" else [0, 0, 0, 0]
        if len(pads) != 4 or min(pads) < 0:
            b.fail("pads must be 4 non-negative values, got %r" % (pads,))
        return strides, tuple(int(p) for p in pads)
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        b.fail("auto_pad %r is not supported" % auto)
    pads = []
    for size, k, s, d in zip(shape[2:], kernel, strides, dilations):
        total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
        small = total // 2
        pads.append((small, total - small) if auto == "SAME_UPPER" else (total - small, small))
    return strides, (pads[0][0], pads[1][0], pads[0][1], pads[1][1])


def _padded(b, x, pads):
    """x, or a zero-padded x where the padding is not the same on both sides; returns
    (value name, symmetric padding pair)."""
    top, left, bottom, right = pads
    if (top, left) == (bottom, right):
        return x.name, (top, left)
    v = b.compute("F.pad(%s, (%d, %d, %d, %d))" % (x.name, left, right, top, bottom))
    return v.name, (0, 0)


def _rank4(b, x):
    if len(x.shape) != 4:
        b.fail("only 4-D (N, C, H, W) inputs are supported, got shape %s" % (x.shape,))


def _rows(b, node, x):
    """(attrs, shape) of a 1-D window op on [N, C, L] as the 2-D one on [N, C, 1, L]: each
    per-axis attribute gains an H entry (kernel, stride and dilation 1, no padding)."""
    a = dict(node.attrs)
    for key in ("kernel_shape", "strides", "dilations"):
        if key in a:
            if len(a[key]) != 1:
                b.fail("%s must have 1 value for a 1-D input, got %r" % (key, a[key]))
            a[key] = [1] + list(a[key])
    if "pads" in a:
        if len(a["pads"]) != 2:
            b.fail("pads must have 2 values for a 1-D input, got %r" % (a["pads"],))
        a["pads"] = [0, a["pads"][0], 0, a["pads"][1]]
    n, c, length = x.shape
    return a, (n, c, 1, length)


def _conv1d(b, node, x, w, bias):
    """Conv of an [N, C, L] value -> nn.Conv1d (unequal padding: an F.pad before it)."""
    attrs, shape = _rows(b, node, x)
    groups = attrs.get("group", 1)
    out_c, in_g, k = (int(d) for d in w.shape)
    dil = _pair(attrs.get("dilations", [1, 1]), "dilations", b)
    if groups < 1 or out_c % groups or x.shape[1] != in_g * groups or min(dil) < 1:
        b.fail("weights %s, group %d and dilations %r do not fit input %s"
               % (w.shape, groups, dil[1:], x.shape))
    strides, pads = _window(b, node, shape, (1, k), dil, attrs)
    check_dims(node.where() + " output", (x.shape[0], out_c, x.shape[2] + pads[1] + pads[3]),
               MAX_ACTIVATION)
    src, padding = x.name, pads[1]
    if pads[1] != pads[3]:
        src, padding = b.compute("F.pad(%s, (%d, %d))" % (x.name, pads[1], pads[3])).name, 0
    source = "nn.Conv1d(%d, %d, %d, stride=%d, padding=%d, dilation=%d, groups=%d, " \
        "bias=%s)" % (in_g * groups, out_c, k, strides[1], padding, dil[1], groups,
                      bias is not None)
    b.emit("%s(%s)" % (_weighted_layer(b, "conv", source, w, bias), src))


def _weighted_layer(b, prefix, source, w, bias):
    """A layer made by source, holding the float32 weight w and bias (None: no bias)."""
    weights = {"weight": w.astype(np.float32)}
    if bias is not None:
        weights["bias"] = bias.astype(np.float32).reshape(-1)
    return b.layer(prefix, source, weights)


@lowers("Conv")
def conv(b, node):
    """Conv -> nn.Conv2d, or nn.Conv1d on [N, C, L] (asymmetric padding: an F.pad before
    it)."""
    x, w, bias = b.var(0), b.const(1), b.const(2)
    if len(x.shape) == 3 and w is not None and w.ndim == 3:
        return _conv1d(b, node, x, w, bias)
    _rank4(b, x)
    if w is None or w.ndim != 4:
        b.fail("only 2-D convolutions with constant weights are supported")
    groups = node.attrs.get("group", 1)
    out_c, in_g, kh, kw = (int(d) for d in w.shape)
    dil = _pair(node.attrs.get("dilations", [1, 1]), "dilations", b)
    if groups < 1 or out_c % groups or x.shape[1] != in_g * groups or min(dil) < 1:
        b.fail("weights %s, group %d and dilations %r do not fit input %s"
               % (w.shape, groups, dil, x.shape))
    strides, pads = _window(b, node, x, (kh, kw), dil)
    check_dims(node.where() + " output", (x.shape[0], out_c, x.shape[2] + pads[0] + pads[2],
                                          x.shape[3] + pads[1] + pads[3]), MAX_ACTIVATION)
    src, padding = _padded(b, x, pads)
    source = "nn.Conv2d(%d, %d, (%d, %d), stride=%r, padding=%r, dilation=%r, groups=%d, " \
        "bias=%s)" % (in_g * groups, out_c, kh, kw, strides, padding, dil, groups,
                      bias is not None)
    b.emit("%s(%s)" % (_weighted_layer(b, "conv", source, w, bias), src))


@lowers("ConvTranspose")
def conv_transpose(b, node):
    """ConvTranspose -> nn.ConvTranspose2d (asymmetric pads: a crop after it)."""
    a = node.attrs
    x, w, bias = b.var(0), b.const(1), b.const(2)
    _rank4(b, x)
    if w is None or w.ndim != 4:
        b.fail("only 2-D transposed convolutions with constant weights are supported")
    if "output_shape" in a or a.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        b.fail("output_shape and auto_pad SAME_* are not supported; give pads instead")
    groups = a.get("group", 1)
    in_c, out_g, kh, kw = (int(d) for d in w.shape)
    dil = _pair(a.get("dilations", [1, 1]), "dilations", b)
    strides = _pair(a.get("strides", [1, 1]), "strides", b)
    extra = _pair(a.get("output_padding", [0, 0]), "output_padding", b)
    pads = a.get("pads", [0, 0, 0, 0]) if a.get("auto_pad", "NOTSET") == "NOTSET" else [0] * 4
    if groups < 1 or in_c % groups or x.shape[1] != in_c or min(dil + strides) < 1:
        b.fail("weights %s, group %d, strides %r and dilations %r do not fit input %s"
               % (w.shape, groups, strides, dil, x.shape))
    if len(pads) != 4 or min(pads) < 0 or not all(
            0 <= e < max(s, d) for e, s, d in zip(extra, strides, dil)):
        b.fail("pads %r must be 4 non-negative values and output_padding %r smaller than "
               "the strides or dilations" % (pads, extra))
    top, left, bottom, right = (int(p) for p in pads)
    full = [(i - 1) * s + d * (k - 1) + 1 + e for i, s, d, k, e in
            zip(x.shape[2:], strides, dil, (kh, kw), extra)]
    if full[0] - top - bottom < 1 or full[1] - left - right < 1:
        b.fail("pads %r leave no output for input %s" % (pads, x.shape))
    check_dims(node.where() + " output", (x.shape[0], out_g * groups) + tuple(full),
               MAX_ACTIVATION)
    symmetric = (top, left) == (bottom, right)
    padding = (top, left) if symmetric else (0, 0)
    source = "nn.ConvTranspose2d(%d, %d, (%d, %d), stride=%r, padding=%r, " \
        "output_padding=%r, groups=%d, bias=%s, dilation=%r)" % (
            in_c, out_g * groups, kh, kw, strides, padding, extra, groups, bias is not None,
            dil)
    layer = _weighted_layer(b, "deconv", source, w, bias)
    if symmetric:
        b.emit("%s(%s)" % (layer, x.name))
        return
    y = b.compute("%s(%s)" % (layer, x.name))
    b.emit("%s[:, :, %d:%d, %d:%d]" % (y.name, top, full[0] - bottom, left, full[1] - right))


def _linear(b, x, weight, bias):
    out_f, in_f = weight.shape
    weights = {"weight": weight.astype(np.float32)}
    if bias is not None:
        weights["bias"] = bias.astype(np.float32)
    layer = b.layer("linear", "nn.Linear(%d, %d, bias=%s)" % (in_f, out_f, bias is not None),
                    weights)
    b.emit("%s(%s)" % (layer, x.name))


@lowers("Gemm")
def gemm(b, node):
    """Gemm with constant B (and C) -> nn.Linear."""
    a = node.attrs
    x, w, c = b.var(0), b.const(1), b.const(2)
    if a.get("transA", 0) or w is None or w.ndim != 2 or len(x.shape) != 2:
        b.fail("only x @ B (+ C) with constant 2-D B and 2-D x is supported")
    w = (w if a.get("transB", 0) else w.T) * a.get("alpha", 1.0)
    if c is not None:
        if c.size not in (1, w.shape[0]):
            b.fail("C must hold one value per output, got shape %s" % (c.shape,))
        c = np.broadcast_to(c.reshape(-1), (w.shape[0],)) * a.get("beta", 1.0)
    _linear(b, x, w, c)


@lowers("MatMul")
def matmul(b, node):
    """MatMul by a constant matrix -> nn.Linear without bias; of two values -> matmul."""
    x, w = b.get(0), b.get(1)
    if isinstance(x, Var) and not isinstance(w, Var) and w is not None and w.ndim == 2:
        return _linear(b, x, w.T, None)
    b.emit("burn.matmul(%s, %s)" % (b.operand(x), b.operand(w)))


def _binary(symbol):
    def lower(b, node):
        x, y = b.get(0), b.get(1)
        if x is None or y is None:
            b.fail("needs two inputs")
        check_dims(node.where(), np.broadcast_shapes(x.shape, y.shape), MAX_ACTIVATION)
        b.emit("%s %s %s" % (b.operand(x), symbol, b.operand(y)))
    return lower


for _op, _symbol in (("Add", "+"), ("Sub", "-"), ("Mul", "*"), ("Div", "/")):
    lowers(_op)(_binary(_symbol))


def _scalar(b, i, default):
    v = b.const(i)
    if v is None:
        return default
    if v.size != 1:
        b.fail("input %d must be one number" % i)
    return float(v.reshape(-1)[0])


@lowers("Relu")
def relu(b, node):
    """Relu -> F.relu."""
    b.emit("F.relu(%s)" % b.var(0).name)


@lowers("Clip")
def clip(b, node):
    """Clip with constant bounds -> burn.clamp (F.relu for [0, inf))."""
    x, lo, hi = b.var(0), _scalar(b, 1, None), _scalar(b, 2, None)
    if lo == 0.0 and hi is None:
        return b.emit("F.relu(%s)" % x.name)
    bounds = ["None" if v is None else b.number(v) for v in (lo, hi)]
    b.emit("burn.clamp(%s, %s, %s)" % (x.name, bounds[0], bounds[1]))


for _op, _fn in (("Sigmoid", "F.sigmoid"), ("Tanh", "F.tanh")):
    lowers(_op)(lambda b, node, fn=_fn: b.emit("%s(%s)" % (fn, b.var(0).name)))


@lowers("LeakyRelu")
def leaky_relu(b, node):
    """LeakyRelu -> F.leaky_relu."""
    b.emit("F.leaky_relu(%s, %s)" % (b.var(0).name, b.number(node.attrs.get("alpha", 0.01))))


@lowers("HardSigmoid")
def hard_sigmoid(b, node):
    """HardSigmoid -> nn.Hardsigmoid with its alpha and beta."""
    a = node.attrs
    layer = b.layer("hsig", "nn.Hardsigmoid(alpha=%s, beta=%s)" % (
        b.number(a.get("alpha", 0.2)), b.number(a.get("beta", 0.5))), {})
    b.emit("%s(%s)" % (layer, b.var(0).name))


@lowers("HardSwish")
def hard_swish(b, node):
    """HardSwish -> x * relu6(x + 3) / 6 (the form export lowers)."""
    x = b.var(0).name
    b.emit("%s * F.relu6(%s + 3.0) / 6.0" % (x, x))


@lowers("Softmax")
def softmax(b, node):
    """Softmax over one axis (opset 13 semantics) -> F.softmax."""
    b.emit("F.softmax(%s, dim=%d)" % (b.var(0).name, node.attrs.get("axis", -1)))


@lowers("MaxPool", "AveragePool")
def pool(b, node):
    """MaxPool / AveragePool (2-D, symmetric padding) -> F.max_pool2d / F.avg_pool2d; of an
    [N, C, L] value -> nn.MaxPool1d / nn.AvgPool1d."""
    a = node.attrs
    x = b.var(0)
    if len(x.shape) == 3:
        return _pool1d(b, node, x)
    _rank4(b, x)
    kernel = _pair(a.get("kernel_shape"), "kernel_shape", b)
    dil = _pair(a.get("dilations", [1, 1]), "dilations", b)
    if min(kernel) < 1 or min(dil) < 1:
        b.fail("kernel_shape and dilations must be positive")
    strides, pads = _window(b, node, x, kernel, dil)
    if pads[:2] != pads[2:]:
        b.fail("only the same padding on both sides is supported, got %r" % (pads,))
    ceil = bool(a.get("ceil_mode", 0))
    if node.op == "MaxPool":
        return b.emit("F.max_pool2d(%s, %r, %r, %r, %r, ceil_mode=%s)" % (
            x.name, kernel, strides, pads[:2], dil, ceil))
    if dil != (1, 1):
        b.fail("dilated average pooling is not supported")
    b.emit("F.avg_pool2d(%s, %r, %r, %r, ceil_mode=%s, count_include_pad=%s)" % (
        x.name, kernel, strides, pads[:2], ceil, bool(a.get("count_include_pad", 0))))


def _pool1d(b, node, x):
    a, shape = _rows(b, node, x)
    kernel = _pair(a.get("kernel_shape"), "kernel_shape", b)
    dil = _pair(a.get("dilations", [1, 1]), "dilations", b)
    if min(kernel) < 1 or min(dil) < 1:
        b.fail("kernel_shape and dilations must be positive")
    strides, pads = _window(b, node, shape, kernel, dil, a)
    if pads[1] != pads[3]:
        b.fail("only the same padding on both sides is supported, got %r" % ((pads[1], pads[3]),))
    ceil = bool(a.get("ceil_mode", 0))
    if node.op == "MaxPool":
        source = "nn.MaxPool1d(%d, %d, %d, %d, ceil_mode=%s)" % (kernel[1], strides[1],
                                                                 pads[1], dil[1], ceil)
    elif dil[1] != 1:
        b.fail("dilated average pooling is not supported")
    else:
        source = "nn.AvgPool1d(%d, %d, %d, ceil_mode=%s, count_include_pad=%s)" % (
            kernel[1], strides[1], pads[1], ceil, bool(a.get("count_include_pad", 0)))
    b.emit("%s(%s)" % (b.layer("pool", source, {}), x.name))


@lowers("GlobalAveragePool")
def global_average_pool(b, node):
    """GlobalAveragePool -> mean over (H, W), dims kept; of an [N, C, L] value ->
    nn.AdaptiveAvgPool1d(1)."""
    x = b.var(0)
    if len(x.shape) == 3:
        return b.emit("%s(%s)" % (b.layer("pool", "nn.AdaptiveAvgPool1d(1)", {}), x.name))
    _rank4(b, x)
    b.emit("%s.mean((2, 3), keepdim=True)" % x.name)


@lowers("BatchNormalization")
def batch_norm(b, node):
    """BatchNormalization (inference) -> nn.BatchNorm2d with its running statistics
    (nn.BatchNorm1d on [N, C, L] and [N, C])."""
    x = b.var(0)
    if len(x.shape) not in (2, 3):
        _rank4(b, x)
    if node.attrs.get("training_mode", 0):
        b.fail("training_mode=1 is not supported")
    scale, bias, mean, var = (b.const(i) for i in range(1, 5))
    if any(v is None or v.shape != (x.shape[1],) for v in (scale, bias, mean, var)):
        b.fail("scale, B, mean and var must be constants of shape (%d,)" % x.shape[1])
    source = "nn.BatchNorm%dd(%d, eps=%s, momentum=%s)" % (
        1 if len(x.shape) < 4 else 2, x.shape[1], b.number(node.attrs.get("epsilon", 1e-5)),
        b.number(1.0 - node.attrs.get("momentum", 0.9)))
    weights = {"weight": scale, "bias": bias, "running_mean": mean, "running_var": var,
               "num_batches_tracked": np.asarray(0, np.int32)}
    layer = b.layer("bn", source, {k: v.astype(np.float32) if v.ndim else v
                                   for k, v in weights.items()})
    b.emit("%s(%s)" % (layer, x.name))


@lowers("Flatten")
def flatten(b, node):
    """Flatten at `axis` -> a reshape (x.flatten(1) for axis 1)."""
    x = b.var(0)
    axis = node.attrs.get("axis", 1) % max(len(x.shape), 1)
    if axis == 1:
        return b.emit("%s.flatten(1)" % x.name)
    b.reshape(x, (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))))


@lowers("Reshape")
def reshape(b, node):
    """Reshape to a constant shape (0 copies a dim, -1 is inferred)."""
    x, shape = b.var(0), b.const(1)
    if shape is None:
        b.fail("the shape must be a constant")
    dims = [int(d) for d in shape.reshape(-1)]
    if not node.attrs.get("allowzero", 0):
        dims = [x.shape[i] if d == 0 and i < len(x.shape) else d for i, d in enumerate(dims)]
    try:
        out = np.empty(x.shape, np.uint8).reshape(dims).shape  # checks like ONNX would
    except ValueError as e:
        b.fail(str(e))
    b.reshape(x, out)


@lowers("Squeeze", "Unsqueeze")
def squeeze(b, node):
    """Squeeze / Unsqueeze -> a reshape."""
    x = b.var(0)
    consts = [np.empty(x.shape, np.uint8)] + [b.const(i) for i in range(1, len(node.inputs))]
    b.reshape(x, fold(node, consts).shape)


@lowers("Transpose")
def transpose(b, node):
    """Transpose -> permute."""
    x = b.var(0)
    perm = node.attrs.get("perm") or list(range(len(x.shape)))[::-1]
    if sorted(perm) != list(range(len(x.shape))):
        b.fail("perm %r is not a permutation of the %d dims" % (perm, len(x.shape)))
    b.emit("%s.permute(%s)" % (x.name, ", ".join(str(p) for p in perm)))


@lowers("Concat")
def concat(b, node):
    """Concat -> burn.cat (constant parts become buffers)."""
    parts = [b.operand(b.get(i)) for i in range(len(node.inputs))]
    b.emit("burn.cat([%s], dim=%d)" % (", ".join(parts), node.attrs.get("axis", 0)))


@lowers("Pad")
def pad(b, node):
    """Pad, constant mode, non-negative constant pads -> F.pad."""
    x, pads = b.var(0), b.const(1)
    if node.attrs.get("mode", "constant") != "constant" or pads is None:
        b.fail("only constant-mode padding with constant pads is supported")
    value = _scalar(b, 2, 0.0)
    rank = len(x.shape)
    axes = b.const(3)
    axes = [int(a) % rank for a in axes.reshape(-1)] if axes is not None else list(range(rank))
    pads = [int(p) for p in pads.reshape(-1)]
    if len(pads) != 2 * len(axes) or min(pads, default=0) < 0:
        b.fail("pads must be non-negative, two per axis")
    per_dim = {a: (pads[i], pads[i + len(axes)]) for i, a in enumerate(axes)}
    flat = []
    padded = [d for d, p in per_dim.items() if p != (0, 0)]
    for d in range(rank - 1, min(padded, default=rank) - 1, -1):
        flat += list(per_dim.get(d, (0, 0)))
    check_dims(node.where(), [d + sum(per_dim.get(i, (0, 0))) for i, d in enumerate(x.shape)],
               MAX_ACTIVATION)
    b.emit("F.pad(%s, %r, %s)" % (x.name, tuple(flat), b.number(value)))


@lowers("Identity", "Dropout")
def identity(b, node):
    """Identity, Dropout (inference) -> the input itself."""
    b.alias(b.var(0))


@lowers("Slice")
def slice_(b, node):
    """Slice with constant starts, ends, axes and positive steps -> indexing."""
    x = b.var(0)
    starts, ends, axes, steps = (b.const(i) for i in range(1, 5))
    if starts is None or ends is None:
        b.fail("starts and ends must be constants")
    n = starts.size
    axes = axes.reshape(-1) if axes is not None else np.arange(n)
    steps = steps.reshape(-1) if steps is not None else np.ones(n, np.int64)
    index = [":"] * len(x.shape)
    for s, e, a, st in zip(starts.reshape(-1), ends.reshape(-1), axes, steps):
        a = int(a) % len(x.shape)
        if st <= 0:
            b.fail("only positive steps are supported")
        lo, hi, _ = slice(int(s), int(e)).indices(x.shape[a])
        index[a] = "%d:%d" % (lo, max(hi, lo)) + (":%d" % st if st != 1 else "")
    b.emit("%s[%s]" % (x.name, ", ".join(index)))


@lowers("Gather")
def gather(b, node):
    """Gather of a computed value at constant indices -> indexing (a scalar index) or a
    concatenation of one-wide slices."""
    x, idx = b.var(0), b.const(1)
    if idx is None or idx.ndim > 1 or idx.size > MAX_GATHER:
        b.fail("only constant scalar or 1-D indices (at most %d) are supported" % MAX_GATHER)
    axis = node.attrs.get("axis", 0) % len(x.shape)
    size = x.shape[axis]
    if any(not -size <= int(i) < size for i in idx.reshape(-1)):
        b.fail("an index is outside [-%d, %d)" % (size, size))
    lead = ":, " * axis
    if idx.ndim == 0:
        return b.emit("%s[%s%d]" % (x.name, lead, int(idx) % size))
    parts = ["%s[%s%d:%d]" % (x.name, lead, int(i) % size, int(i) % size + 1)
             for i in idx.reshape(-1)]
    b.emit("burn.cat([%s], dim=%d)" % (", ".join(parts), axis))

"""Constant folding of ONNX nodes with numpy: a node whose inputs are all constants (and a
`Shape` of a value whose shape is known) becomes a constant before conversion. These are
the shape computations exporters emit (`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`)
and weight preprocessing (a `Transpose` or `Mul` of an initializer)."""

import numpy as np

from .onnx_read import ONNXImportError, check_dims

AxisError = getattr(np, "exceptions", np).AxisError


def _axes(node, consts, index):
    """Axes from input `index` (opset 13+) or the `axes` attribute; None when absent."""
    if len(node.inputs) > index and node.inputs[index]:
        return [int(a) for a in np.asarray(consts[index]).reshape(-1)]
    return node.attrs.get("axes")


def _unsqueeze(node, c):
    x = c[0]
    axes = _axes(node, c, 1)
    rank = x.ndim + len(axes)
    for a in sorted(a % rank for a in axes):
        x = np.expand_dims(x, a)
    return x


def _squeeze(node, c):
    axes = _axes(node, c, 1)
    return np.squeeze(c[0], tuple(a % c[0].ndim for a in axes)) if axes else np.squeeze(c[0])


def _slice(node, c):
    x = c[0]
    starts, ends = c[1].reshape(-1), c[2].reshape(-1)
    axes = c[3].reshape(-1) if len(c) > 3 and c[3] is not None else range(len(starts))
    steps = c[4].reshape(-1) if len(c) > 4 and c[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a) % x.ndim] = slice(int(s), int(e), int(st))
    return x[tuple(index)]


def _reshape(node, c):
    x, shape = c[0], [int(d) for d in c[1].reshape(-1)]
    if not node.attrs.get("allowzero", 0):
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(shape)


def _cast(node, c):
    import onnx
    return c[0].astype(onnx.helper.tensor_dtype_to_np_dtype(node.attrs["to"]))


def _binary(fn):
    def run(node, c):
        a, b = c[0], c[1]
        if a.dtype.kind in "iu" and b.dtype.kind in "iu" and fn is np.divide:
            return (a // b).astype(a.dtype)
        return fn(a, b).astype(np.result_type(a, b))
    return run


def _constant_of_shape(node, c):
    dims = check_dims(node.where(), c[0].reshape(-1))
    value = node.attrs.get("value")
    value = np.zeros(1, np.float32) if value is None else np.asarray(value).reshape(-1)[:1]
    return np.full(dims, value[0], value.dtype)


def _expand(node, c):
    shape = np.broadcast_shapes(c[0].shape, tuple(int(d) for d in c[1].reshape(-1)))
    check_dims(node.where(), shape)
    return np.broadcast_to(c[0], shape).copy()


FOLDS = {
    "Constant": None,  # handled by `constant`
    "Identity": lambda n, c: c[0],
    "Shape": lambda n, c: np.asarray(
        c[0].shape[n.attrs.get("start", 0):n.attrs.get("end")], np.int64),
    "Cast": _cast,
    "ConstantOfShape": _constant_of_shape,
    "Expand": _expand,
    "Gather": lambda n, c: np.take(c[0], c[1], axis=n.attrs.get("axis", 0)),
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Concat": lambda n, c: np.concatenate(c, axis=n.attrs.get("axis", 0)),
    "Reshape": _reshape,
    "Flatten": lambda n, c: c[0].reshape(
        (int(np.prod(c[0].shape[:n.attrs.get("axis", 1)])), -1)),
    "Transpose": lambda n, c: np.transpose(c[0], n.attrs.get("perm")),
    "Slice": _slice,
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Div": _binary(np.divide),
}


def constant(node):
    """The value of a `Constant` node, from whichever attribute holds it."""
    a = node.attrs
    if "value" in a and isinstance(a["value"], np.ndarray):
        return a["value"]
    for key, dtype in (("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        if key in a:
            return np.asarray(a[key], dtype)
    raise ONNXImportError("%s: no supported value attribute" % node.where())


def _grown_shape(node, c):
    """The output shape of the folds whose output may be larger than every input, known
    before it is computed; None for the others."""
    if node.op in ("Add", "Sub", "Mul", "Div"):
        return np.broadcast_shapes(c[0].shape, c[1].shape)
    if node.op == "Concat":
        axis = node.attrs.get("axis", 0) % max(c[0].ndim, 1)
        return c[0].shape[:axis] + (sum(x.shape[axis] for x in c),) + c[0].shape[axis + 1:]
    if node.op == "Gather":
        axis = node.attrs.get("axis", 0) % max(c[0].ndim, 1)
        return c[0].shape[:axis] + c[1].shape + c[0].shape[axis + 1:]
    return None


def fold(node, consts):
    """The folded output of `node` over the constant inputs `consts` (None for an absent
    optional input); a numpy failure becomes ONNXImportError naming the node. An output
    that would be too large is refused before it is allocated."""
    fn = FOLDS[node.op]
    try:
        shape = _grown_shape(node, consts)
        if shape is not None:
            check_dims(node.where(), shape)
        with np.errstate(all="ignore"):
            out = np.asarray(fn(node, consts))
    except (ValueError, IndexError, TypeError, KeyError, AttributeError, ZeroDivisionError,
            AxisError) as e:
        raise ONNXImportError("%s: cannot fold its constant inputs (%s)"
                              % (node.where(), e)) from None
    check_dims(node.where(), out.shape)
    return out


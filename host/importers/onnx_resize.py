"""The Resize handler of `onnx_lower`: nearest and linear resizing of an
[N, C, H, W] value is a linear map along H and along W, so each axis becomes a product
with a constant [out, in] matrix computed here: burn.matmul(A_h, x), then a product by
A_w transposed (an axis whose size does not change is left alone)."""

import numpy as np

from .onnx_read import MAX_ACTIVATION, check_dims
from .onnx_registry import lowers

_COORDS = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
           "tf_half_pixel_for_nn")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _source_position(i, size, out, scale, coords):
    """Where output position `i` samples the input, in input coordinates."""
    if coords == "half_pixel":
        return (i + 0.5) / scale - 0.5
    if coords == "pytorch_half_pixel":
        return (i + 0.5) / scale - 0.5 if out > 1 else 0.0
    if coords == "align_corners":
        return i * (size - 1) / (out - 1) if out > 1 else 0.0
    if coords == "tf_half_pixel_for_nn":
        return (i + 0.5) / scale
    return i / scale


def _nearest_index(x, rule):
    if rule == "floor":
        return int(np.floor(x))
    if rule == "ceil":
        return int(np.ceil(x))
    low = np.floor(x)
    if x - low == 0.5:
        return int(low) if rule == "round_prefer_floor" else int(low) + 1
    return int(np.round(x))


def axis_matrix(size, out, scale, mode, coords, rule):
    """The [out, size] float32 matrix resizing one axis of `size` to `out` positions."""
    m = np.zeros((out, size), np.float64)
    for i in range(out):
        x = _source_position(i, size, out, scale, coords)
        if mode == "nearest":
            m[i, min(max(_nearest_index(x, rule), 0), size - 1)] = 1.0
            continue
        x = min(max(x, 0.0), size - 1.0)
        lo = int(np.floor(x))
        hi = min(lo + 1, size - 1)
        m[i, lo] += 1.0 - (x - lo)
        m[i, hi] += x - lo
    return m.astype(np.float32)


def _emit(b, x, outs, scales, mode, coords, rule):
    if len(x.shape) != 4:
        b.fail("only 4-D (N, C, H, W) inputs are supported, got shape %s" % (x.shape,))
    if list(outs[:2]) != list(x.shape[:2]):
        b.fail("only H and W may be resized, got output shape %s for input %s"
               % (tuple(outs), x.shape))
    if min(outs) < 1:
        b.fail("output shape %s is empty" % (tuple(outs),))
    check_dims(b.node.where() + " output", tuple(outs), MAX_ACTIVATION)
    h = w = None
    if outs[2] != x.shape[2] or scales[2] != 1.0:
        h = axis_matrix(x.shape[2], outs[2], scales[2], mode, coords, rule)
    if outs[3] != x.shape[3] or scales[3] != 1.0:
        w = axis_matrix(x.shape[3], outs[3], scales[3], mode, coords, rule)
    if h is None and w is None:
        return b.alias(x)
    v = x
    if h is not None:
        expr = "burn.matmul(%s, %s)" % (b.operand(h), v.name)
        if w is None:
            return b.emit(expr)
        v = b.compute(expr)
    b.emit("burn.matmul(%s, %s)" % (v.name, b.operand(np.ascontiguousarray(w.T))))


def _check_attrs(b, a, mode, coords, rule):
    if mode not in ("nearest", "linear"):
        b.fail("mode %r is not supported (nearest and linear are)" % (mode,))
    if coords not in _COORDS:
        b.fail("coordinate_transformation_mode %r is not supported" % (coords,))
    if rule not in _NEAREST:
        b.fail("nearest_mode %r is not supported" % (rule,))
    if a.get("antialias", 0):
        b.fail("antialias=1 is not supported")
    if a.get("keep_aspect_ratio_policy", "stretch") != "stretch":
        b.fail("keep_aspect_ratio_policy %r is not supported" % a["keep_aspect_ratio_policy"])
    if a.get("axes") is not None:
        b.fail("axes is not supported; give scales or sizes for every dim")


@lowers("Resize")
def resize(b, node):
    """Resize (nearest or linear, constant scales or sizes, 4-D) -> matrix products along
    H and W."""
    a = node.attrs
    x = b.var(0)
    mode = a.get("mode", "nearest")
    coords = a.get("coordinate_transformation_mode", "half_pixel")
    rule = a.get("nearest_mode", "round_prefer_floor")
    _check_attrs(b, a, mode, coords, rule)
    scales, sizes = b.const(2), b.const(3)
    if sizes is not None and sizes.size:
        outs = [int(s) for s in sizes.reshape(-1)]
        if len(outs) != len(x.shape):
            b.fail("sizes must have %d values, got %r" % (len(x.shape), outs))
        scales = [o / d for o, d in zip(outs, x.shape)]
    elif scales is not None and scales.size:
        scales = [float(s) for s in scales.reshape(-1)]
        if len(scales) != len(x.shape) or min(scales) <= 0:
            b.fail("scales must be %d positive values, got %r" % (len(x.shape), scales))
        outs = [int(np.floor(d * s)) for d, s in zip(x.shape, scales)]
    else:
        b.fail("needs constant scales or sizes")
    _emit(b, x, outs, scales, mode, coords, rule)


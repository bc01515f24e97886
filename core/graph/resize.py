"""Image resizes (TFLite RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR), int8 and float32, and
int16 nearest-neighbour resizes, as TFLM's reference kernels compute them.

The sampling positions depend only on the sizes and the op's flags, so the importer computes
them once, with TFLM's arithmetic (burn.host.importers.resize_tables), into two constant
tables: `ys` holds (y0, y1, wy) for each output row, `xs` (x0, x1, wx) for each output
column. int8 (TFLM's ResizeBilinearInteger): wy, wx are the fractional positions in 1/1024
steps (negative at the top and left edges with half-pixel centers), and the four products
are rounded half away from zero by 2**20. float32: `fy`, `fx` hold the float fractions
(TFLM's input_y - y0). A nearest-neighbour resize is the same with y1 = y0 and zero weights,
which copies the nearest element exactly; the int16 kernel (nearest only, as TFLM's) copies
the element at (y0, x0).

An optional op (burn.graph.ops.OPTIONAL): its prepare step lives here, and a default firmware
leaves this module out.
"""

import sys

from burn import bst_ops
from burn.bst import MAX_DIM

_MIN_W, _MAX_W = -512, 1024  # the int8 weights TFLM makes; int32 products stay exact


def _s8(v):
    return ((v + 128) & 255) - 128


def resize_s8_plain(inp, out, n, ih, iw, c, oh, ow, ys, xs):
    """Reference int8 resize (see the module docstring): inp [n, ih, iw, c] -> out
    [n, oh, ow, c]."""
    o = 0
    for b in range(n):
        for y in range(oh):
            r0 = (b * ih + ys[3 * y]) * iw
            r1 = (b * ih + ys[3 * y + 1]) * iw
            wy = ys[3 * y + 2]
            for x in range(ow):
                x0, x1, wx = xs[3 * x], xs[3 * x + 1], xs[3 * x + 2]
                for k in range(c):
                    acc = (_s8(inp[(r0 + x0) * c + k]) * (1024 - wy) * (1024 - wx) +
                           _s8(inp[(r1 + x0) * c + k]) * wy * (1024 - wx) +
                           _s8(inp[(r0 + x1) * c + k]) * (1024 - wy) * wx +
                           _s8(inp[(r1 + x1) * c + k]) * wy * wx)
                    q = (acc + (1 << 19) if acc > 0 else -acc + (1 << 19)) >> 20
                    out[o] = _s8(q if acc > 0 else -q)  # TFLM truncates, then casts
                    o += 1


resize_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .resize_viper import resize_s8_fast
    except SyntaxError:
        pass

resize_s8 = resize_s8_fast or resize_s8_plain


def resize_f32(inp, out, n, ih, iw, c, oh, ow, ys, xs, fy, fx):
    """float32 resize (see the module docstring)."""
    o = 0
    for b in range(n):
        for y in range(oh):
            r0 = (b * ih + ys[3 * y]) * iw
            r1 = (b * ih + ys[3 * y + 1]) * iw
            dy = fy[y]
            for x in range(ow):
                x0, x1, dx = xs[3 * x], xs[3 * x + 1], fx[x]
                for k in range(c):
                    out[o] = (inp[(r0 + x0) * c + k] * (1 - dy) * (1 - dx) +
                              inp[(r1 + x0) * c + k] * dy * (1 - dx) +
                              inp[(r0 + x1) * c + k] * (1 - dy) * dx +
                              inp[(r1 + x1) * c + k] * dy * dx)
                    o += 1


def resize_s16(inp, out, n, ih, iw, c, oh, ow, ys, xs):
    """int16 nearest-neighbour resize: out [n, oh, ow, c] pixel (b, y, x) is inp [n, ih, iw, c]
    pixel (b, ys[3 * y], xs[3 * x])."""
    o = 0
    for b in range(n):
        for y in range(oh):
            row = (b * ih + ys[3 * y]) * iw
            for x in range(ow):
                s = (row + xs[3 * x]) * c
                for k in range(c):
                    out[o] = inp[s + k]
                    o += 1


def _table(step, ctx, name, size, count):
    """Constant `name`: (lo, hi, w) int32 triples, one per output position; lo and hi index
    an input of `size`, w lies in TFLM's range."""
    buf = bst_ops._const(step, ctx, name, "int32", count=3 * count)[0]
    for i in range(count):
        if not (0 <= buf[3 * i] < size and 0 <= buf[3 * i + 1] < size and
                _MIN_W <= buf[3 * i + 2] <= _MAX_W):
            step.fail("%s[%d] = %s: outside an input of %d or its weights"
                      % (name, i, tuple(buf[3 * i:3 * i + 3]), size))
    return buf


def prepare(step, ctx, variant):
    """Check and bind a resize op (burn.bst_ops.prepare; burn.graph.s16_prepare hands it an
    int16 one)."""
    bst_ops._arity(step, 1)
    dt = bst_ops._dtype(step, ctx)
    (n, ih, iw, c), (oh, ow, oc) = bst_ops._nhwc(step, ctx, dt)
    if oc != c or oh > MAX_DIM or ow > MAX_DIM:
        step.fail("output %s does not resize input %s" % ((n, oh, ow, oc), (n, ih, iw, c)))
    step.a = bst_ops._xy(step, ctx) + (n, ih, iw, c, oh, ow, _table(step, ctx, "ys", ih, oh),
                                       _table(step, ctx, "xs", iw, ow))
    if dt == "float32":
        step.a += (bst_ops._const(step, ctx, "fy", "float32", count=oh)[0],
                   bst_ops._const(step, ctx, "fx", "float32", count=ow)[0])
    bst_ops._bind(step, "resize", {"int8": "resize_s8", "int16": "resize_s16"}.get(
        dt, "resize_f32"), variant)

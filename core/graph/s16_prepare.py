"""The prepare step of the int16 ops (int16x8 graphs: int16 activations, int8 weights).

burn.bst_ops hands every op that reads or writes an int16 tensor here, by name, as it does
an optional op: a default firmware leaves this module and the int16 kernels out, and then
refuses an int16 model at load with the way to rebuild. The checks keep every kernel
inside its buffers, as burn.bst_ops' own do.
"""

from burn import bst_ops as b
from burn.shape import numel

_I16 = (-32768, 32767)
_MAX_DEPTH = 1 << 22  # an int64 sum of int16 x int8 products stays within 2**47 (TFLM's rule)
_BITS = {"int8": 8, "int16": 16}


def _requant(step, ctx, in_dt, out_dt):
    step.a = b._unary(step, ctx, in_dt, out_dt)
    lo = {"int8": -128, "int16": -32768}
    q = step.ps((("in_zp", lo[in_dt], -lo[in_dt] - 1), ("out_zp", lo[out_dt], -lo[out_dt] - 1),
                 ("mult", 0, b._I32), ("shift", -b._SHIFT, b._SHIFT)))
    # q - in_zp shifted left must stay an int32, where every runtime computes the same
    if q[3] > 0 and ((1 << _BITS[in_dt]) - 1) << q[3] > b._I32:
        step.fail("shift %d overflows int32 for %s inputs" % (q[3], in_dt))
    step.a += q


def _quantize(step, ctx, in_dt, out_dt, variant):
    if step.kind == "requantize":
        _requant(step, ctx, in_dt, out_dt)
        name = "requantize_s16" if in_dt == out_dt else "requantize_%s_%s" % (
            "s8" if in_dt == "int8" else "s16", "s8" if out_dt == "int8" else "s16")
    else:
        if (in_dt, out_dt) != (("float32", "int16") if step.kind == "quantize"
                               else ("int16", "float32")):
            step.fail("%s from %s to %s is not an int16 conversion" % (step.kind, in_dt,
                                                                       out_dt))
        scale = step.num("scale")
        if not scale > 0:
            step.fail("scale must be positive")
        step.a = b._unary(step, ctx, in_dt, out_dt) + (scale, step.p("zp", *_I16))
        name = step.kind + "_s16"
    b._bind(step, "s16_quantize", name, variant)


def _tail(step, depth, oc):
    """(wide, act_min, act_max) after the per-channel tables' checks."""
    wide = step.p("wide", 0, 1)
    if wide:
        if depth > _MAX_DEPTH:
            step.fail("%d products per output: more than %d" % (depth, _MAX_DEPTH))
        _int64_shifts(step, oc)
    return (wide,) + _clamp16(step)


def _fully_connected(step, ctx, variant):
    b._arity(step, 1)
    xs = b._shape(step, ctx, step.ins[0], "int16")
    ys = b._shape(step, ctx, step.outs[0], "int16")
    w, (out_f, in_f) = b._const(step, ctx, "w", "int8", rank=2)
    batches = numel(xs) // in_f
    if numel(xs) != batches * in_f or numel(ys) != batches * out_f:
        step.fail("input %s and output %s do not fit weights %s" % (xs, ys, (out_f, in_f)))
    step.macs = batches * in_f * out_f
    b._bind(step, "s16_fully_connected", "fully_connected_s16", variant)
    step.a = (ctx.view(step.ins[0]), w) + b._weights_tail(step, ctx, "int8", out_f) + (
        ctx.view(step.outs[0]), batches, in_f, out_f)
    wide, lo, hi = _tail(step, in_f, out_f)
    step.a += (wide,) + step.ps((("in_zp",) + _I16, ("out_zp",) + _I16)) + (lo, hi)


def _conv(step, ctx, variant):
    b._arity(step, 1)
    (n, ih, iw, ic), (oh, ow, oc) = b._nhwc(step, ctx, "int16")
    groups = step.p("groups", 1, ic)
    w, (woc, kh, kw, wic) = b._const(step, ctx, "w", "int8", rank=4)
    if woc != oc or wic * groups != ic or oc % groups:
        step.fail("weights %s do not fit %d input / %d output channels in %d groups"
                  % ((woc, kh, kw, wic), ic, oc, groups))
    step.macs = n * oh * ow * oc * kh * kw * wic
    b._bind(step, "s16_conv", "conv_s16", variant)
    window = b._window(step, ih, iw, oh, ow, kh, kw, step.ps(b._WINDOW))
    step.a = (ctx.view(step.ins[0]), w) + b._weights_tail(step, ctx, "int8", oc) + (
        ctx.view(step.outs[0]), n, ih, iw, ic, oh, ow, oc, kh, kw, groups) + window
    step.a += _tail(step, kh * kw * wic, oc)


def _int64_shifts(step, oc):
    for c in range(oc):
        if step.a[4][c] > 7:  # TFLM's int64 multiply takes shifts up to 7
            step.fail("shift %d of channel %d: more than 7" % (step.a[4][c], c))


def _clamp16(step):
    lo, hi = step.ps((("act_min",) + _I16, ("act_max",) + _I16))
    if lo > hi:
        step.fail("act_min %d > act_max %d" % (lo, hi))
    return lo, hi


def _depthwise(step, ctx, variant):
    b._arity(step, 1)
    (n, ih, iw, ic), (oh, ow, oc) = b._nhwc(step, ctx, "int16")
    mult = step.p("depth_mult", 1, b.MAX_DIM)
    w, (one, kh, kw, woc) = b._const(step, ctx, "w", "int8", rank=4)
    if one != 1 or woc != oc or ic * mult != oc:
        step.fail("weights %s do not fit %d input channels x depth multiplier %d"
                  % ((one, kh, kw, woc), ic, mult))
    if kh * kw > _MAX_DEPTH:
        step.fail("a %dx%d window: more than %d products per output" % (kh, kw, _MAX_DEPTH))
    step.macs = n * oh * ow * oc * kh * kw
    b._bind(step, "s16_depthwise_conv", "depthwise_conv_s16", variant)
    window = b._window(step, ih, iw, oh, ow, kh, kw, step.ps(b._WINDOW))
    step.a = (ctx.view(step.ins[0]), w) + b._weights_tail(step, ctx, "int8", oc) + (
        ctx.view(step.outs[0]), n, ih, iw, ic, oh, ow, mult, kh, kw) + window
    _int64_shifts(step, oc)
    step.a += _clamp16(step)


def _binary(step, ctx, variant):
    b._arity(step, 2)
    a = numel(b._shape(step, ctx, step.ins[0], "int16"))
    bs = numel(b._shape(step, ctx, step.ins[1], "int16"))
    size = numel(b._shape(step, ctx, step.outs[0], "int16"))
    if a != size or size % bs:
        step.fail("operand sizes %d and %d do not broadcast to the output size %d"
                  % (a, bs, size))
    step.a = (ctx.view(step.ins[0]), ctx.view(step.ins[1]), ctx.view(step.outs[0]), size, bs)
    b._bind(step, "s16_elementwise", step.kind + "_s16", variant)
    if step.kind in ("maximum", "minimum"):  # the stored values compared: no parameters
        return
    zp = (("a_zp",) + _I16, ("b_zp",) + _I16, ("out_zp",) + _I16)
    if step.kind in ("add", "sub"):
        # TFLM's multipliers are below one; left_shift is 15 for int16
        q = step.ps(zp[:1] + (("a_mult", 0, b._I32), ("a_shift", -b._SHIFT, 0)) + zp[1:2] +
                    (("b_mult", 0, b._I32), ("b_shift", -b._SHIFT, 0)) + zp[2:] +
                    (("out_mult", 0, b._I32), ("out_shift", -b._SHIFT, 0),
                     ("left_shift", 0, 15)))
    else:
        q = step.ps(zp + (("mult", 0, b._I32), ("shift", -b._SHIFT, b._SHIFT)))
    step.a += q + _clamp16(step)
    if step.kind == "sub":
        step.a += (step.p("swap", 0, 1),)


def _clamp(step, ctx, variant):
    step.a = b._unary(step, ctx, "int16", "int16") + _clamp16(step)
    b._bind(step, "s16_quantize", "clamp_s16", variant)


def _pool(step, ctx, variant):
    b._arity(step, 1)
    (n, ih, iw, c), (oh, ow, oc) = b._nhwc(step, ctx, "int16")
    if oc != c:
        step.fail("input channels %d != output channels %d" % (c, oc))
    window = step.ps(b._POOL_WINDOW)
    kh, kw, sh, sw, pt, pl = window
    b._window(step, ih, iw, oh, ow, kh, kw, (sh, sw, 1, 1, pt, pl))
    step.a = (ctx.view(step.ins[0]), ctx.view(step.outs[0]), n, ih, iw, c, oh, ow) + \
        window + _clamp16(step)
    b._bind(step, "s16_pool", step.kind[:3] + "_pool_s16", variant)


def _softmax(step, ctx, variant):
    in_dt = ctx.tensors[step.ins[0]][1] if step.ins else None
    x, y, size = b._unary(step, ctx, "int8" if in_dt == "int8" else "int16", "int16")
    depth = ctx.tensors[step.ins[0]][0][-1]
    if depth > b._MAX_SOFTMAX_DEPTH:
        step.fail("depth %d: more than %d classes" % (depth, b._MAX_SOFTMAX_DEPTH))
    if in_dt == "int8":  # the int8 softmax's parameters, int16 outputs
        step.a = (x, y, size // depth, depth) + step.ps(b._SOFTMAX_Q)
        b._bind(step, "s16_softmax", "softmax_s8_s16", variant)
        return
    q = step.ps((("in_mult", 0, b._I32), ("in_left_shift", -b._SHIFT, b._SHIFT)))
    exp_lut = b._const(step, ctx, "exp_lut", "int16", count=513)[0]
    inv_lut = b._const(step, ctx, "inv_lut", "int16", count=513)[0]
    from burn.graph.s16_softmax import lookup_s16

    # every exp is >= 0 and the row's largest >= 2: the sum's shifts stay in range
    if min(exp_lut) < 0 or lookup_s16(32767, exp_lut) < 2:
        step.fail("exp_lut is not a table of exp on [-10, 0]")
    step.a = (x, y, size // depth, depth) + q + (exp_lut, inv_lut)
    b._bind(step, "s16_softmax", "softmax_s16", variant)


def _sigmoid(step, ctx, variant):
    step.a = b._unary(step, ctx, "int16", "int16")
    mult, shift = step.ps((("in_mult", 0, 65535), ("in_left_shift", 0, 31)))
    scaled = mult if mult else 3 << shift  # in_mult 0: TFLM's power-of-two case
    # every input times the multiplier, plus the rounding, stays an int32
    if (scaled << 15) + ((1 << shift) >> 1 if mult else 0) > b._I32:
        step.fail("in_mult %d, in_left_shift %d overflow int32" % (mult, shift))
    step.a += (mult, shift, b._const(step, ctx, "table", "int16", count=256)[0])
    b._bind(step, "s16_sigmoid", step.kind + "_s16", variant)


_PREPARE = {"quantize": _quantize, "dequantize": _quantize, "requantize": _quantize,
            "fully_connected": _fully_connected, "conv2d": _conv,
            "depthwise_conv2d": _depthwise, "add": _binary, "sub": _binary, "mul": _binary,
            "maximum": _binary, "minimum": _binary, "clamp": _clamp,
            "avg_pool2d": _pool, "max_pool2d": _pool, "softmax": _softmax,
            "logistic": _sigmoid, "tanh": _sigmoid}


def prepare(step, ctx, variant):
    """Check and bind an op with an int16 input or output (see burn.bst_ops.prepare)."""
    fn = _PREPARE.get(step.kind)
    if fn is None:  # a kind whose int16 kernels have a module of their own: s16_<kind>
        try:
            fn = __import__("burn.graph.s16_" + step.kind, None, None, ["prepare"]).prepare
        except (ImportError, AttributeError, ValueError):
            fn = prepare
        if fn is prepare:
            step.fail("no int16 kernel for this op")
    if fn is _quantize:
        fn(step, ctx, ctx.tensors[step.ins[0]][1] if step.ins else None,
           ctx.tensors[step.outs[0]][1] if step.outs else None, variant)
    else:
        fn(step, ctx, variant)


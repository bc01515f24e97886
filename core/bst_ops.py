"""The ops of a `.bst` graph: check each op against its kernel's contract and bind it.

`prepare(step, ctx)` validates one op of a checked `BstFile` (tensor dtypes and shapes,
constant shapes, parameter ranges) so that no kernel can index outside its buffers, then
fills `step` with the kernel, its buffers and integer arguments, and `step.run`, a function
that calls the kernel with positional arguments only (an inference allocates nothing).
Errors are ValueErrors that name the op index and kind.
"""

from burn.bst import MAX_DIM, check_int, check_number, numel

_I32 = 2147483647
_SHIFT = 31


class Step:
    """One bound op; the attributes depend on the op kind."""

    def __init__(self, index, kind, ins, outs, consts, params):
        self.index = index
        self.kind = kind
        self.ins = ins
        self.outs = outs
        self.consts = consts
        self.params = params
        self.macs = 0

    def fail(self, message):
        """Raise the ValueError of this op."""
        raise ValueError("op %d (%s): %s" % (self.index, self.kind, message))

    def p(self, name, lo, hi):
        """Integer parameter `name`, checked to lie in [lo, hi]."""
        if name not in self.params:
            self.fail("missing parameter " + name)
        return check_int(self.params[name], lo, hi, "op %d (%s) %s" % (
            self.index, self.kind, name))


# -- kernel lookup ------------------------------------------------------------------------

def kernel(module, name, variant):
    """The function `name` of burn.graph.<module>: active (variant None), plain or fast."""
    full = "burn.graph." + module
    mod = __import__(full, None, None, [name])
    if variant is None:
        return getattr(mod, name)
    fn = getattr(mod, name + "_" + variant, None)
    if fn is None:
        raise ValueError("no %s variant of kernel %s on this interpreter" % (variant, name))
    return fn


# -- shared checks ------------------------------------------------------------------------

def _tensor(step, ctx, tid, dtype, rank=None):
    shape, dt, _off, _scale, _zp, _name = ctx.tensors[tid]
    if dtype is not None and dt != dtype:
        step.fail("tensor %d is %s, expected %s" % (tid, dt, dtype))
    if rank is not None and len(shape) != rank:
        step.fail("tensor %d has shape %s, expected %d dims" % (tid, shape, rank))
    return shape


def _arity(step, n_in, n_out=1):
    if len(step.ins) != n_in or len(step.outs) != n_out:
        step.fail("expected %d inputs and %d outputs" % (n_in, n_out))


def _io_dtype(step, ctx):
    """The dtype of the op's first input, which is also its output dtype."""
    return ctx.tensors[step.ins[0]][1]


def _quant_args(step):
    """in_zp, out_zp, act_min and act_max of conv-like int8 ops."""
    step.in_zp = step.p("in_zp", -128, 127)
    step.out_zp = step.p("out_zp", -128, 127)
    _act_range(step)


def _act_range(step):
    step.act_min = step.p("act_min", -128, 127)
    step.act_max = step.p("act_max", step.act_min, 127)


def _const(step, ctx, name, dtype, rank=None, count=None):
    if name not in step.consts:
        step.fail("missing constant " + name)
    buf, dt, cshape = ctx.const(step, name)
    if dt != dtype:
        step.fail("constant %s is %s, expected %s" % (name, dt, dtype))
    if rank is not None and len(cshape) != rank:
        step.fail("constant %s has shape %s, expected %d dims" % (name, cshape, rank))
    if count is not None and numel(cshape) != count:
        step.fail("constant %s has %d elements, expected %d" % (name, numel(cshape), count))
    return buf, cshape


def _requant_tables(step, ctx, oc):
    """bias, mult, shift: int32 tables of `oc` entries; mult and shift checked."""
    step.bias = _const(step, ctx, "bias", "int32", count=oc)[0]
    step.mult = _const(step, ctx, "mult", "int32", count=oc)[0]
    step.shift = _const(step, ctx, "shift", "int32", count=oc)[0]
    for c in range(oc):
        if step.mult[c] < 0 or step.shift[c] < -_SHIFT or step.shift[c] > _SHIFT:
            step.fail("requantization multiplier/shift out of range at channel %d" % c)


def _window(step):
    step.stride_h = step.p("stride_h", 1, MAX_DIM)
    step.stride_w = step.p("stride_w", 1, MAX_DIM)
    step.pad_top = step.p("pad_top", 0, MAX_DIM)
    step.pad_left = step.p("pad_left", 0, MAX_DIM)


def _dilation(step):
    step.dil_h = step.p("dil_h", 1, MAX_DIM)
    step.dil_w = step.p("dil_w", 1, MAX_DIM)


def _nhwc_pair(step, ctx, dtype):
    """(n, ih, iw, ic), (oh, ow, oc) of a 4-D input and output with the same batch."""
    n, ih, iw, ic = _tensor(step, ctx, step.ins[0], dtype, 4)
    n2, oh, ow, oc = _tensor(step, ctx, step.outs[0], dtype, 4)
    if n2 != n:
        step.fail("input batch %d != output batch %d" % (n, n2))
    return (n, ih, iw, ic), (oh, ow, oc)


def _views(step, ctx):
    step.x = ctx.view(step.ins[0])
    step.y = ctx.view(step.outs[0])


# -- conv, depthwise, fully connected ------------------------------------------------------

def _prep_conv(step, ctx, variant):
    _arity(step, 1)
    dt = _io_dtype(step, ctx)
    (n, ih, iw, ic), (oh, ow, oc) = _nhwc_pair(step, ctx, dt)
    step.groups = step.p("groups", 1, ic)
    step.w, (woc, kh, kw, wic) = _const(step, ctx, "w", dt, rank=4)
    if woc != oc or wic * step.groups != ic or oc % step.groups:
        step.fail("weights %s do not fit input channels %d, output channels %d, groups %d"
                  % ((woc, kh, kw, wic), ic, oc, step.groups))
    _window(step)
    _dilation(step)
    step.dims = (n, ih, iw, ic, oh, ow, oc, kh, kw)
    step.macs = n * oh * ow * oc * kh * kw * wic
    _views(step, ctx)
    if dt == "int8":
        _quant_args(step)
        _requant_tables(step, ctx, oc)
        step.k = kernel("s8_conv", "conv_s8", variant)
        step.run = _run_conv_s8
    else:
        step.bias = _const(step, ctx, "bias", "float32", count=oc)[0]
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_conv", "conv_f32", variant)
        step.run = _run_conv_f32


def _run_conv_s8(s):
    n, ih, iw, ic, oh, ow, oc, kh, kw = s.dims
    s.k(s.x, s.w, s.bias, s.mult, s.shift, s.y, n, ih, iw, ic, oh, ow, oc, kh, kw, s.groups,
        s.stride_h, s.stride_w, s.dil_h, s.dil_w, s.pad_top, s.pad_left, s.in_zp, s.out_zp,
        s.act_min, s.act_max)


def _run_conv_f32(s):
    n, ih, iw, ic, oh, ow, oc, kh, kw = s.dims
    s.k(s.x, s.w, s.bias, s.y, n, ih, iw, ic, oh, ow, oc, kh, kw, s.groups, s.stride_h,
        s.stride_w, s.dil_h, s.dil_w, s.pad_top, s.pad_left, s.act)


def _prep_depthwise(step, ctx, variant):
    _arity(step, 1)
    dt = _io_dtype(step, ctx)
    (n, ih, iw, ic), (oh, ow, oc) = _nhwc_pair(step, ctx, dt)
    step.depth_mult = step.p("depth_mult", 1, MAX_DIM)
    step.w, (one, kh, kw, woc) = _const(step, ctx, "w", dt, rank=4)
    if one != 1 or woc != oc or ic * step.depth_mult != oc:
        step.fail("weights %s do not fit input channels %d x depth multiplier %d = %d"
                  % ((one, kh, kw, woc), ic, step.depth_mult, oc))
    _window(step)
    _dilation(step)
    step.dims = (n, ih, iw, ic, oh, ow, kh, kw)
    step.macs = n * oh * ow * oc * kh * kw
    _views(step, ctx)
    if dt == "int8":
        _quant_args(step)
        _requant_tables(step, ctx, oc)
        step.k = kernel("s8_depthwise_conv", "depthwise_conv_s8", variant)
        step.run = _run_depthwise_s8
    else:
        step.bias = _const(step, ctx, "bias", "float32", count=oc)[0]
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_depthwise_conv", "depthwise_conv_f32", variant)
        step.run = _run_depthwise_f32


def _run_depthwise_s8(s):
    n, ih, iw, ic, oh, ow, kh, kw = s.dims
    s.k(s.x, s.w, s.bias, s.mult, s.shift, s.y, n, ih, iw, ic, oh, ow, s.depth_mult, kh, kw,
        s.stride_h, s.stride_w, s.dil_h, s.dil_w, s.pad_top, s.pad_left, s.in_zp, s.out_zp,
        s.act_min, s.act_max)


def _run_depthwise_f32(s):
    n, ih, iw, ic, oh, ow, kh, kw = s.dims
    s.k(s.x, s.w, s.bias, s.y, n, ih, iw, ic, oh, ow, s.depth_mult, kh, kw, s.stride_h,
        s.stride_w, s.dil_h, s.dil_w, s.pad_top, s.pad_left, s.act)


def _prep_fully_connected(step, ctx, variant):
    _arity(step, 1)
    dt = _io_dtype(step, ctx)
    x = _tensor(step, ctx, step.ins[0], dt)
    y = _tensor(step, ctx, step.outs[0], dt)
    step.w, (out_f, in_f) = _const(step, ctx, "w", dt, rank=2)
    batches = numel(x) // in_f
    if numel(x) != batches * in_f or numel(y) != batches * out_f:
        step.fail("input %s and output %s do not fit weights %s" % (x, y, (out_f, in_f)))
    step.dims = (batches, in_f, out_f)
    step.macs = batches * in_f * out_f
    _views(step, ctx)
    if dt == "int8":
        _quant_args(step)
        _requant_tables(step, ctx, out_f)
        step.k = kernel("s8_fully_connected", "fully_connected_s8", variant)
        step.run = _run_fc_s8
    else:
        step.bias = _const(step, ctx, "bias", "float32", count=out_f)[0]
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_fully_connected", "fully_connected_f32", variant)
        step.run = _run_fc_f32


def _run_fc_s8(s):
    batches, in_f, out_f = s.dims
    s.k(s.x, s.w, s.bias, s.mult, s.shift, s.y, batches, in_f, out_f, s.in_zp, s.out_zp,
        s.act_min, s.act_max)


def _run_fc_f32(s):
    batches, in_f, out_f = s.dims
    s.k(s.x, s.w, s.bias, s.y, batches, in_f, out_f, s.act)


# -- elementwise binary ----------------------------------------------------------------------

def _binary_sizes(step, ctx, dt):
    _arity(step, 2)
    a = numel(_tensor(step, ctx, step.ins[0], dt))
    b = numel(_tensor(step, ctx, step.ins[1], dt))
    y = numel(_tensor(step, ctx, step.outs[0], dt))
    if a != y or y % b:
        step.fail("operand sizes %d and %d do not broadcast to the output size %d"
                  % (a, b, y))
    step.size = y
    step.b_size = b
    step.a = ctx.view(step.ins[0])
    step.b = ctx.view(step.ins[1])
    step.y = ctx.view(step.outs[0])


def _prep_add(step, ctx, variant):
    dt = _io_dtype(step, ctx)
    _binary_sizes(step, ctx, dt)
    if dt == "float32":
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_elementwise", "add_f32", variant)
        step.run = _run_binary_f32
        return
    step.q = (step.p("a_zp", -128, 127), step.p("a_mult", 0, _I32),
              step.p("a_shift", -_SHIFT, _SHIFT), step.p("b_zp", -128, 127),
              step.p("b_mult", 0, _I32), step.p("b_shift", -_SHIFT, _SHIFT),
              step.p("out_zp", -128, 127), step.p("out_mult", 0, _I32),
              step.p("out_shift", -_SHIFT, _SHIFT), step.p("left_shift", 0, _SHIFT))
    _act_range(step)
    step.k = kernel("s8_add", "add_s8", variant)
    step.run = _run_add_s8


def _run_add_s8(s):
    a_zp, a_mult, a_shift, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift, ls = s.q
    s.k(s.a, s.b, s.y, s.size, s.b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
        out_zp, out_mult, out_shift, ls, s.act_min, s.act_max)


def _run_binary_f32(s):
    s.k(s.a, s.b, s.y, s.size, s.b_size, s.act)


def _prep_mul(step, ctx, variant):
    dt = _io_dtype(step, ctx)
    _binary_sizes(step, ctx, dt)
    if dt == "float32":
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_elementwise", "mul_f32", variant)
        step.run = _run_binary_f32
        return
    step.q = (step.p("a_zp", -128, 127), step.p("b_zp", -128, 127),
              step.p("out_zp", -128, 127), step.p("mult", 0, _I32),
              step.p("shift", -_SHIFT, _SHIFT))
    _act_range(step)
    step.k = kernel("s8_mul", "mul_s8", variant)
    step.run = _run_mul_s8


def _run_mul_s8(s):
    a_zp, b_zp, out_zp, mult, shift = s.q
    s.k(s.a, s.b, s.y, s.size, s.b_size, a_zp, b_zp, out_zp, mult, shift, s.act_min,
        s.act_max)


# -- pooling and reductions ------------------------------------------------------------------

def _prep_pool(step, ctx, variant):
    _arity(step, 1)
    dt = _io_dtype(step, ctx)
    (n, ih, iw, c), (oh, ow, oc) = _nhwc_pair(step, ctx, dt)
    if oc != c:
        step.fail("input channels %d != output channels %d" % (c, oc))
    kh = step.p("kh", 1, MAX_DIM)
    kw = step.p("kw", 1, MAX_DIM)
    _window(step)
    step.dims = (n, ih, iw, c, oh, ow, kh, kw)
    _views(step, ctx)
    kind = "avg" if step.kind == "avg_pool2d" else "max"
    if dt == "int8":
        _act_range(step)
        step.k = kernel("s8_pool", kind + "_pool_s8", variant)
        step.run = _run_pool_s8
    else:
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_pool", kind + "_pool_f32", variant)
        step.run = _run_pool_f32


def _run_pool_s8(s):
    n, ih, iw, c, oh, ow, kh, kw = s.dims
    s.k(s.x, s.y, n, ih, iw, c, oh, ow, kh, kw, s.stride_h, s.stride_w, s.pad_top,
        s.pad_left, s.act_min, s.act_max)


def _run_pool_f32(s):
    n, ih, iw, c, oh, ow, kh, kw = s.dims
    s.k(s.x, s.y, n, ih, iw, c, oh, ow, kh, kw, s.stride_h, s.stride_w, s.pad_top,
        s.pad_left, s.act)


def _prep_mean(step, ctx, variant):
    _arity(step, 1)
    dt = _io_dtype(step, ctx)
    outer = step.p("outer", 1, MAX_DIM)
    reduce = step.p("reduce", 1, MAX_DIM)
    inner = step.p("inner", 1, MAX_DIM)
    if numel(_tensor(step, ctx, step.ins[0], dt)) != outer * reduce * inner or \
            numel(_tensor(step, ctx, step.outs[0], dt)) != outer * inner:
        step.fail("tensor sizes do not match outer %d x reduce %d x inner %d"
                  % (outer, reduce, inner))
    step.dims = (outer, reduce, inner)
    _views(step, ctx)
    if dt == "int8":
        step.q = (step.p("in_zp", -128, 127), step.p("out_zp", -128, 127),
                  step.p("mult", 0, _I32), step.p("shift", -_SHIFT, _SHIFT))
        step.k = kernel("s8_mean", "mean_s8", variant)
        step.run = _run_mean_s8
    else:
        step.k = kernel("f32_mean", "mean_f32", variant)
        step.run = _run_mean_f32


def _run_mean_s8(s):
    outer, reduce, inner = s.dims
    in_zp, out_zp, mult, shift = s.q
    s.k(s.x, s.y, outer, reduce, inner, in_zp, out_zp, mult, shift)


def _run_mean_f32(s):
    outer, reduce, inner = s.dims
    s.k(s.x, s.y, outer, reduce, inner)


# -- elementwise unary -----------------------------------------------------------------------

def _unary(step, ctx, in_dtype, out_dtype):
    _arity(step, 1)
    size = numel(_tensor(step, ctx, step.ins[0], in_dtype))
    if numel(_tensor(step, ctx, step.outs[0], out_dtype)) != size:
        step.fail("input and output sizes differ")
    step.size = size
    _views(step, ctx)


def _prep_softmax(step, ctx, variant):
    dt = _io_dtype(step, ctx)
    _unary(step, ctx, dt, dt)
    depth = ctx.tensors[step.ins[0]][0][-1]
    step.dims = (step.size // depth, depth)
    if dt == "int8":
        step.q = (step.p("in_mult", 0, _I32), step.p("in_left_shift", -_SHIFT, _SHIFT),
                  step.p("diff_min", -_I32, 0))
        step.k = kernel("s8_softmax", "softmax_s8", variant)
        step.run = _run_softmax_s8
    else:
        step.beta = check_number(step.params.get("beta"), "op %d beta" % step.index)
        step.k = kernel("f32_softmax", "softmax_f32", variant)
        step.run = _run_softmax_f32


def _run_softmax_s8(s):
    rows, depth = s.dims
    in_mult, in_left_shift, diff_min = s.q
    s.k(s.x, s.y, rows, depth, in_mult, in_left_shift, diff_min)


def _run_softmax_f32(s):
    rows, depth = s.dims
    s.k(s.x, s.y, rows, depth, s.beta)


def _prep_sigmoid_like(step, ctx, variant):
    dt = _io_dtype(step, ctx)
    _unary(step, ctx, dt, dt)
    if dt == "int8":
        step.q = (step.p("in_zp", -128, 127), step.p("in_mult", 0, _I32),
                  step.p("in_left_shift", -_SHIFT, _SHIFT), step.p("range_radius", 0, _I32))
        step.k = kernel("s8_" + step.kind, step.kind + "_s8", variant)
        step.run = _run_sigmoid_like_s8
    else:
        step.k = kernel("f32_elementwise", step.kind + "_f32", variant)
        step.run = _run_unary_f32


def _run_sigmoid_like_s8(s):
    in_zp, in_mult, in_left_shift, radius = s.q
    s.k(s.x, s.y, s.size, in_zp, in_mult, in_left_shift, radius)


def _run_unary_f32(s):
    s.k(s.x, s.y, s.size)


def _prep_quantize(step, ctx, variant):
    to_int8 = step.kind == "quantize"
    _unary(step, ctx, "float32" if to_int8 else "int8", "int8" if to_int8 else "float32")
    step.scale = check_number(step.params.get("scale"), "op %d scale" % step.index)
    step.zp = step.p("zp", -128, 127)
    if step.scale <= 0:
        step.fail("scale must be positive")
    step.k = kernel("s8_quantize", step.kind + "_s8", variant)
    step.run = _run_quantize


def _run_quantize(s):
    s.k(s.x, s.y, s.size, s.scale, s.zp)


def _prep_requantize(step, ctx, variant):
    _unary(step, ctx, "int8", "int8")
    step.q = (step.p("in_zp", -128, 127), step.p("out_zp", -128, 127),
              step.p("mult", 0, _I32), step.p("shift", -_SHIFT, _SHIFT))
    step.k = kernel("s8_quantize", "requantize_s8", variant)
    step.run = _run_requantize


def _run_requantize(s):
    in_zp, out_zp, mult, shift = s.q
    s.k(s.x, s.y, s.size, in_zp, out_zp, mult, shift)


def _prep_clamp(step, ctx, variant):
    dt = _io_dtype(step, ctx)
    _unary(step, ctx, dt, dt)
    if dt == "int8":
        _act_range(step)
        step.k = kernel("s8_clamp", "clamp_s8", variant)
        step.run = _run_clamp_s8
    else:
        step.act = step.p("act", 0, 3)
        step.k = kernel("f32_elementwise", "clamp_f32", variant)
        step.run = _run_clamp_f32


def _run_clamp_s8(s):
    s.k(s.x, s.y, s.size, s.act_min, s.act_max)


def _run_clamp_f32(s):
    s.k(s.x, s.y, s.size, s.act)


def _prep_copy(step, ctx, variant):
    dt = _io_dtype(step, ctx)
    _unary(step, ctx, dt, dt)
    step.k = _layout_kernel("copy", dt, variant)
    step.run = _run_copy


def _run_copy(s):
    s.k(s.x, s.y, s.size)


# -- layout -------------------------------------------------------------------------------

def _layout_kernel(name, dtype, variant):
    """burn.graph.layout: the generic function serves float32 and is int8's plain twin."""
    if dtype == "float32" or variant == "plain":
        return kernel("layout", name, None)
    return kernel("layout", name + "_s8", variant)


def _int_list(step, name, count):
    v = step.params.get(name)
    if type(v) is not list or len(v) != count:
        step.fail("parameter %s must be a list of %d integers" % (name, count))
    return [check_int(x, 0, MAX_DIM, "op %d %s" % (step.index, name)) for x in v]


def _prep_pad(step, ctx, variant):
    _arity(step, 1)
    dt = _io_dtype(step, ctx)
    shape = _tensor(step, ctx, step.ins[0], dt)
    if len(shape) > 4:
        step.fail("pad supports at most 4 dims, got %s" % (shape,))
    dims = (1,) * (4 - len(shape)) + tuple(shape)
    before = _int_list(step, "before", 4)
    after = _int_list(step, "after", 4)
    out = numel([dims[i] + before[i] + after[i] for i in range(4)])
    if numel(_tensor(step, ctx, step.outs[0], dt)) != out:
        step.fail("output size does not match the padded input")
    if dt == "int8":
        step.value = step.p("value", -128, 127)
    else:
        step.value = check_number(step.params.get("value", 0.0), "op %d value" % step.index)
    step.dims = tuple(dims) + tuple(before) + tuple(after)
    _views(step, ctx)
    step.k = _layout_kernel("pad", dt, variant)
    step.run = _run_pad


def _run_pad(s):
    d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3 = s.dims
    s.k(s.x, s.y, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, s.value)


def _prep_concat(step, ctx, variant):
    if not step.ins or len(step.outs) != 1:
        step.fail("expected at least one input and one output")
    dt = _io_dtype(step, ctx)
    step.outer = step.p("outer", 1, MAX_DIM)
    step.inner_sizes = _int_list(step, "inner_sizes", len(step.ins))
    total = 0
    for tid, inner in zip(step.ins, step.inner_sizes):
        if numel(_tensor(step, ctx, tid, dt)) != step.outer * inner:
            step.fail("input %d does not hold outer %d x inner %d" % (tid, step.outer, inner))
        total += inner
    if numel(_tensor(step, ctx, step.outs[0], dt)) != step.outer * total:
        step.fail("output size does not match the inputs")
    step.xs = [ctx.view(t) for t in step.ins]
    step.y = ctx.view(step.outs[0])
    step.k = _layout_kernel("concat", dt, variant)
    step.run = _run_concat


def _run_concat(s):
    s.k(s.xs, s.inner_sizes, s.y, s.outer)


PREPARE = {
    "conv2d": _prep_conv, "depthwise_conv2d": _prep_depthwise,
    "fully_connected": _prep_fully_connected, "add": _prep_add, "mul": _prep_mul,
    "avg_pool2d": _prep_pool, "max_pool2d": _prep_pool, "mean": _prep_mean,
    "softmax": _prep_softmax, "logistic": _prep_sigmoid_like, "tanh": _prep_sigmoid_like,
    "quantize": _prep_quantize, "dequantize": _prep_quantize,
    "requantize": _prep_requantize, "clamp": _prep_clamp, "copy": _prep_copy,
    "pad": _prep_pad, "concat": _prep_concat,
}


def prepare(step, ctx, variant=None):
    """Check and bind `step` (see the module docstring); `variant` picks the kernel twin."""
    fn = PREPARE.get(step.kind)
    if fn is None:
        step.fail("unknown op")
    fn(step, ctx, variant)
    step.params = None  # bound into attributes now; the heap is scarce on a board

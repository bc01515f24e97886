"""The ops of a `.bst` graph: check each op against its kernel's contract and bind it.

`prepare(step, ctx)` validates one op of a parsed `BstFile` (tensor dtypes and shapes,
constant shapes, parameter ranges) so that no kernel can index outside its buffers, then
sets `step.k` (the kernel) and `step.a` (its arguments, in the kernel's order, as listed in
`burn.graph`): running the op is `step.k(*step.a)`, which allocates nothing. The Python
twins get one more argument made here once, which the flex C kernels do without: the
multiplier offsets of the plain conv-like kernels, the lookup table of the viper softmax,
logistic and tanh. Errors are
ValueErrors that name the op index and kind.
"""

import gc
from array import array

from burn.bst import ITEMSIZE, MAX_DIM, check_int, check_number
from burn.shape import numel

# A firmware built for given models (`burn firmware build --ops-from`) freezes
# burn._firmware_ops, whose check(step, kernel) fails an op whose kernel it left out.
try:
    from burn._firmware_ops import check as _check_built
except ImportError:
    _check_built = None

_I32 = 2147483647
_SHIFT = 31
_ZP = (-128, 127)
# flex_c's limits (flex_c/src/common/internal.h and its kernels), checked here so that every
# runtime accepts the same files and refuses the others at load time.
_MAX_KERNEL = 4096  # kernel size and dilation
_MAX_STEP = 65536  # stride and padding
_MAX_SOFTMAX_DEPTH = 4095
_MAX_MEAN_REDUCE = 1 << 23
_MAX_ADD_LEFT_SHIFT = 22
_MAX_CONCAT = 32


class Step:
    """One op of the graph, bound to its kernel by `prepare`."""

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

    def p(self, name, lo=-_I32, hi=_I32):
        """Integer parameter `name`, checked to lie in [lo, hi]."""
        if name not in self.params:
            self.fail("missing parameter " + name)
        return check_int(self.params[name], lo, hi, "op %d (%s) %s" % (
            self.index, self.kind, name))

    def ps(self, spec):
        """A tuple of integer parameters; `spec` is a tuple of (name, lo, hi)."""
        return tuple([self.p(name, lo, hi) for name, lo, hi in spec])

    def num(self, name, default=None):
        """Float parameter `name` (finite)."""
        return check_number(self.params.get(name, default), "op %d (%s) %s" % (
            self.index, self.kind, name))


_FLEX = []  # [the burnflex module or None], looked up once


def flex_module():
    """The `burnflex` C module (flex_c compiled into the firmware, or installed as a native
    `.mpy`) when this interpreter has it, else None. A `.mpy` built for another architecture
    or `.mpy` version is skipped with a message that names both."""
    if not _FLEX:
        gc.collect()  # a native module's code needs one large free block
        try:
            import burnflex
        except ImportError:
            burnflex = None
        except ValueError as e:  # MicroPython refuses a .mpy of another arch or version
            from burn.mpy_abi import mismatch
            print("burn: burnflex not used:", mismatch("burnflex") or e)
            burnflex = None
        _FLEX.append(burnflex)
    return _FLEX[0]


def flex_plan(model):
    """The whole model as one burnflex plan, `(words, pointers)` for burnflex.run_plan,
    after running it once (burnflex.plan runs each step before recording it); None, with
    nothing run or the run incomplete, when the module has no plan runner, the model streams
    its layers from a file, or a step is not a flex kernel or a copy. Optional ops (svdf
    with its state among them) and float outputs have no plan step:
    burnflex.plan would run such a kernel twice, and an op whose output overlays its input
    would then read its own output, so they stop it first."""
    flex = flex_module()
    if flex is None or not hasattr(flex, "plan") or model._bst.file is not None:
        return None
    steps = []
    for s in model._steps:
        if s.kind == "copy":
            steps.append((None, (s.a[0], s.a[1], s.a[2] * ITEMSIZE[model.tensors[s.ins[0]][1]])))
        elif s.runtime == "flex" and model.tensors[s.outs[0]][1] == "int8" and \
                s.kind in PREPARE:
            steps.append((s.k, s.a))
        else:
            return None
    for (tid, _shape), view, out in zip(model._bst.outputs, model._out_views, model._outputs):
        steps.append((None, (view, out, len(view) * ITEMSIZE[model.tensors[tid][1]])))
    try:
        return flex.plan(steps)
    except ValueError:  # a float32 kernel: it has no plan step
        return None


def kernel(module, name, variant=None):
    """The function `name` of burn.graph.<module> and its runtime, as a pair. Variant None
    takes the fastest: the flex C module, then viper, then plain; "flex" is the same but
    requires the flex module; "fast" (viper) and "plain" take that twin."""
    if variant is None or variant == "flex":
        flex = flex_module()
        if flex is None and variant == "flex":
            raise ValueError("the flex module (burnflex) is not available on this interpreter")
        fn = getattr(flex, name, None) if flex is not None else None
        if fn is not None:
            return fn, "flex"
        variant = None
    mod = __import__("burn.graph." + module, None, None, [name])
    if variant is None:
        fast = getattr(mod, name + "_fast", None)
        return getattr(mod, name), "viper" if fast is not None else "plain"
    fn = getattr(mod, name + "_" + variant, None)
    if fn is None and not hasattr(mod, name + "_fast"):  # no twins: it serves every variant
        return getattr(mod, name), "plain"
    if fn is None:
        raise ValueError("no %s variant of kernel %s on this interpreter" % (variant, name))
    return fn, "viper" if variant == "fast" else "plain"


def _bind(step, module, name, variant):
    """Bind `step` to kernel `name` of burn.graph.<module> (see `kernel`). A firmware that
    leaves a kernel's module out leaves out the module of its prepare step too, which fails
    the op first (`prepare`)."""
    if _check_built:
        _check_built(step, name)
    step.k, step.runtime = kernel(module, name, variant)


def _layout_kernel(step, name, dtype, variant):
    if _check_built:
        _check_built(step, name + "_s8" if dtype == "int8" else name)
    # burn.graph.layout: the generic function serves float32 and is int8's plain twin.
    if dtype == "int8" and variant != "plain":
        _bind(step, "layout", name + "_s8", variant)
    elif variant is None or variant == "flex":
        _bind(step, "layout", name, variant)
    else:
        step.k = getattr(__import__("burn.graph.layout", None, None, [name]), name)
        step.runtime = "plain"


# -- shared checks --------------------------------------------------------------------------

_ACT = (("act", 0, 3),)
_CLAMP = (("act_min", -128, 127), ("act_max", -128, 127))
_WINDOW = (("stride_h", 1, _MAX_STEP), ("stride_w", 1, _MAX_STEP), ("dil_h", 1, _MAX_KERNEL),
           ("dil_w", 1, _MAX_KERNEL), ("pad_top", 0, _MAX_STEP), ("pad_left", 0, _MAX_STEP))
_POOL_WINDOW = (("kh", 1, _MAX_KERNEL), ("kw", 1, _MAX_KERNEL)) + _WINDOW[:2] + _WINDOW[4:]
_CONV_Q = (("in_zp",) + _ZP, ("out_zp",) + _ZP) + _CLAMP


def _shape(step, ctx, tid, dtype, rank=None):
    shape, dt = ctx.tensors[tid][:2]
    if dt != dtype:
        step.fail("tensor %d is %s, expected %s" % (tid, dt, dtype))
    if rank is not None and len(shape) != rank:
        step.fail("tensor %d has shape %s, expected %d dims" % (tid, shape, rank))
    return shape


def _arity(step, n_in, n_out=1):
    if len(step.ins) != n_in or len(step.outs) != n_out:
        step.fail("expected %d inputs and %d outputs" % (n_in, n_out))


def _dtype(step, ctx):
    return ctx.tensors[step.ins[0]][1]


def _clamp(step):
    lo, hi = step.ps(_CLAMP)
    if lo > hi:
        step.fail("act_min %d > act_max %d" % (lo, hi))
    return lo, hi


def _const(step, ctx, name, dtype, rank=None, count=None):
    if name not in step.consts:
        step.fail("missing constant " + name)
    buf, dt, shape = ctx.const(step, name)
    if dt != dtype or (rank is not None and len(shape) != rank) or \
            (count is not None and numel(shape) != count):
        step.fail("constant %s is %s %s, expected %s with %s dims / %s values"
                  % (name, dt, shape, dtype, rank, count))
    return buf, shape


def _weights_tail(step, ctx, dt, oc):
    """(bias, mult, shift) for int8 or (bias,) for float32, each with `oc` values."""
    if dt == "float32":
        return (_const(step, ctx, "bias", "float32", count=oc)[0],)
    tables = tuple([_const(step, ctx, n, "int32", count=oc)[0]
                    for n in ("bias", "mult", "shift")])
    for c in range(oc):
        if not 0 <= tables[1][c] <= _I32 or not -_SHIFT <= tables[2][c] <= _SHIFT:
            step.fail("requantization multiplier/shift out of range at channel %d" % c)
    return tables


def _plain_mult_off(step, dt, *mult):
    """The trailing argument of the plain int8 kernels: their multipliers as offsets from
    2**30, made once here: of the per-channel table step.a[3] (conv-like kernels), else of
    the per-tensor multipliers `mult` (see burn.graph.fixedpoint)."""
    if dt == "int8" and step.runtime == "plain":
        from burn.graph import fixedpoint

        step.a += (fixedpoint.mult_offsets(*mult) if mult else
                   fixedpoint.multiplier_offsets(step.a[3]),)


def _table(step, module, maker, params):
    """The trailing argument of the viper softmax/logistic/tanh twins: their lookup table,
    made once here from the op's parameters."""
    if step.runtime == "viper":
        mod = __import__("burn.graph." + module, None, None, [maker])
        step.a += (getattr(mod, maker)(*params),)


def _quant_tail(step, dt):
    """The trailing arguments of conv-like kernels: zero points and clamp, or act."""
    if dt == "float32":
        return step.ps(_ACT)
    q = step.ps(_CONV_Q)
    _clamp(step)
    return q


def _axis(step, names, size_in, size_out, k, stride, dil, pad):
    """One axis of a sliding window: the kernel (k taps, dilation dil) slides with `stride`
    over the input padded by `pad` before; the trailing padding is what `size_out` windows
    need. Every window must overlap the input on both ends, and `size_out` must be every
    window that fits (flex_c's rule). `names`: (kernel, stride, dilation, pad) fields."""
    if k > _MAX_KERNEL:
        step.fail("%s %d: more than %d taps" % (names[0], k, _MAX_KERNEL))
    span = dil * (k - 1) + 1
    after = (size_out - 1) * stride + span - size_in - pad
    if pad >= span or after >= span or after > _MAX_STEP or after <= -stride:
        step.fail("window %s %d, %s %d, %s %d, %s %d does not map %d input to %d output "
                  "positions" % (names[0], k, names[1], stride, names[2], dil, names[3], pad,
                                 size_in, size_out))


def _window(step, ih, iw, oh, ow, kh, kw, window):
    """Check a conv-like or pool window: `window` is (stride_h, stride_w, dil_h, dil_w,
    pad_top, pad_left) as in step.ps(_WINDOW); pools pass dilation 1."""
    sh, sw, dh, dw, pt, pl = window
    _axis(step, ("kh", "stride_h", "dil_h", "pad_top"), ih, oh, kh, sh, dh, pt)
    _axis(step, ("kw", "stride_w", "dil_w", "pad_left"), iw, ow, kw, sw, dw, pl)
    return window


def _nhwc(step, ctx, dt):
    """(n, ih, iw, ic), (oh, ow, oc) of a 4-D input and output with the same batch."""
    n, ih, iw, ic = _shape(step, ctx, step.ins[0], dt, 4)
    n2, oh, ow, oc = _shape(step, ctx, step.outs[0], dt, 4)
    if n2 != n:
        step.fail("input batch %d != output batch %d" % (n, n2))
    return (n, ih, iw, ic), (oh, ow, oc)


def _xy(step, ctx):
    return ctx.view(step.ins[0]), ctx.view(step.outs[0])


def _kernel(step, dt, stem, variant):
    """Bind the s8 or f32 kernel `<stem>_s8` / `<stem>_f32` of module s8_<mod> / f32_<mod>."""
    module, fn = stem
    _bind(step, ("s8_" if dt == "int8" else "f32_") + module,
          fn + ("_s8" if dt == "int8" else "_f32"), variant)


# -- ops --------------------------------------------------------------------------------------

def _conv(step, ctx, variant):
    """conv2d, and depthwise_conv2d: a conv with ic groups of depth_mult output channels,
    its weights [1, kh, kw, oc]."""
    _arity(step, 1)
    dt = _dtype(step, ctx)
    (n, ih, iw, ic), (oh, ow, oc) = _nhwc(step, ctx, dt)
    depthwise = step.kind == "depthwise_conv2d"
    if depthwise:
        mult = step.p("depth_mult", 1, MAX_DIM)
    else:
        groups = step.p("groups", 1, ic)
    w, (woc, kh, kw, wic) = _const(step, ctx, "w", dt, rank=4)
    if depthwise:
        if woc != 1 or wic != oc or ic * mult != oc:
            step.fail("weights %s do not fit %d input channels x depth multiplier %d"
                      % ((woc, kh, kw, wic), ic, mult))
        step.macs = n * oh * ow * oc * kh * kw
        stem, dims = "depthwise_conv", (mult, kh, kw)
    else:
        if woc != oc or wic * groups != ic or oc % groups:
            step.fail("weights %s do not fit %d input / %d output channels in %d groups"
                      % ((woc, kh, kw, wic), ic, oc, groups))
        step.macs = n * oh * ow * oc * kh * kw * wic
        stem, dims = "conv", (oc, kh, kw, groups)
    x, y = _xy(step, ctx)
    _kernel(step, dt, (stem, stem), variant)
    window = _window(step, ih, iw, oh, ow, kh, kw, step.ps(_WINDOW))
    step.a = (x, w) + _weights_tail(step, ctx, dt, oc) + (y, n, ih, iw, ic, oh, ow) + dims + \
        window + _quant_tail(step, dt)
    _plain_mult_off(step, dt)


def _fully_connected(step, ctx, variant):
    _arity(step, 1)
    dt = _dtype(step, ctx)
    xs = _shape(step, ctx, step.ins[0], dt)
    ys = _shape(step, ctx, step.outs[0], dt)
    w, (out_f, in_f) = _const(step, ctx, "w", dt, rank=2)
    batches = numel(xs) // in_f
    if numel(xs) != batches * in_f or numel(ys) != batches * out_f:
        step.fail("input %s and output %s do not fit weights %s" % (xs, ys, (out_f, in_f)))
    step.macs = batches * in_f * out_f
    x, y = _xy(step, ctx)
    _kernel(step, dt, ("fully_connected", "fully_connected"), variant)
    step.a = (x, w) + _weights_tail(step, ctx, dt, out_f) + (y, batches, in_f, out_f) + \
        _quant_tail(step, dt)
    _plain_mult_off(step, dt)


# add's multipliers are below one (TFLite's rule): a left shift could overflow int32 after
# the input's own left_shift, where the runtimes would disagree
_ADD_Q = (("a_zp",) + _ZP, ("a_mult", 0, _I32), ("a_shift", -_SHIFT, 0),
          ("b_zp",) + _ZP, ("b_mult", 0, _I32), ("b_shift", -_SHIFT, 0),
          ("out_zp",) + _ZP, ("out_mult", 0, _I32), ("out_shift", -_SHIFT, 0),
          ("left_shift", 0, _MAX_ADD_LEFT_SHIFT))
# mul's product of two input offsets (< 2**16) must stay within int32 after its left shift,
# or the C kernels (which wrap) and the Python ones (which do not) would disagree
_MUL_Q = (("a_zp",) + _ZP, ("b_zp",) + _ZP, ("out_zp",) + _ZP, ("mult", 0, _I32),
          ("shift", -_SHIFT, 15))


def binary_head(step, ctx):
    """(dtype, (a, b, out, size, b_size)) of a two-input elementwise op whose second input
    repeats along the first's innermost dims."""
    _arity(step, 2)
    dt = _dtype(step, ctx)
    a = numel(_shape(step, ctx, step.ins[0], dt))
    b = numel(_shape(step, ctx, step.ins[1], dt))
    size = numel(_shape(step, ctx, step.outs[0], dt))
    if a != size or size % b:
        step.fail("operand sizes %d and %d do not broadcast to the output size %d"
                  % (a, b, size))
    return dt, (ctx.view(step.ins[0]), ctx.view(step.ins[1]), ctx.view(step.outs[0]), size, b)


def _binary(step, ctx, variant):
    dt, head = binary_head(step, ctx)
    _kernel(step, dt, ("elementwise" if dt == "float32" else step.kind, step.kind),
                     variant)
    if dt == "float32":
        step.a = head + step.ps(_ACT)
    else:
        step.a = head + step.ps(_ADD_Q if step.kind == "add" else _MUL_Q) + _clamp(step)
        _plain_mult_off(step, dt, *([step.a[6], step.a[9], step.a[12]] if step.kind == "add"
                                    else [step.a[8]]))


def _pool(step, ctx, variant):
    _arity(step, 1)
    dt = _dtype(step, ctx)
    (n, ih, iw, c), (oh, ow, oc) = _nhwc(step, ctx, dt)
    if oc != c:
        step.fail("input channels %d != output channels %d" % (c, oc))
    x, y = _xy(step, ctx)
    _kernel(step, dt, ("pool", step.kind[:3] + "_pool"), variant)
    window = step.ps(_POOL_WINDOW)
    kh, kw, sh, sw, pt, pl = window
    _window(step, ih, iw, oh, ow, kh, kw, (sh, sw, 1, 1, pt, pl))
    step.a = (x, y, n, ih, iw, c, oh, ow) + window + \
        (step.ps(_ACT) if dt == "float32" else _clamp(step))


def _mean(step, ctx, variant):
    _arity(step, 1)
    dt = _dtype(step, ctx)
    dims = step.ps((("outer", 1, MAX_DIM), ("reduce", 1, _MAX_MEAN_REDUCE),
                    ("inner", 1, MAX_DIM)))
    outer, reduce, inner = dims
    if numel(_shape(step, ctx, step.ins[0], dt)) != outer * reduce * inner or \
            numel(_shape(step, ctx, step.outs[0], dt)) != outer * inner:
        step.fail("tensor sizes do not match outer %d x reduce %d x inner %d" % dims)
    _kernel(step, dt, ("mean", "mean"), variant)
    step.a = _xy(step, ctx) + dims
    if dt == "int8":
        step.a += step.ps((("in_zp",) + _ZP, ("out_zp",) + _ZP, ("mult", 0, _I32),
                           ("shift", -_SHIFT, _SHIFT)))
        _plain_mult_off(step, dt, step.a[7])


def _unary(step, ctx, in_dtype, out_dtype):
    """(x, y, size) of a one-input op that keeps the element count."""
    _arity(step, 1)
    size = numel(_shape(step, ctx, step.ins[0], in_dtype))
    if numel(_shape(step, ctx, step.outs[0], out_dtype)) != size:
        step.fail("input and output sizes differ")
    return _xy(step, ctx) + (size,)


# the int8 softmax's parameters (quant_params.softmax_params), whatever its output type
_SOFTMAX_Q = (("in_mult", 0, _I32), ("in_left_shift", 0, _SHIFT), ("diff_min", -_I32, 0))


def _softmax(step, ctx, variant):
    dt = _dtype(step, ctx)
    x, y, size = _unary(step, ctx, dt, dt)
    depth = ctx.tensors[step.ins[0]][0][-1]
    if depth > _MAX_SOFTMAX_DEPTH:
        step.fail("depth %d: more than %d classes" % (depth, _MAX_SOFTMAX_DEPTH))
    _kernel(step, dt, ("softmax", "softmax"), variant)
    step.a = (x, y, size // depth, depth)
    if dt == "float32":
        beta = step.num("beta")
        if not beta > 0:  # exp(beta * (x - max)) stays at most 1
            step.fail("beta must be positive, got %r" % beta)
        step.a += (beta,)
    else:
        q = step.ps(_SOFTMAX_Q)
        step.a += q
        _table(step, "s8_softmax", "softmax_table", q)


def _sigmoid_like(step, ctx, variant):
    dt = _dtype(step, ctx)
    step.a = _unary(step, ctx, dt, dt)
    if dt == "float32":
        _bind(step, "f32_elementwise", step.kind + "_f32", variant)
    else:
        _bind(step, "s8_" + step.kind, step.kind + "_s8", variant)
        q = step.ps((("in_zp",) + _ZP, ("in_mult", 0, _I32),
                     ("in_left_shift", -_SHIFT, _SHIFT), ("range_radius", 0, _I32)))
        if q[2] > 0 and (min(q[3], 256) - 1) << q[2] > _I32:  # inputs within the radius
            step.fail("in_left_shift %d overflows int32 for inputs within range_radius %d"
                      % (q[2], q[3]))
        step.a += q
        _table(step, "s8_" + step.kind, step.kind + "_table", q)


def _quantize(step, ctx, variant):
    to_int8 = step.kind == "quantize"
    scale = step.num("scale")
    if not scale > 0:
        step.fail("scale must be positive")
    step.a = _unary(step, ctx, "float32" if to_int8 else "int8",
                    "int8" if to_int8 else "float32") + (scale, step.p("zp", -128, 127))
    _bind(step, "s8_quantize", step.kind + "_s8", variant)


def _requantize(step, ctx, variant):
    step.a = _unary(step, ctx, "int8", "int8") + step.ps(
        (("in_zp",) + _ZP, ("out_zp",) + _ZP, ("mult", 0, _I32), ("shift", -_SHIFT, _SHIFT)))
    _bind(step, "s8_quantize", "requantize_s8", variant)
    _plain_mult_off(step, "int8", step.a[5])


def _clamp_op(step, ctx, variant):
    dt = _dtype(step, ctx)
    step.a = _unary(step, ctx, dt, dt)
    if dt == "float32":
        step.a += step.ps(_ACT)
        _bind(step, "f32_elementwise", "clamp_f32", variant)
    else:
        step.a += _clamp(step)
        _bind(step, "s8_quantize", "clamp_s8", variant)


def _copy(step, ctx, variant):
    dt = _dtype(step, ctx)
    step.a = _unary(step, ctx, dt, dt)
    _layout_kernel(step, "copy", dt, variant)


def _int_list(step, name, count, lo, hi):
    v = step.params.get(name)
    if type(v) is not list or len(v) != count:
        step.fail("parameter %s must be a list of %d integers" % (name, count))
    return tuple([check_int(x, lo, hi, "op %d (%s) %s" % (step.index, step.kind, name))
                  for x in v])


# pad values of integer tensors
_INT_RANGE = {"int8": (-128, 127), "int16": (-32768, 32767), "int32": (-_I32 - 1, _I32)}


def _pad(step, ctx, variant):
    _arity(step, 1)
    dt = _dtype(step, ctx)
    shape = _shape(step, ctx, step.ins[0], dt)
    if len(shape) > 4:
        step.fail("pad supports at most 4 dims, got %s" % (shape,))
    dims = (1,) * (4 - len(shape)) + tuple(shape)
    before = _int_list(step, "before", 4, 0, _MAX_STEP)
    after = _int_list(step, "after", 4, 0, _MAX_STEP)
    if numel(_shape(step, ctx, step.outs[0], dt)) != numel(
            [dims[i] + before[i] + after[i] for i in range(4)]):
        step.fail("output size does not match the padded input")
    value = step.p("value", *_INT_RANGE[dt]) if dt in _INT_RANGE else step.num("value", 0.0)
    step.a = _xy(step, ctx) + dims + before + after + (value,)
    _layout_kernel(step, "pad", dt, variant)


def _concat(step, ctx, variant):
    if not step.ins or len(step.ins) > _MAX_CONCAT or len(step.outs) != 1:
        step.fail("expected 1 to %d inputs and one output" % _MAX_CONCAT)
    dt = _dtype(step, ctx)
    outer = step.p("outer", 1, MAX_DIM)
    inner = _int_list(step, "inner_sizes", len(step.ins), 1, MAX_DIM)
    for tid, n in zip(step.ins, inner):
        if numel(_shape(step, ctx, tid, dt)) != outer * n:
            step.fail("input %d does not hold outer %d x inner %d" % (tid, outer, n))
    if numel(_shape(step, ctx, step.outs[0], dt)) != outer * sum(inner):
        step.fail("output size does not match the inputs")
    # the flex module reads the sizes as an int32 buffer
    step.a = ([ctx.view(t) for t in step.ins], array("i", inner), ctx.view(step.outs[0]),
              outer)
    _layout_kernel(step, "concat", dt, variant)


# the kinds whose kernels move elements of any size, and those whose int32 tensors are
# indices
_ANY_ELEMENT = ("copy", "concat", "pad", "strided")
_INDICES = ("arg", "gather")

PREPARE = {
    "conv2d": _conv, "depthwise_conv2d": _conv, "fully_connected": _fully_connected,
    "add": _binary, "mul": _binary, "avg_pool2d": _pool, "max_pool2d": _pool,
    "mean": _mean, "softmax": _softmax, "logistic": _sigmoid_like, "tanh": _sigmoid_like,
    "quantize": _quantize, "dequantize": _quantize, "requantize": _requantize,
    "clamp": _clamp_op, "copy": _copy, "pad": _pad, "concat": _concat,
}


def prepare(step, ctx, variant=None):
    """Check and bind `step` (see the module docstring); `variant` picks the kernel twin.
    A kind that PREPARE lacks is an optional op's (burn.graph.ops.OPTIONAL): the
    burn.graph module of that name prepares it, when the firmware has it; so does
    burn.graph.s16_prepare every op with an int16 or int32 input or output (its first ones)
    but the layout ones that any element type serves (copy, concat, pad, strided) and those
    whose int32 tensors are indices (arg, gather)."""
    fn = PREPARE.get(step.kind)
    module = step.kind if fn is None else None
    ends = [ctx.tensors[t][1] for t in step.ins[:1] + step.outs[:1]]
    plain = step.kind in _ANY_ELEMENT or step.kind in _INDICES
    if not plain and ("int16" in ends or "int32" in ends):
        module = "s16_prepare"  # the int16 and int32 kernels, left out of a default firmware
    elif not plain and "int32" in [ctx.tensors[t][1] for t in step.ins + step.outs]:
        step.fail("an int32 tensor where this op takes none")
    if module is not None:
        try:
            fn = __import__("burn.graph." + module, None, None, ["prepare"]).prepare
        except (ImportError, AttributeError, ValueError):
            step.fail("unknown op, or not in this firmware (burn firmware build --ops-from)")
    fn(step, ctx, variant)
    step.params = None  # bound into step.a now; the heap is scarce on a board

"""Random one-op int8 cases, each run in the tflite-micro interpreter for the expected result
and through a kernel set with burn.graph's signatures (burn.graph's own plain kernels in
tests/oracle, the flex_c ones of `burn.host.flex.graph_kernels` in tests/flex_c).

`make_cases(seed, count)` yields `Case`s; `case.run(k)` runs the op with kernel set `k` and
returns the output as a flat numpy array, `case.want` is TFLM's flat output.
"""

import numpy as np
from tflite_builder import ModelBuilder, run_tflm

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp
from burn.graph.geometry import out_size, pad_before

ACTS = (fp.ACT_NONE, fp.ACT_RELU, fp.ACT_RELU6)


class Case:
    """One op: `name`, TFLM's output `want`, and `run(k)` giving ours."""

    def __init__(self, name, want, run):
        self.name = name
        self.want = np.asarray(want).reshape(-1)
        self.run = run


def f32(v):
    """A float rounded to float32, as a .tflite file stores it."""
    return float(np.float32(v))


def s8(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def _int(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _tflm(build, inputs):
    mb = ModelBuilder()
    ins, outs = build(mb)
    return run_tflm(mb.finish(ins, outs), inputs)[0]


def geometry(rng, k_max=3, dilate=True):
    """(ih, iw, kh, kw, sh, sw, dh, dw, same, oh, ow, pt, pl) with a valid window."""
    while True:
        ih, iw, kh, kw = _int(rng, 1, 7), _int(rng, 1, 7), _int(rng, 1, k_max), _int(rng, 1, k_max)
        sh, sw = _int(rng, 1, 2), _int(rng, 1, 2)
        dh, dw = (_int(rng, 1, 2), _int(rng, 1, 2)) if dilate else (1, 1)
        same = bool(rng.integers(0, 2))
        if (kh - 1) * dh + 1 <= ih and (kw - 1) * dw + 1 <= iw:
            break
    oh, ow = out_size(ih, kh, sh, dh, same), out_size(iw, kw, sw, dw, same)
    return (ih, iw, kh, kw, sh, sw, dh, dw, same, oh, ow, pad_before(ih, kh, sh, dh, oh),
            pad_before(iw, kw, sw, dw, ow))


def conv_case(rng, depthwise=False, shape=None):
    """CONV_2D with groups, or DEPTHWISE_CONV_2D with a depth multiplier; random shapes, or
    `shape` = (size, channels in, kernel, stride, depth multiplier or channels out): a
    square SAME window over one image, one group, no dilation."""
    if shape is None:
        ih, iw, kh, kw, sh, sw, dh, dw, same, oh, ow, pt, pl = geometry(rng)
        n = _int(rng, 1, 2)
        ic = _int(rng, 1, 4) if depthwise else None
        dm = _int(rng, 1, 2) if depthwise else 1
    else:
        size, ic, kh, sh, dm_or_oc = shape
        iw, kw, sw, dh, dw, same, n, ih = size, kh, sh, 1, 1, True, 1, size
        oh = ow = out_size(size, kh, sh, 1, True)
        pt = pl = pad_before(size, kh, sh, 1, oh)
        dm = dm_or_oc if depthwise else 1
    if depthwise:
        groups = 1
        oc, wshape, k = ic * dm, (1, kh, kw, ic * dm), kh * kw
    else:
        groups = 1 if shape else int(rng.choice([1, 1, 2, 3]))
        if shape is None:
            ic, oc = groups * _int(rng, 1, 3), groups * _int(rng, 1, 3)
        else:
            oc = dm_or_oc
        wshape, k = (oc, kh, kw, ic // groups), kh * kw * ic // groups
    in_scale, in_zp = f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(30, 120) * np.sqrt(k))
    out_zp, act = _int(rng, -128, 127), int(rng.choice(ACTS))
    x = s8(rng, (n, ih, iw, ic))
    w = rng.integers(-127, 128, size=wshape, dtype=np.int8)
    bias = rng.integers(-3000, 3000, size=oc, dtype=np.int32)

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
        tw = mb.tensor("w", wshape, "int8", data=w, scale=w_scales, zero_point=[0] * oc,
                       quantized_dimension=3 if depthwise else 0)
        tb = mb.tensor("b", (oc,), "int32", data=bias, scale=[in_scale * s for s in w_scales],
                       zero_point=[0] * oc)
        ty = mb.tensor("y", (n, oh, ow, oc), "int8", scale=out_scale, zero_point=out_zp)
        common = dict(Padding=0 if same else 1, StrideH=sh, StrideW=sw, DilationHFactor=dh,
                      DilationWFactor=dw, FusedActivationFunction=act)
        if depthwise:
            mb.op("DEPTHWISE_CONV_2D", [tx, tw, tb], [ty], "DepthwiseConv2DOptions",
                  DepthMultiplier=dm, **common)
        else:
            mb.op("CONV_2D", [tx, tw, tb], [ty], "Conv2DOptions", **common)
        return [tx], [ty]

    mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
    lo, hi = qp.quant_activation_range(act, out_scale, out_zp)

    def run(k):
        out = np.zeros(n * oh * ow * oc, np.int8)
        if depthwise:
            k.depthwise_conv_s8(x, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, dm, kh, kw,
                                sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi)
        else:
            k.conv_s8(x, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
                      sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi)
        return out

    name = "depthwise" if depthwise else "conv"
    return Case("%s %s k%dx%d s%d%d d%d%d g%d" % (name, x.shape, kh, kw, sh, sw, dh, dw, groups),
                _tflm(build, [x]), run)


def fc_case(rng):
    """FULLY_CONNECTED, per-tensor or per-channel weights."""
    batches, fin, fout = _int(rng, 1, 3), _int(rng, 1, 40), _int(rng, 1, 12)
    per_channel = bool(rng.integers(0, 2))
    in_scale, in_zp = f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(fout if per_channel else 1)]
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(10, 60) * np.sqrt(fin))
    out_zp, act = _int(rng, -128, 127), int(rng.choice(ACTS))
    x = s8(rng, (batches, fin))
    w = rng.integers(-127, 128, size=(fout, fin), dtype=np.int8)
    bias = rng.integers(-3000, 3000, size=fout, dtype=np.int32)

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
        tw = mb.tensor("w", w.shape, "int8", data=w, scale=w_scales,
                       zero_point=[0] * len(w_scales))
        tb = mb.tensor("b", (fout,), "int32", data=bias,
                       scale=[in_scale * s for s in w_scales], zero_point=[0] * len(w_scales))
        ty = mb.tensor("y", (batches, fout), "int8", scale=out_scale, zero_point=out_zp)
        mb.op("FULLY_CONNECTED", [tx, tw, tb], [ty], "FullyConnectedOptions",
              FusedActivationFunction=act)
        return [tx], [ty]

    scales = w_scales if per_channel else w_scales * fout
    mult, shift = qp.conv_output_multipliers(in_scale, scales, out_scale)
    lo, hi = qp.quant_activation_range(act, out_scale, out_zp)

    def run(k):
        out = np.zeros(batches * fout, np.int8)
        k.fully_connected_s8(x, w, bias, mult, shift, out, batches, fin, fout, in_zp, out_zp,
                             lo, hi)
        return out

    return Case("fully_connected %s -> %d" % (x.shape, fout), _tflm(build, [x]), run)


def binary_case(rng, opname):
    """ADD or MUL, with b broadcast along the innermost axes."""
    shape = tuple(_int(rng, 1, 4) for _ in range(_int(rng, 1, 4)))
    choice = _int(rng, 0, 2)
    bshape = shape if choice == 0 else ((1,) * (len(shape) - 1) + shape[-1:] if choice == 1
                                        else (1,))
    scales = [f32(rng.uniform(0.005, 0.2)) for _ in range(2)]
    product = scales[0] * scales[1] * 128 if opname == "MUL" else max(scales)
    scales.append(f32(product * rng.uniform(1.0, 3.0)))
    zps = [int(z) for z in rng.integers(-128, 128, size=3)]
    act = int(rng.choice(ACTS))
    a, b = s8(rng, shape), s8(rng, bshape)

    def build(mb):
        ta = mb.tensor("a", shape, "int8", scale=scales[0], zero_point=zps[0])
        tb = mb.tensor("b", bshape, "int8", scale=scales[1], zero_point=zps[1])
        ty = mb.tensor("y", shape, "int8", scale=scales[2], zero_point=zps[2])
        mb.op(opname, [ta, tb], [ty], "AddOptions" if opname == "ADD" else "MulOptions",
              FusedActivationFunction=act)
        return [ta, tb], [ty]

    lo, hi = qp.quant_activation_range(act, scales[2], zps[2])

    def run(k):
        out = np.zeros(a.size, np.int8)
        if opname == "ADD":
            ls, am, ash, bm, bsh, om, osh = qp.add_params(*scales)
            k.add_s8(a, b, out, a.size, b.size, zps[0], am, ash, zps[1], bm, bsh, zps[2], om,
                     osh, ls, lo, hi)
        else:
            m, s = qp.mul_params(*scales)
            k.mul_s8(a, b, out, a.size, b.size, zps[0], zps[1], zps[2], m, s, lo, hi)
        return out

    return Case("%s %s %s" % (opname.lower(), shape, bshape), _tflm(build, [a, b]), run)


def pool_case(rng, opname):
    """AVERAGE_POOL_2D or MAX_POOL_2D."""
    ih, iw, kh, kw, sh, sw, _dh, _dw, same, oh, ow, pt, pl = geometry(rng, dilate=False)
    n, c = _int(rng, 1, 2), _int(rng, 1, 4)
    scale, zp, act = f32(rng.uniform(0.01, 0.1)), _int(rng, -128, 127), int(rng.choice(ACTS))
    x = s8(rng, (n, ih, iw, c))

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", (n, oh, ow, c), "int8", scale=scale, zero_point=zp)
        mb.op(opname, [tx], [ty], "Pool2DOptions", Padding=0 if same else 1, StrideH=sh,
              StrideW=sw, FilterHeight=kh, FilterWidth=kw, FusedActivationFunction=act)
        return [tx], [ty]

    lo, hi = qp.quant_activation_range(act, scale, zp)

    def run(k):
        out = np.zeros(n * oh * ow * c, np.int8)
        fn = k.avg_pool_s8 if opname == "AVERAGE_POOL_2D" else k.max_pool_s8
        fn(x, out, n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl, lo, hi)
        return out

    return Case("%s %s k%dx%d s%d%d" % (opname.lower(), x.shape, kh, kw, sh, sw),
                _tflm(build, [x]), run)


def mean_case(rng):
    """MEAN over a contiguous block of axes."""
    shape = tuple(_int(rng, 1, 5) for _ in range(4))
    first = _int(rng, 0, 3)
    axes = list(range(first, _int(rng, first, 3) + 1))
    outer = int(np.prod(shape[:axes[0]]))
    reduce = int(np.prod([shape[a] for a in axes]))
    inner = int(np.prod(shape[axes[-1] + 1:]))
    oshape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    in_scale, out_scale = f32(rng.uniform(0.01, 0.1)), f32(rng.uniform(0.01, 0.1))
    in_zp, out_zp = (int(z) for z in rng.integers(-128, 128, size=2))
    x = s8(rng, shape)

    def build(mb):
        tx = mb.tensor("x", shape, "int8", scale=in_scale, zero_point=in_zp)
        ta = mb.tensor("axis", (len(axes),), "int32", data=np.array(axes, dtype=np.int32))
        ty = mb.tensor("y", oshape, "int8", scale=out_scale, zero_point=out_zp)
        mb.op("MEAN", [tx, ta], [ty], "ReducerOptions", KeepDims=True)
        return [tx], [ty]

    m, s = qp.mean_params(in_scale, out_scale, reduce)

    def run(k):
        out = np.zeros(outer * inner, np.int8)
        k.mean_s8(x, out, outer, reduce, inner, in_zp, out_zp, m, s)
        return out

    return Case("mean %s axes %s" % (shape, axes), _tflm(build, [x]), run)


def softmax_case(rng):
    """SOFTMAX over the last axis."""
    rows, depth = _int(rng, 1, 4), _int(rng, 1, 30)
    scale, zp = f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
    beta = f32(rng.choice([1.0, rng.uniform(0.2, 2.0)]))
    x = s8(rng, (rows, depth))

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", x.shape, "int8", scale=1.0 / 256, zero_point=-128)
        mb.op("SOFTMAX", [tx], [ty], "SoftmaxOptions", Beta=beta)
        return [tx], [ty]

    m, ls, diff_min = qp.softmax_params(beta, scale)

    def run(k):
        out = np.zeros(x.size, np.int8)
        k.softmax_s8(x, out, rows, depth, m, ls, diff_min)
        return out

    return Case("softmax %s beta %g" % (x.shape, beta), _tflm(build, [x]), run)


def unary_case(rng, opname):
    """LOGISTIC or TANH on every int8 value."""
    scale, zp = f32(rng.uniform(0.005, 0.2)), _int(rng, -128, 127)
    x = np.arange(-128, 128, dtype=np.int8)
    out_scale, out_zp = (1.0 / 256, -128) if opname == "LOGISTIC" else (1.0 / 128, 0)

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", x.shape, "int8", scale=out_scale, zero_point=out_zp)
        mb.op(opname, [tx], [ty])
        return [tx], [ty]

    m, ls, radius = (qp.logistic_params if opname == "LOGISTIC" else qp.tanh_params)(scale)

    def run(k):
        out = np.zeros(x.size, np.int8)
        fn = k.logistic_s8 if opname == "LOGISTIC" else k.tanh_s8
        fn(x, out, x.size, zp, m, ls, radius)
        return out

    return Case("%s scale %g zp %d" % (opname.lower(), scale, zp), _tflm(build, [x]), run)


def quantize_case(rng):
    """QUANTIZE float32 -> int8, with values on and near rounding ties."""
    scale, zp = f32(rng.uniform(0.01, 0.2)), _int(rng, -128, 127)
    ties = (rng.integers(-300, 300, size=16) + 0.5) * scale
    x = np.concatenate([rng.uniform(-30, 30, size=40), ties]).astype(np.float32)

    def build(mb):
        tx = mb.tensor("x", x.shape, "float32")
        ty = mb.tensor("y", x.shape, "int8", scale=scale, zero_point=zp)
        mb.op("QUANTIZE", [tx], [ty])
        return [tx], [ty]

    def run(k):
        out = np.zeros(x.size, np.int8)
        k.quantize_s8(x, out, x.size, scale, zp)
        return out

    return Case("quantize scale %g zp %d" % (scale, zp), _tflm(build, [x]), run)


def dequantize_case(rng):
    """DEQUANTIZE int8 -> float32 (bit-exact floats)."""
    scale, zp = f32(rng.uniform(0.001, 0.5)), _int(rng, -128, 127)
    x = np.arange(-128, 128, dtype=np.int8)

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", x.shape, "float32")
        mb.op("DEQUANTIZE", [tx], [ty])
        return [tx], [ty]

    def run(k):
        out = np.zeros(x.size, np.float32)
        k.dequantize_s8(x, out, x.size, scale, zp)
        return out

    return Case("dequantize scale %g zp %d" % (scale, zp), _tflm(build, [x]), run)


def requantize_case(rng):
    """QUANTIZE int8 -> int8 (a new scale and zero point)."""
    in_scale, out_scale = f32(rng.uniform(0.01, 0.2)), f32(rng.uniform(0.01, 0.2))
    in_zp, out_zp = (int(z) for z in rng.integers(-128, 128, size=2))
    x = np.arange(-128, 128, dtype=np.int8)

    def build(mb):
        tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
        ty = mb.tensor("y", x.shape, "int8", scale=out_scale, zero_point=out_zp)
        mb.op("QUANTIZE", [tx], [ty])
        return [tx], [ty]

    m, s = qp.requantize_params(in_scale, out_scale)

    def run(k):
        out = np.zeros(x.size, np.int8)
        k.requantize_s8(x, out, x.size, in_zp, out_zp, m, s)
        return out

    return Case("requantize %g -> %g" % (in_scale, out_scale), _tflm(build, [x]), run)


def pad_case(rng):
    """PAD of a 4-D int8 tensor with the output zero point."""
    shape = tuple(_int(rng, 1, 4) for _ in range(4))
    pads = [(_int(rng, 0, 2), _int(rng, 0, 2)) for _ in range(4)]
    oshape = tuple(d + b + a for d, (b, a) in zip(shape, pads))
    scale, zp = f32(rng.uniform(0.01, 0.1)), _int(rng, -128, 127)
    x = s8(rng, shape)

    def build(mb):
        tx = mb.tensor("x", shape, "int8", scale=scale, zero_point=zp)
        tp = mb.tensor("p", (4, 2), "int32", data=np.array(pads, dtype=np.int32))
        ty = mb.tensor("y", oshape, "int8", scale=scale, zero_point=zp)
        mb.op("PAD", [tx, tp], [ty], "PadOptions")
        return [tx], [ty]

    def run(k):
        out = np.zeros(int(np.prod(oshape)), np.int8)
        k.pad(x, out, *shape, *[b for b, _ in pads], *[a for _, a in pads], zp)
        return out

    return Case("pad %s %s" % (shape, pads), _tflm(build, [x]), run)


def concat_case(rng):
    """CONCATENATION of 2-3 int8 tensors along a random axis."""
    base = [_int(rng, 1, 3) for _ in range(4)]
    axis = _int(rng, 0, 3)
    shapes = []
    for _ in range(_int(rng, 2, 3)):
        s = list(base)
        s[axis] = _int(rng, 1, 3)
        shapes.append(tuple(s))
    oshape = list(base)
    oshape[axis] = sum(s[axis] for s in shapes)
    scale, zp = f32(rng.uniform(0.01, 0.1)), _int(rng, -128, 127)
    xs = [s8(rng, s) for s in shapes]
    outer = int(np.prod(base[:axis]))

    def build(mb):
        ts = [mb.tensor("x%d" % i, s, "int8", scale=scale, zero_point=zp)
              for i, s in enumerate(shapes)]
        ty = mb.tensor("y", tuple(oshape), "int8", scale=scale, zero_point=zp)
        mb.op("CONCATENATION", ts, [ty], "ConcatenationOptions", Axis=axis)
        return ts, [ty]

    def run(k):
        out = np.zeros(int(np.prod(oshape)), np.int8)
        k.concat(xs, [x.size // outer for x in xs], out, outer)
        return out

    return Case("concat %s axis %d" % (shapes, axis), _tflm(build, xs), run)


def make_cases(seed, count):
    """`count` cases of every int8 op, from one seed."""
    rng = np.random.default_rng(seed)
    makers = [conv_case, lambda r: conv_case(r, depthwise=True), fc_case,
              lambda r: binary_case(r, "ADD"), lambda r: binary_case(r, "MUL"),
              lambda r: pool_case(r, "AVERAGE_POOL_2D"), lambda r: pool_case(r, "MAX_POOL_2D"),
              mean_case, softmax_case, lambda r: unary_case(r, "LOGISTIC"),
              lambda r: unary_case(r, "TANH"), quantize_case, dequantize_case, requantize_case,
              pad_case, concat_case, transpose_conv_case]
    cases = []
    for _ in range(count):
        cases.extend(make(rng) for make in makers)
    return cases


def transpose_conv_case(rng, dtype="int8"):
    """TRANSPOSE_CONV with the output a converter gives (SAME: in * stride, VALID:
    (in - 1) * stride + k), sometimes one row or column more, as TFLM allows."""
    from burn.host.importers.tflite.ops_conv import transpose_pad

    n, ih, iw, ic, oc = _int(rng, 1, 2), _int(rng, 1, 5), _int(rng, 1, 5), _int(rng, 1, 4), \
        _int(rng, 1, 4)
    kh, kw, sh, sw = _int(rng, 1, 3), _int(rng, 1, 3), _int(rng, 1, 3), _int(rng, 1, 3)
    same = bool(rng.integers(0, 2))
    oh = (ih * sh if same else (ih - 1) * sh + kh) + int(rng.integers(0, 2))
    ow = (iw * sw if same else (iw - 1) * sw + kw) + int(rng.integers(0, 2))
    pt, pl = transpose_pad(oh, kh, sh, same), transpose_pad(ow, kw, sw, same)
    act = int(rng.choice(ACTS))
    wshape, oshape = (oc, kh, kw, ic), (n, oh, ow, oc)
    if dtype == "float32":
        x = rng.standard_normal((n, ih, iw, ic)).astype(np.float32)
        w = rng.standard_normal(wshape).astype(np.float32)
        bias = rng.standard_normal(oc).astype(np.float32)
    else:
        in_scale, in_zp = f32(rng.uniform(0.005, 0.1)), _int(rng, -128, 127)
        w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
        out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(20, 80) * np.sqrt(kh * kw * ic))
        out_zp = _int(rng, -128, 127)
        x = s8(rng, (n, ih, iw, ic))
        w = rng.integers(-127, 128, size=wshape, dtype=np.int8)
        bias = rng.integers(-3000, 3000, size=oc, dtype=np.int32)

    def build(mb):
        ts = mb.tensor("shape", (4,), "int32", data=np.array(oshape, np.int32))
        if dtype == "float32":
            tx = mb.tensor("x", x.shape, "float32")
            tw = mb.tensor("w", wshape, "float32", data=w)
            tb = mb.tensor("b", (oc,), "float32", data=bias)
            ty = mb.tensor("y", oshape, "float32")
        else:
            tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
            tw = mb.tensor("w", wshape, "int8", data=w, scale=w_scales, zero_point=[0] * oc)
            tb = mb.tensor("b", (oc,), "int32", data=bias,
                           scale=[in_scale * s for s in w_scales], zero_point=[0] * oc)
            ty = mb.tensor("y", oshape, "int8", scale=out_scale, zero_point=out_zp)
        mb.op("TRANSPOSE_CONV", [ts, tw, tx, tb], [ty], "TransposeConvOptions",
              Padding=0 if same else 1, StrideH=sh, StrideW=sw, FusedActivationFunction=act)
        return [tx], [ty]

    def run(k):
        if dtype == "float32":
            out = np.zeros(int(np.prod(oshape)), np.float32)
            k.transpose_conv_f32(x, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw,
                                 pt, pl, act)
            return out
        mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
        lo, hi = qp.quant_activation_range(act, out_scale, out_zp)
        out = np.zeros(int(np.prod(oshape)), np.int8)
        k.transpose_conv_s8(x, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                            sh, sw, pt, pl, in_zp, out_zp, lo, hi)
        return out

    mb = ModelBuilder()
    model = mb.finish(*build(mb))
    case = Case("transpose_conv %s %s %s k%dx%d s%d%d %s" % (
        dtype, x.shape, oshape, kh, kw, sh, sw, "same" if same else "valid"),
        run_tflm(model, [x])[0], run)
    case.model, case.x = model, x  # the one-op .tflite and its input, for the importer
    return case

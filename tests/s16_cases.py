"""Random one-op int16x8 models (int16 activations, int8 weights, int32 or int64 bias) as
.tflite bytes, each with seeded inputs and TFLM's output: the cases that every runtime runs
through the TFLite importer and compares bit for bit (tests/oracle/test_s16_vs_tflm.py).

`make_cases(seed, count)` returns `count` `Case`s of each op.
"""

import numpy as np
from s8_cases import ACTS, _int, f32, geometry
from tflite_builder import ModelBuilder, run_tflm


class Case:
    """One model: `name`, its TFLite bytes `data`, its input `x` (a list for several) and
    TFLM's output `want`."""

    def __init__(self, name, build, x):
        mb = ModelBuilder()
        ins, outs = build(mb)
        self.name = name
        self.data = mb.finish(ins, outs)
        self.x = x
        self.want = np.asarray(run_tflm(self.data, x if isinstance(x, list) else [x], 1,
                                        1 << 16)[0])
        # a BOOL output is int8 0/1 in burn (docs/import.md)
        self.want = self.want.reshape(-1).astype(np.int8 if self.want.dtype == bool else
                                                 self.want.dtype)

    def inputs(self):
        """The input as burn's Model.run takes it: one flat array, or a list of them (BOOL
        as int8 0/1)."""
        def flat(x):
            return x.reshape(-1).astype(np.int8) if x.dtype == bool else x.reshape(-1)
        return [flat(x) for x in self.x] if isinstance(self.x, list) else flat(self.x)


def s16(rng, shape):
    return rng.integers(-32768, 32768, size=shape, dtype=np.int16)


def ints(rng, shape, dtype):
    """Random values over the whole range of the integer type `dtype` (or BOOL ones)."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    bits = np.iinfo(dtype)
    return rng.integers(bits.min, bits.max, size=shape, dtype=dtype, endpoint=True)


def _data(mb, name, shape, dtype, scale, zp, data=None):
    """A tensor of int16 data of that quantization, or of data not quantized (int32, BOOL,
    int64, uint8, uint32)."""
    if dtype not in ("int8", "int16"):
        return mb.tensor(name, shape, dtype, data=data)
    return mb.tensor(name, shape, dtype, data=data, scale=scale, zero_point=zp)


def _shape(rng):
    return tuple(_int(rng, 1, 5) for _ in range(_int(rng, 1, 4)))


def quantize_case(rng):
    """QUANTIZE float32 -> int16."""
    shape = _shape(rng)
    scale, zp = f32(rng.uniform(1e-4, 0.01)), int(rng.choice([0, 0, _int(rng, -300, 300)]))
    x = (rng.standard_normal(shape) * scale * rng.uniform(100, 20000)).astype(np.float32)

    def build(mb):
        tx = mb.tensor("x", shape, "float32")
        ty = mb.tensor("y", shape, "int16", scale=scale, zero_point=zp)
        mb.op("QUANTIZE", [tx], [ty])
        return [tx], [ty]

    return Case("quantize %s scale %g zp %d" % (shape, scale, zp), build, x)


def dequantize_case(rng):
    """DEQUANTIZE int16 -> float32."""
    shape = _shape(rng)
    scale, zp = f32(rng.uniform(1e-4, 0.1)), int(rng.choice([0, _int(rng, -300, 300)]))
    x = s16(rng, shape)

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=scale, zero_point=zp)
        ty = mb.tensor("y", shape, "float32")
        mb.op("DEQUANTIZE", [tx], [ty])
        return [tx], [ty]

    return Case("dequantize %s scale %g zp %d" % (shape, scale, zp), build, x)


def requantize_case(rng, types):
    """QUANTIZE between two scales: int16 -> int16, int8 -> int16 or int16 -> int8."""
    src, dst = types
    shape = _shape(rng)
    zps = {"int8": lambda: _int(rng, -128, 127), "int16": lambda: int(rng.choice(
        [0, _int(rng, -500, 500)]))}
    in_scale = f32(rng.uniform(1e-4, 0.01) if src == "int16" else rng.uniform(0.005, 0.1))
    ratio = rng.uniform(1, 200) if src == "int8" and dst == "int16" else (
        rng.uniform(0.001, 0.01) if dst == "int8" else rng.uniform(0.05, 2))
    out_scale = f32(in_scale / ratio)
    in_zp, out_zp = zps[src](), zps[dst]()
    x = s16(rng, shape) if src == "int16" else rng.integers(-128, 128, size=shape,
                                                            dtype=np.int8)

    def build(mb):
        tx = mb.tensor("x", shape, src, scale=in_scale, zero_point=in_zp)
        ty = mb.tensor("y", shape, dst, scale=out_scale, zero_point=out_zp)
        mb.op("QUANTIZE", [tx], [ty])
        return [tx], [ty]

    return Case("requantize %s -> %s %s ratio %.3g" % (src, dst, shape, ratio), build, x)


def _bias(rng, mb, oc, in_scale, w_scales):
    """A bias tensor of int32 or int64 values, or -1 (no bias)."""
    kind = rng.choice(["int32", "int64", "none"])
    if kind == "none":
        return -1, kind
    values = rng.integers(-200000, 200000, size=oc).astype(kind)
    return mb.tensor("b", (oc,), kind, data=values, scale=[in_scale * s for s in w_scales],
                     zero_point=[0] * len(w_scales)), kind


def fc_case(rng):
    """FULLY_CONNECTED int16x8, per-tensor or per-channel weights."""
    batches, fin, fout = _int(rng, 1, 3), _int(rng, 1, 40), _int(rng, 1, 12)
    per_channel = bool(rng.integers(0, 2))
    in_scale = f32(rng.uniform(1e-4, 1e-3))
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(fout if per_channel else 1)]
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(60, 300) * np.sqrt(fin))
    act = int(rng.choice(ACTS))
    x = s16(rng, (batches, fin))
    w = rng.integers(-127, 128, size=(fout, fin), dtype=np.int8)
    bias_kind = []

    def build(mb):
        tx = mb.tensor("x", x.shape, "int16", scale=in_scale, zero_point=0)
        tw = mb.tensor("w", w.shape, "int8", data=w, scale=w_scales,
                       zero_point=[0] * len(w_scales))
        tb, kind = _bias(rng, mb, fout, in_scale, w_scales)
        bias_kind.append(kind)
        ty = mb.tensor("y", (batches, fout), "int16", scale=out_scale, zero_point=0)
        mb.op("FULLY_CONNECTED", [tx, tw, tb], [ty], "FullyConnectedOptions",
              FusedActivationFunction=act)
        return [tx], [ty]

    case = Case("fc %s -> %d act %d" % (x.shape, fout, act), build, x)
    case.name += " bias " + bias_kind[0]
    return case


def conv_case(rng):
    """CONV_2D int16x8 with groups and dilation."""
    ih, iw, kh, kw, sh, sw, dh, dw, same, oh, ow, _pt, _pl = geometry(rng)
    n = _int(rng, 1, 2)
    groups = int(rng.choice([1, 1, 2]))
    ic, oc = groups * _int(rng, 1, 3), groups * _int(rng, 1, 3)
    in_scale = f32(rng.uniform(1e-4, 1e-3))
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    k = kh * kw * ic // groups
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(60, 300) * np.sqrt(k))
    act = int(rng.choice(ACTS))
    x = s16(rng, (n, ih, iw, ic))
    wshape = (oc, kh, kw, ic // groups)
    w = rng.integers(-127, 128, size=wshape, dtype=np.int8)

    def build(mb):
        tx = mb.tensor("x", x.shape, "int16", scale=in_scale, zero_point=0)
        tw = mb.tensor("w", wshape, "int8", data=w, scale=w_scales, zero_point=[0] * oc)
        tb, _kind = _bias(rng, mb, oc, in_scale, w_scales)
        ty = mb.tensor("y", (n, oh, ow, oc), "int16", scale=out_scale, zero_point=0)
        mb.op("CONV_2D", [tx, tw, tb], [ty], "Conv2DOptions", Padding=0 if same else 1,
              StrideH=sh, StrideW=sw, DilationHFactor=dh, DilationWFactor=dw,
              FusedActivationFunction=act)
        return [tx], [ty]

    return Case("conv %s k%dx%d s%d%d d%d%d g%d act %d" % (x.shape, kh, kw, sh, sw, dh, dw,
                                                          groups, act), build, x)


def depthwise_case(rng):
    """DEPTHWISE_CONV_2D int16x8 with a depth multiplier (int64 bias, as TFLM requires)."""
    ih, iw, kh, kw, sh, sw, dh, dw, same, oh, ow, _pt, _pl = geometry(rng)
    n, ic, dm = _int(rng, 1, 2), _int(rng, 1, 4), _int(rng, 1, 2)
    oc = ic * dm
    in_scale = f32(rng.uniform(1e-4, 1e-3))
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(60, 300) * np.sqrt(kh * kw))
    act = int(rng.choice(ACTS))
    x = s16(rng, (n, ih, iw, ic))
    w = rng.integers(-127, 128, size=(1, kh, kw, oc), dtype=np.int8)
    with_bias = bool(rng.integers(0, 4))

    def build(mb):
        tx = mb.tensor("x", x.shape, "int16", scale=in_scale, zero_point=0)
        tw = mb.tensor("w", w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * oc,
                       quantized_dimension=3)
        # no bias: two inputs (TFLM's depthwise crashes on an omitted third one)
        ins = [tx, tw] + ([mb.tensor("b", (oc,), "int64", data=rng.integers(
            -200000, 200000, size=oc), scale=[in_scale * s for s in w_scales],
            zero_point=[0] * oc)] if with_bias else [])
        ty = mb.tensor("y", (n, oh, ow, oc), "int16", scale=out_scale, zero_point=0)
        mb.op("DEPTHWISE_CONV_2D", ins, [ty], "DepthwiseConv2DOptions",
              Padding=0 if same else 1, StrideH=sh, StrideW=sw, DilationHFactor=dh,
              DilationWFactor=dw, DepthMultiplier=dm, FusedActivationFunction=act)
        return [tx], [ty]

    return Case("depthwise %s k%dx%d s%d%d d%d%d m%d act %d" % (x.shape, kh, kw, sh, sw, dh,
                                                               dw, dm, act), build, x)


def binary_case(rng, op):
    """ADD, SUB, MUL, MAXIMUM, MINIMUM or SQUARED_DIFFERENCE of int16 tensors, b the same
    shape, per channel or a scalar; SUB's, MAXIMUM's, MINIMUM's and SQUARED_DIFFERENCE's
    operands in either order (the one that repeats first or second); MUL's and
    SQUARED_DIFFERENCE's zero points 0, as TFLM requires."""
    shape = (1, _int(rng, 1, 4), _int(rng, 1, 4), _int(rng, 1, 5))
    b_shape = [shape, (1, 1, 1, shape[3]), (1,)][int(rng.integers(0, 3))]
    scales = [f32(rng.uniform(1e-4, 1e-3)) for _ in range(2)]
    out_scale = f32(scales[0] * scales[1] * 32768 * rng.uniform(0.3, 3) if op == "MUL" else
                    max(scales) ** 2 * 131072 * rng.uniform(0.02, 2)
                    if op == "SQUARED_DIFFERENCE" else
                    (scales[0] + scales[1]) * rng.uniform(0.5, 2))
    swap = op in ("SUB", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE") and \
        bool(rng.integers(0, 2))
    zps = [0, 0, 0] if op in ("MUL", "SQUARED_DIFFERENCE") else [
        int(rng.choice([0, _int(rng, -99, 99)])) for _ in range(3)]
    act = int(rng.choice(ACTS))
    xa, xb = s16(rng, shape), s16(rng, b_shape)

    def build(mb):
        ta = mb.tensor("a", shape, "int16", scale=scales[0], zero_point=zps[0])
        tb = mb.tensor("b", b_shape, "int16", scale=scales[1], zero_point=zps[1])
        ty = mb.tensor("y", shape, "int16", scale=out_scale, zero_point=zps[2])
        ins = [tb, ta] if swap else [ta, tb]
        if op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"):  # no fused activation
            mb.op(op, ins, [ty])
        else:
            mb.op(op, ins, [ty], op.capitalize() + "Options", FusedActivationFunction=act)
        return ins, [ty]

    return Case("%s %s %s act %d zp %s%s" % (op.lower(), shape, b_shape, act, zps,
                                            " swapped" if swap else ""), build,
                [xb, xa] if swap else [xa, xb])


def pool_case(rng, op):
    """AVERAGE_POOL_2D or MAX_POOL_2D of int16."""
    ih, iw, kh, kw, sh, sw, _dh, _dw, same, oh, ow, _pt, _pl = geometry(rng, dilate=False)
    n, c = _int(rng, 1, 2), _int(rng, 1, 4)
    scale, zp = f32(rng.uniform(1e-4, 1e-3)), int(rng.choice([0, _int(rng, -99, 99)]))
    act = int(rng.choice(ACTS))
    x = s16(rng, (n, ih, iw, c))

    def build(mb):
        tx = mb.tensor("x", x.shape, "int16", scale=scale, zero_point=zp)
        ty = mb.tensor("y", (n, oh, ow, c), "int16", scale=scale, zero_point=zp)
        mb.op(op, [tx], [ty], "Pool2DOptions", Padding=0 if same else 1, StrideH=sh,
              StrideW=sw, FilterHeight=kh, FilterWidth=kw, FusedActivationFunction=act)
        return [tx], [ty]

    return Case("%s %s k%dx%d s%d%d act %d" % (op.lower(), x.shape, kh, kw, sh, sw, act),
                build, x)


def concat_case(rng, dtype="int16"):
    """CONCATENATION of 2 or 3 int16 tensors sharing one quantization (or int32 ones)."""
    rank = _int(rng, 1, 4)
    base = [_int(rng, 1, 4) for _ in range(rank)]
    axis = _int(rng, 0, rank - 1)
    shapes = []
    for _ in range(_int(rng, 2, 3)):
        s_ = list(base)
        s_[axis] = _int(rng, 1, 3)
        shapes.append(tuple(s_))
    oshape = list(base)
    oshape[axis] = sum(s_[axis] for s_ in shapes)
    scale = f32(rng.uniform(1e-4, 1e-3))
    xs = [s16(rng, s_) if dtype == "int16" else ints(rng, s_, dtype) for s_ in shapes]

    def build(mb):
        ts = [_data(mb, "x%d" % i, s_, dtype, scale, 0) for i, s_ in enumerate(shapes)]
        ty = _data(mb, "y", tuple(oshape), dtype, scale, 0)
        mb.op("CONCATENATION", ts, [ty], "ConcatenationOptions", Axis=axis)
        return ts, [ty]

    return Case("concat %s %s axis %d" % (dtype, shapes, axis), build, xs)


def pad_case(rng, op, dtype="int16"):
    """PAD (with 0) or PADV2 (a given value) of an int16 or int32 tensor of rank 1 to 4."""
    shape = tuple(_int(rng, 1, 4) for _ in range(_int(rng, 1, 4)))
    pads = [(_int(rng, 0, 2), _int(rng, 0, 2)) for _ in shape]
    oshape = tuple(d + b + a for d, (b, a) in zip(shape, pads))
    scale, zp = f32(rng.uniform(1e-4, 1e-3)), int(rng.choice([0, _int(rng, -99, 99)]))
    value = _int(rng, -32768, 32767) if dtype == "int16" else int(ints(rng, (), dtype))
    x = s16(rng, shape) if dtype == "int16" else ints(rng, shape, dtype)

    def build(mb):
        tx = _data(mb, "x", shape, dtype, scale, zp)
        tp = mb.tensor("p", (len(shape), 2), "int32", data=np.array(pads, dtype=np.int32))
        ty = _data(mb, "y", oshape, dtype, scale, zp)
        ins = [tx, tp]
        if op == "PADV2":
            ins.append(_data(mb, "v", (1,), dtype, scale, zp, [value]))
        mb.op(op, ins, [ty], "PadV2Options" if op == "PADV2" else "PadOptions")
        return [tx], [ty]

    return Case("%s %s %s %s" % (op.lower(), dtype, shape, pads), build, x)


def _const_i32(mb, name, values):
    return mb.tensor(name, (len(values),), "int32", data=np.array(values, dtype=np.int32))


def move_case(rng, op, dtype="int16"):
    """TRANSPOSE, REVERSE_V2, BROADCAST_TO, SLICE, STRIDED_SLICE or PACK of int16 tensors
    sharing one quantization: the elements moved as they are."""
    shape = tuple(_int(rng, 1, 4) for _ in range(_int(rng, 1, 4)))
    rank = len(shape)
    scale, zp = f32(rng.uniform(1e-4, 1e-3)), int(rng.choice([0, _int(rng, -99, 99)]))
    values = (lambda s_: s16(rng, s_)) if dtype == "int16" else (lambda s_: ints(rng, s_, dtype))
    xs = [values(shape)]
    if op == "TRANSPOSE":
        perm = [int(v) for v in rng.permutation(rank)]
        oshape = tuple(shape[p] for p in perm)
        consts, options = [("perm", perm)], None
    elif op == "REVERSE_V2":
        axis = _int(rng, 0, rank - 1)
        oshape, consts, options = shape, [("axis", [axis])], None
    elif op == "BROADCAST_TO":
        oshape = (_int(rng, 1, 3),) + shape
        consts, options = [("shape", list(oshape))], None
    elif op == "SLICE":
        begin = [_int(rng, 0, d - 1) for d in shape]
        size = [_int(rng, 1, d - b) for d, b in zip(shape, begin)]
        oshape, consts, options = tuple(size), [("begin", begin), ("size", size)], None
    elif op == "STRIDED_SLICE":
        begin = [_int(rng, 0, d - 1) for d in shape]
        strides = [_int(rng, 1, 2) for _ in shape]
        end = [d for d in shape]
        oshape = tuple(-(-(e - b) // s) for b, e, s in zip(begin, end, strides))
        consts = [("begin", begin), ("end", end), ("strides", strides)]
        options = "StridedSliceOptions"
    else:  # PACK of two inputs along a new axis
        axis = _int(rng, 0, rank)
        oshape = shape[:axis] + (2,) + shape[axis:]
        xs.append(values(shape))
        consts, options = [], ("PackOptions", {"ValuesCount": 2, "Axis": axis})

    def build(mb):
        ts = [_data(mb, "x%d" % i, shape, dtype, scale, zp) for i in range(len(xs))]
        ty = _data(mb, "y", oshape, dtype, scale, zp)
        extra = [_const_i32(mb, name, values) for name, values in consts]
        if isinstance(options, tuple):
            mb.op(op, ts, [ty], options[0], **options[1])
        elif options:
            mb.op(op, ts + extra, [ty], options)
        else:
            mb.op(op, ts + extra, [ty])
        return ts, [ty]

    return Case("%s %s %s -> %s" % (op.lower(), dtype, shape, oshape), build,
                xs if len(xs) > 1 else xs[0])


def update_slice_case(rng, dtype="int16"):
    """DYNAMIC_UPDATE_SLICE of an int16 operand by an int16 update at constant starts (some
    out of range: TFLM clamps them)."""
    shape = tuple(_int(rng, 1, 4) for _ in range(_int(rng, 1, 4)))
    ushape = tuple(_int(rng, 1, d) for d in shape)
    starts = [_int(rng, -1, d - u + 1) for d, u in zip(shape, ushape)]
    scale = f32(rng.uniform(1e-4, 1e-3))
    xs = [s16(rng, shape), s16(rng, ushape)] if dtype == "int16" else [
        ints(rng, shape, dtype), ints(rng, ushape, dtype)]

    def build(mb):
        tx = _data(mb, "x", shape, dtype, scale, 0)
        tu = _data(mb, "u", ushape, dtype, scale, 0)
        ts = mb.tensor("s", (len(shape),), "int32", data=np.array(starts, dtype=np.int32))
        ty = _data(mb, "y", shape, dtype, scale, 0)
        mb.op("DYNAMIC_UPDATE_SLICE", [tx, tu, ts], [ty])
        return [tx, tu], [ty]

    return Case("update_slice %s %s %s at %s" % (dtype, shape, ushape, starts), build, xs)


def relu_case(rng, op):
    """RELU or RELU6 of an int16 tensor, the input's quantization kept (a clamp): RELU with
    zero points 0 and RELU6 with 6.0 within int16 (what TFLM's Prepare requires)."""
    shape = _shape(rng)
    scale = f32(rng.uniform(3e-4, 1e-3) if op == "RELU6" else rng.uniform(1e-4, 1e-2))
    zp = 0 if op == "RELU" else int(rng.choice([0, _int(rng, -99, 99)]))
    x = s16(rng, shape)

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=scale, zero_point=zp)
        ty = mb.tensor("y", shape, "int16", scale=scale, zero_point=zp)
        mb.op(op, [tx], [ty])
        return [tx], [ty]

    return Case("%s %s scale %g zp %d" % (op.lower(), shape, scale, zp), build, x)


def softmax_case(rng):
    """SOFTMAX int16 -> int16 (output scale 1/32768), over the last axis."""
    shape = (_int(rng, 1, 3), _int(rng, 1, 12))
    scale, beta = f32(rng.uniform(1e-4, 2e-3)), f32(rng.choice([1.0, rng.uniform(0.2, 2)]))
    x = s16(rng, shape) // int(rng.choice([1, 4, 16]))

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=scale, zero_point=0)
        ty = mb.tensor("y", shape, "int16", scale=1.0 / 32768, zero_point=0)
        mb.op("SOFTMAX", [tx], [ty], "SoftmaxOptions", Beta=beta)
        return [tx], [ty]

    return Case("softmax %s scale %g beta %g" % (shape, scale, beta), build, x)


def softmax_s8_case(rng):
    """SOFTMAX int8 -> int16 (output scale 1/65536, zero point -32768), over the last axis."""
    shape = (_int(rng, 1, 3), _int(rng, 1, 40))
    scale, beta = f32(rng.uniform(0.01, 0.3)), f32(rng.choice([1.0, rng.uniform(0.2, 2)]))
    zp = _int(rng, -128, 127)
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)

    def build(mb):
        tx = mb.tensor("x", shape, "int8", scale=scale, zero_point=zp)
        ty = mb.tensor("y", shape, "int16", scale=1.0 / 65536, zero_point=-32768)
        mb.op("SOFTMAX", [tx], [ty], "SoftmaxOptions", Beta=beta)
        return [tx], [ty]

    return Case("softmax int8 %s scale %g beta %g" % (shape, scale, beta), build, x)


def sigmoid_case(rng, op):
    """LOGISTIC or TANH int16 -> int16 (output scale 1/32768): TFLM's power-of-two input
    scales and general ones."""
    shape = _shape(rng)
    scale = f32(rng.choice([2.0 ** -12, 2.0 ** -11, 2.0 ** -13, 2.0 ** -10,
                            rng.uniform(1e-5, 3e-3), rng.uniform(3e-3, 0.08)]))
    x = s16(rng, shape) // int(rng.choice([1, 4, 16]))

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=scale, zero_point=0)
        ty = mb.tensor("y", shape, "int16", scale=1.0 / 32768, zero_point=0)
        mb.op(op, [tx], [ty])
        return [tx], [ty]

    return Case("%s %s scale %g" % (op.lower(), shape, scale), build, x)


def leaky_relu_case(rng):
    """LEAKY_RELU int16 -> int16: slopes of either sign, the output scale apart from the
    input's, zero points mostly 0 (as the TFLite converter makes int16 tensors)."""
    shape = _shape(rng)
    in_scale = f32(rng.uniform(1e-4, 2e-3))
    out_scale = f32(in_scale * rng.choice([1.0, rng.uniform(0.3, 3.0)]))
    alpha = f32(rng.choice([0.1, 0.2, 0.0, rng.uniform(-1.5, 1.5)]))
    zps = [0, 0] if rng.random() < 0.7 else [_int(rng, -300, 300) for _ in range(2)]
    x = s16(rng, shape)

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=in_scale, zero_point=zps[0])
        ty = mb.tensor("y", shape, "int16", scale=out_scale, zero_point=zps[1])
        mb.op("LEAKY_RELU", [tx], [ty], "LeakyReluOptions", Alpha=alpha)
        return [tx], [ty]

    return Case("leaky_relu %s scales %g -> %g alpha %g zps %s" % (
        shape, in_scale, out_scale, alpha, zps), build, x)


def abs_case(rng):
    """ABS int16 -> int16: the output scale equal to the input's or apart from it."""
    shape = _shape(rng)
    in_scale = f32(rng.uniform(1e-4, 2e-3))
    out_scale = f32(in_scale * rng.choice([1.0, rng.uniform(0.3, 3.0)]))
    x = s16(rng, shape)

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=in_scale, zero_point=0)
        ty = mb.tensor("y", shape, "int16", scale=out_scale, zero_point=0)
        mb.op("ABS", [tx], [ty])
        return [tx], [ty]

    return Case("abs %s scales %g -> %g" % (shape, in_scale, out_scale), build, x)


def reduce_case(rng, op):
    """MEAN or SUM of an int16 tensor of rank 1 to 4 over a random set of its axes (kept as
    ones or dropped), the scales apart."""
    shape = tuple(_int(rng, 1, 5) for _ in range(_int(rng, 1, 4)))
    axes = [a for a in range(len(shape)) if rng.integers(0, 2)] or [len(shape) - 1]
    keep = bool(rng.integers(0, 2))
    oshape = tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes)
    in_scale = f32(rng.uniform(1e-4, 1e-3))
    out_scale = f32(in_scale * rng.uniform(0.5, 2) * (1 if op == "MEAN" else np.sqrt(
        np.prod([shape[a] for a in axes]))))
    zps = [int(rng.choice([0, _int(rng, -300, 300)])) for _ in range(2)]
    x = s16(rng, shape) // int(rng.choice([1, 8]))

    def build(mb):
        tx = mb.tensor("x", shape, "int16", scale=in_scale, zero_point=zps[0])
        ty = mb.tensor("y", oshape, "int16", scale=out_scale, zero_point=zps[1])
        mb.op(op, [tx, _const_i32(mb, "axes", axes)], [ty], "ReducerOptions", KeepDims=keep)
        return [tx], [ty]

    return Case("%s %s axes %s keep %s zps %s" % (op.lower(), shape, axes, keep, zps), build, x)


REQUANTIZE_TYPES = (("int16", "int16"), ("int8", "int16"), ("int16", "int8"))
MAKERS = {
    "QUANTIZE float32 -> int16": quantize_case,
    "QUANTIZE between scales": lambda r: requantize_case(
        r, REQUANTIZE_TYPES[int(r.integers(0, 3))]),
    "DEQUANTIZE": dequantize_case,
    "FULLY_CONNECTED": fc_case,
    "CONV_2D": conv_case,
    "DEPTHWISE_CONV_2D": depthwise_case,
    "ADD": lambda r: binary_case(r, "ADD"),
    "SUB": lambda r: binary_case(r, "SUB"),
    "MUL": lambda r: binary_case(r, "MUL"),
    "MAXIMUM": lambda r: binary_case(r, "MAXIMUM"),
    "MINIMUM": lambda r: binary_case(r, "MINIMUM"),
    "SQUARED_DIFFERENCE": lambda r: binary_case(r, "SQUARED_DIFFERENCE"),
    "AVERAGE_POOL_2D": lambda r: pool_case(r, "AVERAGE_POOL_2D"),
    "MAX_POOL_2D": lambda r: pool_case(r, "MAX_POOL_2D"),
    "CONCATENATION": concat_case,
    "PAD": lambda r: pad_case(r, "PAD"),
    "PADV2": lambda r: pad_case(r, "PADV2"),
    "DYNAMIC_UPDATE_SLICE": update_slice_case,
    "RELU": lambda r: relu_case(r, "RELU"),
    "RELU6": lambda r: relu_case(r, "RELU6"),
    "TRANSPOSE": lambda r: move_case(r, "TRANSPOSE"),
    "REVERSE_V2": lambda r: move_case(r, "REVERSE_V2"),
    "BROADCAST_TO": lambda r: move_case(r, "BROADCAST_TO"),
    "SLICE": lambda r: move_case(r, "SLICE"),
    "STRIDED_SLICE": lambda r: move_case(r, "STRIDED_SLICE"),
    "PACK": lambda r: move_case(r, "PACK"),
    "SOFTMAX": softmax_case,
    "SOFTMAX int8 -> int16": softmax_s8_case,
    "LOGISTIC": lambda r: sigmoid_case(r, "LOGISTIC"),
    "TANH": lambda r: sigmoid_case(r, "TANH"),
    "LEAKY_RELU": leaky_relu_case,
    "ABS": abs_case,
    "MEAN": lambda r: reduce_case(r, "MEAN"),
    "SUM": lambda r: reduce_case(r, "SUM"),
}


def make_cases(seed, count, makers=MAKERS):
    """{op: [count cases]} of each of `makers`, from one seed."""
    rng = np.random.default_rng(seed)
    return {op: [make(rng) for _ in range(count)] for op, make in makers.items()}

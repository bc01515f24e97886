"""The elementwise TFLite ops: ADD, MUL, ADD_N, SUB and the other arithmetic of
burn.graph.s8_arith, DIV, the clamps (RELU...), QUANTIZE and DEQUANTIZE, the unary
functions, SQUARE, PRELU and CAST (burn.host.importers.tflite_cast)."""

import math

import numpy as np

from burn.graph import div as graph_div
from burn.graph import quant_params as qp
from burn.graph import unary
from burn.host.bst_writer import GraphOp
from burn.host.importers import arith_params, tflite_move, unary_tables
from burn.host.importers.tflite.common import trailing
from burn.host.importers.tflite.registry import Fail, converts
from burn.host.importers.tflite_cast import CastError
from burn.host.importers.tflite_cast import convert as convert_cast
from burn.shape import numel


def _operands(c, node):
    """(a, b): the two inputs of a binary op, the one that repeats (as the runtime's binary
    kernels read it) second. A constant operand is filled into a tensor of its own by a
    `constant` op (Converter.act)."""
    a, b = node.inputs[:2]
    if c.tf.tensors[a].data is not None and c.tf.tensors[b].data is not None:
        raise Fail("both operands are constants (a constant result)")
    na, nb = (int(np.prod(c.shape(t))) for t in (a, b))
    if na < nb:
        a, b, na, nb = b, a, nb, na
    sa, sb = c.shape(a), c.shape(b)
    if int(np.prod(c.shape(node.outputs[0]))) != na:
        raise Fail("broadcast of %s with %s is not supported" % (sa, sb))
    if na != nb and not trailing(sb, sa):
        raise Fail("broadcast of %s over %s is not supported" % (sb, sa))
    return a, b


def _int32(c, node, kind, a, b):
    """The int32 form of an arithmetic op (burn.graph.s32_arith): its fused activation's
    range, as TFLM's int32 kernels clamp (ADD's never), and SUB's and DIV's swap. int64
    operands are of one type too (the converter's plain_ints says which ops take them)."""
    types = {c.tf.tensors[t].dtype for t in node.inputs[:2] + node.outputs[:1]}
    if types != {np.dtype(np.int32)} and types != {np.dtype(np.int64)}:
        raise Fail("input and output types differ")
    params = {}
    if kind in ("add", "mul", "sub", "div"):
        lo, hi = qp.quant_activation_range(0 if kind == "add" else c.fused(node), 1.0, 0,
                                           -(1 << 31), (1 << 31) - 1)
        params = {"act_min": lo, "act_max": hi}
    if kind in ("sub", "div"):
        params["swap"] = int(a != node.inputs[0])
    c.emit(kind, node, params=params, ins=[a, b])


@converts("ADD", "MUL", arity=2, int16=True, int32=True)
def _binary(c, node, kind=None):
    kind = kind or node.name.lower()
    a, b = _operands(c, node)
    code = c.fused(node)
    if c.is_int32(node):
        _int32(c, node, kind, a, b)
        return
    if not c.is_int8(node) and not c.is_int16(node):
        c.emit(kind, node, params={"act": code}, ins=[a, b])
        return
    (a_scale, a_zp), (b_scale, b_zp) = c.quant(a), c.quant(b)
    out_scale, out_zp = c.quant(node.outputs[0])
    params = c.out_quant_params(node, code)
    params.update({"a_zp": a_zp, "b_zp": b_zp})
    if c.is_int16(node) and kind == "mul" and (a_zp or b_zp or out_zp):
        raise Fail("int16 MUL needs zero points 0 (TFLM)")
    if kind == "add":
        ls, am, ash, bm, bsh, om, osh = qp.add_params(a_scale, b_scale, out_scale,
                                                      15 if c.is_int16(node) else 20)
        params.update({"left_shift": ls, "a_mult": am, "a_shift": ash, "b_mult": bm,
                       "b_shift": bsh, "out_mult": om, "out_shift": osh})
    else:
        params["mult"], params["shift"] = qp.mul_params(a_scale, b_scale, out_scale)
    c.emit(kind, node, params=params, ins=[a, b])


@converts("SUB", "SQUARED_DIFFERENCE", arity=2, int16=True, int32=True)
@converts("MAXIMUM", "MINIMUM", arity=2, int16=True, int32=True, plain_ints=("int64",))
def _arith(c, node):
    """SUB, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM (the optional ops of burn.graph.s8_arith),
    their int16 forms (burn.graph.s16_elementwise; SQUARED_DIFFERENCE's zero points 0, as
    TFLM requires) and the int32 ones (int64 too for MAXIMUM and MINIMUM)."""
    kind = node.name.lower()
    a, b = _operands(c, node)
    if c.is_int32(node) or c.tf.tensors[node.inputs[0]].dtype == np.int64:
        _int32(c, node, kind, a, b)
        return
    types = {c.tf.tensors[t].dtype for t in node.inputs[:2] + node.outputs[:1]}
    if len(types) != 1:
        raise Fail("input and output types differ")
    code = c.fused(node)
    params = {"act": code, "swap": int(a != node.inputs[0])} if kind == "sub" else {}
    params_of = (arith_params.PARAMS16 if c.is_int16(node) else arith_params.PARAMS).get(kind)
    if params_of and (c.is_int8(node) or c.is_int16(node)):
        (a_scale, a_zp), (b_scale, b_zp) = c.quant(a), c.quant(b)
        out_scale, out_zp = c.quant(node.outputs[0])
        if kind == "squared_difference" and c.is_int16(node) and (a_zp, b_zp, out_zp) != \
                (0, 0, 0):
            raise Fail("int16 zero points %d, %d, %d: TFLM's int16 SQUARED_DIFFERENCE takes 0"
                       % (a_zp, b_zp, out_zp))
        params = {"swap": params["swap"]} if kind == "sub" else {}
        params.update(c.out_quant_params(node, code))
        ls, am, ash, bm, bsh, om, osh = params_of(a_scale, b_scale, out_scale)
        if osh > 0:
            raise Fail("output scale %g is below (2 x the larger input scale)^2 / 2^%d: "
                       "the squared differences overflow int32" % (out_scale, 2 * ls))
        params.update({"a_zp": a_zp, "b_zp": b_zp, "left_shift": ls, "a_mult": am,
                       "a_shift": ash, "b_mult": bm, "b_shift": bsh, "out_mult": om,
                       "out_shift": osh})
    c.emit(kind, node, params=params, ins=[a, b])


@converts("DIV", arity=2, int32=True)
@converts("FLOOR_DIV", "FLOOR_MOD", arity=2)
def _div(c, node):
    """DIV, FLOOR_DIV and FLOOR_MOD of float32 tensors and DIV of int8 ones (the optional op
    of burn.graph.div); DIV with its fused activation; DIV of int32 ones (s32_arith)."""
    a, b = _operands(c, node)
    types = {c.tf.tensors[t].dtype.name for t in node.inputs[:2] + node.outputs[:1]}
    if types == {"int32"} and node.name == "DIV":
        _int32(c, node, "div", a, b)
        return
    swap = int(a != node.inputs[0])
    if types == {"int8"} and node.name == "DIV":
        c.emit("div", node, ins=[a, b], params=_div_s8_params(c, node, a, b, swap))
        return
    if types != {"float32"}:
        raise Fail("%s of %s tensors is not supported: burn's runs float32%s" % (
            node.name, "/".join(sorted(t.upper() for t in types)),
            " (and int8 and int32 DIV)" if node.name == "DIV" else ""))
    code = c.fused(node) if node.name == "DIV" else 0
    c.emit("div", node, ins=[a, b], params={
        "op": ("DIV", "FLOOR_DIV", "FLOOR_MOD").index(node.name), "swap": swap, "act": code})


def _div_s8_params(c, node, a, b, swap):
    """int8 DIV's parameters as TFLM's Prepare computes them, the first operand's scale over
    the second's times the output's (a and b may be swapped)."""
    a_zp, b_zp = c.quant(a)[1], c.quant(b)[1]
    out_scale, _ = c.quant(node.outputs[0])
    (s1, _), (s2, _) = c.quant(node.inputs[0]), c.quant(node.inputs[1])
    mult, shift = qp.div_params(s1, s2, out_scale)
    if not graph_div.SHIFT_MIN <= shift <= graph_div.SHIFT_MAX:
        raise Fail("the output multiplier %g / (%g x %g) is outside burn's [2^%d, 2^%d)"
                   % (s1, s2, out_scale, graph_div.SHIFT_MIN - 1, graph_div.SHIFT_MAX))
    params = {"swap": swap, "a_zp": a_zp, "b_zp": b_zp, "mult": mult, "shift": shift}
    params.update(c.out_quant_params(node, c.fused(node)))
    return params


@converts("ADD_N", arity=2)
def _add_n(c, node):
    """ADD_N: float32 as a chain of ADDs, int8 of two inputs as one ADD (TFLM's ADD_N of
    more sums them before it rounds once, which a chain cannot repeat)."""
    types = {c.tf.tensors[t].dtype for t in node.inputs + node.outputs}
    shapes = {tuple(c.shape(t)) for t in node.inputs + node.outputs}
    if len(types) != 1 or len(shapes) != 1:
        raise Fail("inputs and output must have one type and one shape, got %s and %s"
                   % (sorted(t.name for t in types), sorted(shapes)))
    if c.is_int8(node):
        if len(node.inputs) != 2:
            raise Fail("int8 ADD_N of %d inputs: TFLM sums them before it rounds once, "
                       "which a chain of ADDs cannot repeat; burn takes 2" % len(node.inputs))
        zp = c.quant(node.inputs[0])[1]
        if c.quant(node.inputs[1]) != c.quant(node.inputs[0]):
            raise Fail("int8 inputs must share one scale and zero point (TFLM)")
        # TFLM's sum starts from the input offset, not 0: it subtracts the zero point three
        # times, which the ADD's two zero points share
        a_zp = 3 * zp // 2
        if not -128 <= 3 * zp - a_zp <= 127:
            raise Fail("input zero point %d: TFLM's int8 ADD_N subtracts it three times, "
                       "beyond the two int8 zero points of an ADD (|zero point| <= 84)" % zp)
        _binary(c, node, "add")
        c.ops[-1].params.update(a_zp=a_zp, b_zp=3 * zp - a_zp)
        return
    if c.is_int16(node) or types != {np.dtype(np.float32)}:
        raise Fail("ADD_N only supports FLOAT32 and INT8, got %s."
                   % c.tf.tensors[node.outputs[0]].dtype.name.upper())
    y = node.outputs[0]
    total = c.act(node.inputs[0])
    for k, t in enumerate(node.inputs[1:]):
        last = k == len(node.inputs) - 2
        out = c.act(y) if last else tflite_move.like_tensor(c, c.act(y), c.shape(y))
        c.ops.append(GraphOp("add", [total, c.act(t)], [out], params={"act": 0}))
        total = out


# burn's activation code of each TFLite clamp op
_CLAMPS = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}


@converts("RELU", "RELU6", int16=True)
@converts("RELU_N1_TO_1")
def _clamp(c, node):
    """RELU, RELU6 and RELU_N1_TO_1: a clamp; int8 and int16 ones (those TFLM takes) where
    the input and the output share one quantization."""
    code = _CLAMPS[node.name]
    if not c.is_int8(node) and not c.is_int16(node):
        c.emit("clamp", node, params={"act": code})
        return
    if c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
        raise Fail("%s %s that rescales is not supported"
                   % ("int16" if c.is_int16(node) else "int8", node.name))
    if c.is_int16(node) and node.name == "RELU" and c.quant(node.inputs[0])[1]:
        raise Fail("int16 RELU needs zero points 0 (TFLM)")
    p = c.out_quant_params(node, code)
    c.emit("clamp", node, params={"act_min": p["act_min"], "act_max": p["act_max"]})


@converts("QUANTIZE", "DEQUANTIZE", int16=True, int32=True, plain_ints=("uint8",))
def _quantize(c, node):
    src = c.tf.tensors[node.inputs[0]].dtype
    if node.name == "DEQUANTIZE":
        scale, zp = c.quant(node.inputs[0])
        c.emit("dequantize", node, params={"scale": scale, "zp": zp})
    elif src == np.float32:
        scale, zp = c.quant(node.outputs[0])
        c.emit("quantize", node, params={"scale": scale, "zp": zp})
    else:
        (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
            c.quant(node.outputs[0])
        m, s = qp.requantize_params(in_scale, out_scale)
        c.emit("requantize", node, params={"in_zp": in_zp, "out_zp": out_zp, "mult": m,
                                           "shift": s})


@converts("NEG", "SQRT", "RSQRT", "ELU", "HARD_SWISH", "EXP", "LOG", "SIN", "COS",
          "FLOOR", "CEIL", "ROUND")
@converts("LEAKY_RELU", "ABS", int16=True)
def _unary(c, node):
    """ABS, NEG, SQRT, RSQRT, ELU, HARD_SWISH, LEAKY_RELU, and float32 EXP, LOG, SIN, COS,
    FLOOR, CEIL, ROUND: int8 as TFLM's 256 results (a `table` constant), float32 by
    burn.graph.unary's fn code, int16 LEAKY_RELU and ABS by two rescalings
    (burn.graph.s16_unary): ABS is LEAKY_RELU whose negative side is the positive side's
    multiplier negated, since TFLM's rescaling rounds half away from zero, so
    MBQM(v, -m, s) = MBQM(-v, m, s)."""
    src, dst = (c.tf.tensors[t] for t in (node.inputs[0], node.outputs[0]))
    if src.dtype != dst.dtype:
        raise Fail("input and output types differ (%s, %s)" % (src.dtype.name, dst.dtype.name))
    if numel(src.shape) != numel(dst.shape):
        raise Fail("input %s and output %s differ in size" % (src.shape, dst.shape))
    alpha = 0.0
    if node.name == "LEAKY_RELU" and node.options is not None:
        alpha = float(node.options["Alpha"])
        if not math.isfinite(alpha):
            raise Fail("alpha is %r" % alpha)
    if src.dtype == np.int16:
        c.emit("unary", node, params=_leaky_relu16(c, node, alpha))
        return
    if not c.is_int8(node):
        params = {"fn": getattr(unary, node.name)}
        if node.name == "LEAKY_RELU":
            params["alpha"] = alpha
        c.emit("unary", node, params=params)
        return
    if node.name in unary_tables.FLOAT_ONLY:
        raise Fail("TFLM has no int8 %s kernel (float32 only)" % node.name)
    try:
        tbl = unary_tables.table(node.name, c.quant(node.inputs[0]), c.quant(node.outputs[0]),
                                 alpha)
    except unary_tables.TableError as e:
        raise Fail(str(e)) from e
    c.emit("unary", node, consts={"table": tbl})


def _leaky_relu16(c, node, alpha):
    """The parameters of an int16 LEAKY_RELU (or ABS) as TFLM's Prepare() computes them: the
    identity and alpha rescalings in float32, then QuantizeMultiplier."""
    if node.name not in ("LEAKY_RELU", "ABS"):
        raise Fail("TFLM has no int16 %s kernel (int16 LEAKY_RELU and ABS only)" % node.name)
    f32 = np.float32
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), c.quant(node.outputs[0])
    pos = qp.quantize_multiplier(float(f32(in_scale) / f32(out_scale)))
    if node.name == "ABS":
        neg = (-pos[0], pos[1])
    else:
        neg = qp.quantize_multiplier(float(f32(f32(in_scale) * f32(alpha)) / f32(out_scale)))
    if max(pos[1], neg[1]) > 14:
        raise Fail("the input scale is 2**14 times the output scale or more (alpha %g)" % alpha)
    return {"in_zp": in_zp, "out_zp": out_zp, "pos_mult": pos[0], "pos_shift": pos[1],
            "neg_mult": neg[0], "neg_shift": neg[1]}


@converts("SQUARE")
def _square(c, node):
    """SQUARE (float32 only, as in TFLM): the input multiplied by itself, a `mul`."""
    if c.is_int8(node):
        raise Fail("TFLM has no int8 SQUARE kernel (float32 only)")
    if c.tf.tensors[node.outputs[0]].dtype != np.float32:
        raise Fail("input and output types differ")
    if c.shape(node.inputs[0]) != c.shape(node.outputs[0]):
        raise Fail("input and output shapes differ")
    x = node.inputs[0]
    c.emit("mul", node, params={"act": 0}, ins=[x, x])


@converts("PRELU", arity=2, int16=True)
def _prelu(c, node):
    """PRELU with a constant alpha that repeats along the input's innermost dims; int16
    takes an int8 alpha (TFLM's int16x8 PRELU)."""
    x, y = node.inputs[0], node.outputs[0]
    alpha = c.const(node.inputs[1], "alpha")
    src, dst = c.tf.tensors[x], c.tf.tensors[y]
    wide = c.is_int16(node)
    if src.dtype != dst.dtype or alpha.dtype != (np.int8 if wide else src.dtype):
        raise Fail("input, alpha and output types differ (%s, %s, %s)%s"
                   % (src.dtype.name, alpha.dtype.name, dst.dtype.name,
                      ": TFLM's int16 PRELU takes an int8 alpha" if wide else ""))
    if max(len(src.shape), alpha.ndim) > 4:
        raise Fail("TFLM's PRELU takes at most 4 dims, got input %s and alpha %s"
                   % (src.shape, alpha.shape))
    if tuple(dst.shape) != tuple(src.shape) or not trailing(alpha.shape, src.shape):
        raise Fail("alpha %s broadcast over input %s to output %s is not supported (alpha "
                   "must repeat along the innermost dims)" % (alpha.shape, src.shape,
                                                                 dst.shape))
    if not (c.is_int8(node) or wide):
        c.emit("prelu", node, consts={"alpha": alpha.reshape(-1)})
        return
    (in_scale, in_zp), (a_scale, a_zp) = c.quant(x), c.quant(node.inputs[1])
    out_scale, out_zp = c.quant(y)
    pm, ps = qp.quantize_multiplier(float(in_scale) / float(out_scale))
    nm, ns = qp.quantize_multiplier(float(in_scale) * float(a_scale) / float(out_scale))
    if ps > 15 or ns > (7 if wide else 15):
        raise Fail("the scales need a left shift beyond %d (a product of input offsets "
                   "would overflow int32)" % (7 if wide and ns > 7 else 15))
    c.emit("prelu", node, consts={"alpha": alpha.reshape(-1)},
           params={"in_zp": in_zp, "alpha_zp": a_zp, "out_zp": out_zp, "pos_mult": pm,
                   "pos_shift": ps, "neg_mult": nm, "neg_shift": ns})


@converts("CAST", bool_inputs=True, int16=True, int32=True, plain_ints=("uint32",))
def _cast(c, node):
    """CAST where an existing op computes it exactly (burn.host.importers.tflite_cast)."""
    try:
        convert_cast(c, node)
    except CastError as e:
        raise Fail(str(e)) from None

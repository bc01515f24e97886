"""Arithmetic and comparisons of int32 tensors (not quantized), as TFLM's reference kernels
compute them for int32: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM and SQUARED_DIFFERENCE in
two's complement int32 arithmetic that wraps (as C does), then clamped to
[act_min, act_max] (the fused activation's range: ADD's is always the whole int32 range,
as TFLM ignores it), and EQUAL ... GREATER_EQUAL into int8 0/1 (burn.graph.logic's op
codes). b repeats along the innermost dims: out[i] = a[i] (op) b[i % b_size]; `swap` 1
makes SUB and DIV b (op) a. DIV truncates toward zero; a zero divisor is refused (TFLM's
kernel would stop the program). The kernels: add_s32, sub_s32, mul_s32, div_s32,
maximum_s32, minimum_s32, squared_difference_s32 and compare_s32; maximum_s32,
minimum_s32 and compare_s32 serve int64 operands too, exactly (INT64_KINDS: TFLM's int64
MAXIMUM, MINIMUM and comparisons)."""

from burn import bst_ops
from burn.graph.logic import OPS as COMPARE_OPS
from burn.graph.logic import operands as logic_operands
from burn.shape import numel

from .s16_arith import wrap32
from .s16_prepare import INT64_KINDS

ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE = range(7)
_I32 = (-(1 << 31), (1 << 31) - 1)


def _quotient(x, y):
    if y == 0:
        raise ValueError("int32 division by zero")
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _arith(a, b, out, size, b_size, op, act_min, act_max, swap):
    for i in range(size):
        x, y = a[i], b[i % b_size]
        if swap:
            x, y = y, x
        if op == ADD:
            v = x + y
        elif op == SUB:
            v = x - y
        elif op == MUL:
            v = x * y
        elif op == DIV:
            v = _quotient(x, y)
        elif op == MAXIMUM or op == MINIMUM:  # exact: int64 operands too, no clamp
            out[i] = x if (x > y) == (op == MAXIMUM) else y
            continue
        else:
            d = wrap32(x - y)
            v = d * d
        v = wrap32(v)
        out[i] = act_min if v < act_min else (act_max if v > act_max else v)


def add_s32(a, b, out, size, b_size, act_min, act_max):
    """out[i] = a[i] + b[i % b_size], clamped."""
    _arith(a, b, out, size, b_size, ADD, act_min, act_max, 0)


def mul_s32(a, b, out, size, b_size, act_min, act_max):
    """out[i] = a[i] * b[i % b_size], clamped."""
    _arith(a, b, out, size, b_size, MUL, act_min, act_max, 0)


def sub_s32(a, b, out, size, b_size, act_min, act_max, swap):
    """out[i] = a[i] - b[i % b_size] (the reverse when swap is 1), clamped."""
    _arith(a, b, out, size, b_size, SUB, act_min, act_max, swap)


def div_s32(a, b, out, size, b_size, act_min, act_max, swap):
    """out[i] = a[i] / b[i % b_size] truncated (the reverse when swap is 1), clamped."""
    _arith(a, b, out, size, b_size, DIV, act_min, act_max, swap)


def maximum_s32(a, b, out, size, b_size):
    """out[i] = the larger of a[i] and b[i % b_size]."""
    _arith(a, b, out, size, b_size, MAXIMUM, _I32[0], _I32[1], 0)


def minimum_s32(a, b, out, size, b_size):
    """out[i] = the smaller of a[i] and b[i % b_size]."""
    _arith(a, b, out, size, b_size, MINIMUM, _I32[0], _I32[1], 0)


def squared_difference_s32(a, b, out, size, b_size):
    """out[i] = (a[i] - b[i % b_size])**2, int32 wrapping."""
    _arith(a, b, out, size, b_size, SQUARED_DIFFERENCE, _I32[0], _I32[1], 0)


def compare_s32(a, b, out, size, b_size, op):
    """out[i] = 1 if a[i] (op) b[i % b_size] else 0, op burn.graph.logic's code."""
    name = COMPARE_OPS[op]
    for i in range(size):
        x, y = a[i], b[i % b_size]
        if name == "EQUAL":
            r = x == y
        elif name == "NOT_EQUAL":
            r = x != y
        elif name == "LESS":
            r = x < y
        elif name == "LESS_EQUAL":
            r = x <= y
        elif name == "GREATER":
            r = x > y
        else:
            r = x >= y
        out[i] = 1 if r else 0


_WITH_SWAP = ("sub", "div")
_CLAMPED = ("add", "mul") + _WITH_SWAP


def prepare(step, ctx, variant):
    """Check and bind an op of int32 operands (burn.graph.s16_prepare hands it here): a
    compare (its output int8 0/1; an operand may be a constant, as for burn.graph.logic) or
    an arithmetic op (its output int32). compare, maximum and minimum take int64 operands
    too (INT64_KINDS), on the Python kernels: the C ones are int32's."""
    dt = ctx.tensors[step.ins[0]][1] if step.ins else "int32"
    if dt == "int64" and step.kind not in INT64_KINDS:
        step.fail("no int64 kernel for this op")
    if step.kind == "compare":
        if len(step.outs) != 1:
            step.fail("expected one output")
        (a, n), (b, bs) = logic_operands(step, ctx, ("a", "b"), (dt, dt))
        out_dt = "int8"
    else:
        bst_ops._arity(step, 2)
        (a, n), (b, bs) = [(ctx.view(t), numel(bst_ops._shape(step, ctx, t, dt)))
                           for t in step.ins]
        out_dt = dt
    size = numel(bst_ops._shape(step, ctx, step.outs[0], out_dt))
    if n != size or bs < 1 or size % bs:
        step.fail("operand sizes %d and %d do not broadcast to the output size %d"
                  % (n, bs, size))
    step.a = (a, b, ctx.view(step.outs[0]), size, bs)
    if step.kind == "compare":
        step.a += (step.p("op", 0, len(COMPARE_OPS) - 1),)
    elif step.kind in _CLAMPED:
        lo, hi = step.ps((("act_min",) + _I32, ("act_max",) + _I32))
        if lo > hi:
            step.fail("act_min %d > act_max %d" % (lo, hi))
        step.a += (lo, hi) + ((step.p("swap", 0, 1),) if step.kind in _WITH_SWAP else ())
    bst_ops._bind(step, "s32_arith", step.kind + "_s32", "plain" if dt == "int64" else variant)

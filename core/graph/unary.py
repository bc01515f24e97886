"""The optional op `unary` (burn.graph.ops.OPTIONAL): TFLite's one-input activations ABS,
NEG, SQRT, RSQRT, ELU, HARD_SWISH and LEAKY_RELU, the hard sigmoid, and (float32 only, as in
TFLM) EXP, LOG, SIN, COS, FLOOR, CEIL and ROUND (half to even).

int8: the output depends on the input value alone, so the importer computes the op's 256
results with TFLM's arithmetic (the exporter, for the hard sigmoid: from the float function)
on the host and stores them as the op's constant `table`;
every runtime then runs one kernel, `lookup_s8(inp, out, size, table)` (s8_lookup's).
float32: `unary_f32(inp, out, size, fn, alpha)`, fn a flex_c op code (FN below).
"""

import math

from burn.bst_ops import _bind, _const, _dtype, _unary

from .s8_lookup import lookup_s8, lookup_s8_fast, lookup_s8_plain  # noqa: F401

# fn codes of unary_f32: flex.h's FLEX_UNARY_* and FLEX_ACTIVATION_* values
NEG, ABS, SQRT, RSQRT, ELU, HARD_SWISH, LEAKY_RELU, HARD_SIGMOID = 0, 1, 4, 5, 32, 33, 34, 35
FN = (NEG, ABS, SQRT, RSQRT, ELU, HARD_SWISH, LEAKY_RELU, HARD_SIGMOID)
# math of TFLite's EXP, LOG, SIN, COS, FLOOR, CEIL and ROUND: flex.h's FLEX_UNARY_* codes,
# whose C every firmware has (flex_f32_unary)
EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND = 2, 3, 6, 7, 11, 12, 13
FN += (EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND)
_INF = float("inf")  # a call, not a constant: frozen bytecode cannot hold inf in C
_NAN = _INF - _INF


def _expm1(x):
    """exp(x) - 1 without the cancellation near 0 (MicroPython's math may lack expm1)."""
    if -0.35 < x < 0.35:
        return x * (1.0 + x * (0.5 + x * (1.0 / 6 + x * (1.0 / 24 + x * (
            1.0 / 120 + x * (1.0 / 720 + x * (1.0 / 5040 + x / 40320)))))))
    return math.exp(x) - 1.0


_MATH = (EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND)


def _round_even(x):
    """x rounded to an integer, ties to even (C's rintf)."""
    f = math.floor(x)
    d = x - f
    return float(f + 1 if d > 0.5 or (d == 0.5 and f % 2) else f)


def _math(fn, x):
    """EXP, LOG, SIN, COS, FLOOR, CEIL or ROUND of x, with C's results for inf and NaN."""
    if x != x:
        return x
    if fn == EXP:
        return math.exp(x) if x < 89.0 else _INF  # float32 overflows from about 88.7 on
    if fn == LOG:
        return math.log(x) if x > 0 else (-_INF if x == 0 else _NAN)
    if x in (_INF, -_INF):
        return _NAN if fn in (SIN, COS) else x
    if fn == SIN:
        return math.sin(x)
    if fn == COS:
        return math.cos(x)
    if fn == FLOOR:
        return float(math.floor(x))
    if fn == CEIL:
        return float(math.ceil(x))
    return _round_even(x)


def _one(fn, x, alpha):
    if fn in _MATH:
        return _math(fn, x)
    if fn == NEG:
        return -x
    if fn == ABS:
        return abs(x)
    if fn == SQRT:
        return math.sqrt(x) if x >= 0 else _NAN
    if fn == RSQRT:
        if x > 0:
            return 1.0 / math.sqrt(x)
        return _INF if x == 0 else _NAN
    if fn == ELU:
        return _expm1(x) if x < 0 else x
    if fn == HARD_SWISH:
        return x * min(max(x + 3.0, 0.0), 6.0) / 6.0
    if fn == LEAKY_RELU:
        return x if x > 0 else x * alpha
    r = alpha * x + 0.5  # HARD_SIGMOID
    return 0.0 if r < 0.0 else (1.0 if r > 1.0 else r)


def unary_f32(inp, out, size, fn, alpha):
    """out[i] = fn(inp[i]) for an fn code of FN; alpha is LEAKY_RELU's and HARD_SIGMOID's
    slope."""
    for i in range(size):
        out[i] = _one(fn, inp[i], alpha)


def prepare(step, ctx, variant):
    """Check and bind a `unary` op (burn.bst_ops.prepare): an int8 op needs its 256-entry
    int8 constant `table`, a float32 op its `fn` code (and `alpha`)."""
    dt = _dtype(step, ctx)
    step.a = _unary(step, ctx, dt, dt)
    if dt == "int8":
        step.a += (_const(step, ctx, "table", "int8", count=256)[0],)
        _bind(step, "unary", "lookup_s8", variant)
        return
    if dt != "float32":
        step.fail("tensors must be int8 or float32")
    fn = step.p("fn", 0, HARD_SIGMOID)
    if fn not in FN:
        step.fail("unknown fn code %d" % fn)
    step.a += (fn, step.num("alpha", 0.0))
    _bind(step, "unary", "unary_f32", variant)

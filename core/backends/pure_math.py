"""Elementwise arithmetic of the pure backend: row functions for every unary and binary
primitive, with IEEE results (inf, NaN) where Python would raise.

Each op has a fast row function (one comprehension over a row) and, where Python can
raise, a safe per-element function used to redo the row after an exception.
"""

import math

from burn.backends import COMPARE_OPS
from burn.backends.pure_storage import pack, pack_flags, to_int
from burn.dtype import bool_

INF = float("inf")
NAN = INF - INF
_TWO_OVER_SQRT_PI = 1.1283791670955126
_ARITH_ERRORS = (ArithmeticError, ValueError, TypeError)


def erf_approx(x):
    """erf(x) to float32 accuracy, for ports whose math module lacks erf."""
    z = abs(x)
    if z < 0.5:
        # Maclaurin series: relative error < 1e-9 here.
        x2 = x * x
        term = x
        total = x
        for k in range(1, 9):
            term = -term * x2 / k
            total += term / (2 * k + 1)
        return _TWO_OVER_SQRT_PI * total
    # Chebyshev fit of erfc (Numerical Recipes), fractional error < 1.2e-7.
    t = 1.0 / (1.0 + 0.5 * z)
    p = 0.17087277
    for c in (-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418,
              0.37409196, 1.00002368):
        p = c + t * p
    r = t * math.exp(-z * z - 1.26551223 + t * p)
    return 1.0 - r if x >= 0 else r - 1.0


erf = getattr(math, "erf", erf_approx)


def _finite(x):
    return x - x == 0


def _exp(x):
    try:
        return math.exp(x)
    except _ARITH_ERRORS:
        return INF if x > 0 else 0.0


def _log(x):
    if x > 0 or x != x:  # NaN passes through
        return math.log(x)
    return -INF if x == 0 else NAN


def _sqrt(x):
    return NAN if x < 0 else math.sqrt(x)


def _rsqrt(x):
    if x == 0:
        return math.copysign(INF, x)
    return NAN if x < 0 else 1.0 / math.sqrt(x)


def _reciprocal(x):
    return math.copysign(INF, x) if x == 0 else 1.0 / x


def _periodic(f):
    return lambda x: f(x) if _finite(x) else NAN


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = _exp(x)
    return e / (1.0 + e)


def _integral(f):
    # floor/ceil/round return ints in Python; non-finite values pass through.
    return lambda x: float(f(x)) if _finite(x) else x


def _sign(x):
    if x != x:  # NaN passes through
        return x
    return float((x > 0) - (x < 0))


def _elementwise(f):
    return lambda r: [f(x) for x in r]


def _float_unary(op):
    # (row function, safe element function or None when the row function cannot raise).
    # An if-chain rather than a table built at import: only the ops a program uses cost
    # heap for their closures.
    if op == "neg":
        return lambda r: [-x for x in r], None
    if op == "abs":
        return lambda r: [abs(x) for x in r], None
    if op == "exp":
        return _elementwise(math.exp), _exp
    if op == "log":
        return _elementwise(math.log), _log
    if op == "sqrt":
        return _elementwise(math.sqrt), _sqrt
    if op == "rsqrt":
        return lambda r: [1.0 / math.sqrt(x) for x in r], _rsqrt
    if op == "sin":
        return _elementwise(math.sin), _periodic(math.sin)
    if op == "cos":
        return _elementwise(math.cos), _periodic(math.cos)
    if op == "tanh":
        return _elementwise(math.tanh), None
    if op == "sigmoid":
        return _elementwise(_sigmoid), None
    if op == "relu":
        return lambda r: [0.0 if x <= 0 else x for x in r], None
    if op in ("floor", "ceil"):
        return _elementwise(_integral(math.floor if op == "floor" else math.ceil)), None
    if op == "round":
        return _elementwise(_integral(round)), None
    if op == "sign":
        return _elementwise(_sign), None
    if op == "erf":
        return _elementwise(erf), None
    if op == "reciprocal":
        return lambda r: [1.0 / x for x in r], _reciprocal
    return lambda r: [1.0 if x == 0 else 0.0 for x in r], None  # not


def _int_unary(op):
    # Row function of the unary ops that stay in integers, or None.
    if op == "neg":
        return lambda r: [-x for x in r]
    if op == "abs":
        return lambda r: [abs(x) for x in r]
    if op == "relu":
        return lambda r: [0 if x < 0 else x for x in r]
    if op in ("floor", "ceil", "round"):
        return list
    if op == "sign":
        return lambda r: [(x > 0) - (x < 0) for x in r]
    return None


def unary_row(op, dtype):
    """Row function (values -> array of `dtype`) for the unary op `op`."""
    if dtype.is_float:
        return _guarded(_float_unary(op), dtype)
    if op == "not":
        if dtype is bool_:
            return lambda r: pack([1 - x for x in r], dtype)
        return lambda r: pack([~x for x in r], dtype)
    f = _int_unary(op)
    if f is not None:
        return lambda r: pack(f(r), dtype)
    # Transcendental ops on integers: compute in float, truncate toward zero, wrap.
    pair = _float_unary(op)
    return lambda r: pack([to_int(v) for v in _compute(pair, (r,))], dtype)


def _compute(pair, rows):
    fast, safe = pair
    if safe is None:
        return fast(*rows)
    try:
        return fast(*rows)
    except _ARITH_ERRORS:
        return [safe(*xs) for xs in zip(*rows)]


def _guarded(pair, dtype):
    return lambda *rows: pack(_compute(pair, rows), dtype)


def _fdiv(x, y):
    if y != 0:
        return x / y
    if x == 0 or x != x:  # 0/0 and NaN/0 are NaN
        return NAN
    return INF if (x > 0) == (math.copysign(1.0, y) > 0) else -INF


def _ffloordiv(x, y):
    if y == 0:
        return _fdiv(x, y)
    return x // y if _finite(x) else NAN  # inf // y is NaN, as in torch and numpy


def _fmod(x, y):
    return x % y if y != 0 and _finite(x) else NAN


def _fpow(x, y):
    try:
        return math.pow(x, y)
    except _ARITH_ERRORS:
        # 0 ** negative, a negative base with a fractional exponent, or overflow.
        if x == 0:  # -0.0 ** an odd negative integer keeps the sign, as IEEE says
            odd = y == int(y) and int(y) % 2
            return -INF if odd and math.copysign(1.0, x) < 0 else INF
        if x < 0 and y != int(y):
            return NAN
        return -INF if x < 0 and int(y) % 2 else INF


def _pairwise(f):
    return lambda a, b: [f(x, y) for x, y in zip(a, b)]


def zip_expr(kind):
    """Row function of two rows for `kind` (a binary op name, or fmax/fmin/imax/imin for
    float and int maximum/minimum) as one comprehension: no Python call per element."""
    if kind == "add":
        return lambda a, b: [x + y for x, y in zip(a, b)]
    if kind == "sub":
        return lambda a, b: [x - y for x, y in zip(a, b)]
    if kind == "mul":
        return lambda a, b: [x * y for x, y in zip(a, b)]
    if kind == "div":
        return lambda a, b: [x / y for x, y in zip(a, b)]
    if kind == "floordiv":
        return lambda a, b: [x // y for x, y in zip(a, b)]
    if kind == "mod":
        return lambda a, b: [x % y for x, y in zip(a, b)]
    if kind == "eq":
        return lambda a, b: [x == y for x, y in zip(a, b)]
    if kind == "ne":
        return lambda a, b: [x != y for x, y in zip(a, b)]
    if kind == "lt":
        return lambda a, b: [x < y for x, y in zip(a, b)]
    if kind == "le":
        return lambda a, b: [x <= y for x, y in zip(a, b)]
    if kind == "gt":
        return lambda a, b: [x > y for x, y in zip(a, b)]
    if kind == "ge":
        return lambda a, b: [x >= y for x, y in zip(a, b)]
    if kind == "and":
        return lambda a, b: [x & y for x, y in zip(a, b)]
    if kind == "or":
        return lambda a, b: [x | y for x, y in zip(a, b)]
    if kind == "xor":
        return lambda a, b: [x ^ y for x, y in zip(a, b)]
    if kind == "fmax":
        return lambda a, b: [x if x >= y or x != x else y  # NaN wins
                             for x, y in zip(a, b)]
    if kind == "fmin":
        return lambda a, b: [x if x <= y or x != x else y  # NaN wins
                             for x, y in zip(a, b)]
    if kind == "imax":
        return lambda a, b: [x if x >= y else y for x, y in zip(a, b)]
    return lambda a, b: [x if x <= y else y for x, y in zip(a, b)]


def _tdiv(x, y):
    # C integer division: truncates toward zero; division by zero gives 0.
    if y == 0:
        return 0
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _ipow(x, e):
    # Square-and-multiply modulo 2**32 keeps the numbers small; the caller wraps.
    if e < 0:
        if x == 1:
            return 1
        return (1 if e % 2 == 0 else -1) if x == -1 else 0
    r = 1
    while e:
        if e & 1:
            r = (r * x) & 0xFFFFFFFF
        x = (x * x) & 0xFFFFFFFF
        e >>= 1
    return r


def _logical(kind):
    # and/or/xor on floats: the truth of each operand, as 1.0 or 0.0.
    if kind == "and":
        return lambda x, y: float(bool(x) and bool(y))
    if kind == "or":
        return lambda x, y: float(bool(x) or bool(y))
    return lambda x, y: float(bool(x) != bool(y))


def _float_binary(op):
    if op in ("add", "sub", "mul"):
        return zip_expr(op), None
    if op == "div":
        return zip_expr(op), _fdiv
    if op == "floordiv":
        return zip_expr(op), _ffloordiv
    if op == "mod":
        return zip_expr(op), _fmod
    if op == "pow":
        return _pairwise(_fpow), None
    if op == "maximum":
        return zip_expr("fmax"), None
    if op == "minimum":
        return zip_expr("fmin"), None
    return _pairwise(_logical(op)), None


def _int_binary(op):
    if op in ("add", "sub", "mul", "and", "or", "xor"):
        return zip_expr(op), None
    if op == "div":
        return _pairwise(_tdiv), None
    if op == "floordiv":
        return zip_expr(op), lambda x, y: x // y if y else 0
    if op == "mod":
        return zip_expr(op), lambda x, y: x % y if y else 0
    if op == "pow":
        return _pairwise(_ipow), None
    return zip_expr("imax" if op == "maximum" else "imin"), None


def binary_row(op, dtype):
    """Row function (two value rows -> array) for the binary op `op` on `dtype` inputs;
    comparisons give bool arrays."""
    if op in COMPARE_OPS:
        f = zip_expr(op)
        return lambda a, b: pack_flags(f(a, b))
    pair = _float_binary(op) if dtype.is_float else _int_binary(op)
    return _guarded(pair, dtype)


def where_row(dtype):
    """Row function (cond, a, b rows -> array of `dtype`) for `where`."""
    return lambda c, a, b: pack([x if k else y for k, x, y in zip(c, a, b)], dtype)


def clamp_row(lo, hi, dtype):
    """Row function clamping values to [lo, hi] (either may be None); NaN passes."""
    if not dtype.is_float:
        lo = None if lo is None else to_int(math.ceil(lo))
        hi = None if hi is None else to_int(math.floor(hi))
    if lo is not None and hi is not None and lo > hi:
        lo = hi  # torch: min(max(x, lo), hi), so everything becomes hi
    if hi is None:
        return lambda r: pack([lo if x < lo else x for x in r], dtype)
    if lo is None:
        return lambda r: pack([hi if x > hi else x for x in r], dtype)
    return lambda r: pack([lo if x < lo else (hi if x > hi else x) for x in r], dtype)

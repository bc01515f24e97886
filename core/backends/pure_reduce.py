"""Reductions of the pure backend along one axis: sum, prod, max, min, argmax, argmin.

The reduced axis splits the array into `outer` blocks of `r` rows of `inner` values.
With inner == 1 each reduction is over a contiguous slice (C-speed builtins); otherwise
whole rows are combined at a time.
"""

from burn.backends.pure_math import zip_expr
from burn.backends.pure_storage import pack
from burn.dtype import int32
from burn.shape import numel

_MASK32 = 0xFFFFFFFF


def _nan_in(seg):
    # A NaN anywhere makes the sum NaN; only then look for it element by element.
    s = sum(seg)
    return s != s and any(v != v for v in seg)


def _seg_prod(seg, is_float):
    p = 1.0 if is_float else 1
    if is_float:
        for v in seg:
            p *= v
    else:
        for v in seg:
            p = (p * v) & _MASK32
    return p


def _seg_extreme(seg, is_float, want_max):
    if is_float and _nan_in(seg):
        for v in seg:
            if v != v:
                return v
    return max(seg) if want_max else min(seg)


def _seg_arg(seg, is_float, want_max):
    m = _seg_extreme(seg, is_float, want_max)
    nan = m != m
    for i, v in enumerate(seg):
        if v == m or (nan and v != v):
            return i
    return 0


def _reduce_segment(op, seg, is_float):
    if op == "sum":
        return sum(seg)
    if op == "prod":
        return _seg_prod(seg, is_float)
    if op == "max" or op == "min":
        return _seg_extreme(seg, is_float, op == "max")
    return _seg_arg(seg, is_float, op == "argmax")


def _reduce_rows(op, h, base, r, inner, is_float):
    acc = list(h[base:base + inner])
    if op in ("argmax", "argmin"):
        return _arg_rows(op == "argmax", h, base, r, inner, acc)
    if op == "sum":
        f = zip_expr("add")
    elif op == "prod":
        f = zip_expr("mul") if is_float else (
            lambda a, b: [(x * y) & _MASK32 for x, y in zip(a, b)])
    else:
        f = zip_expr(("f" if is_float else "i") + op)
    for j in range(1, r):
        s = base + j * inner
        acc = f(acc, h[s:s + inner])
    return acc


def _arg_rows(want_max, h, base, r, inner, best):
    idx = [0] * inner
    for j in range(1, r):
        s = base + j * inner
        for t in range(inner):
            v = h[s + t]
            b = best[t]
            if b != b:
                continue  # a NaN is never beaten: the first NaN is the answer
            if (v > b if want_max else v < b) or v != v:
                best[t] = v
                idx[t] = j
    return idx


def reduce(op, h, shape, dim, dtype):
    """Reduce `op` over axis `dim`; the result keeps the axis with size 1."""
    outer = numel(shape[:dim])
    r = shape[dim]
    inner = numel(shape[dim + 1:])
    out_dtype = int32 if op in ("argmax", "argmin") else dtype
    if r == 0:
        return pack([1 if op == "prod" else 0] * (outer * inner), out_dtype)
    vals = []
    for o in range(outer):
        base = o * r * inner
        if inner == 1:
            vals.append(_reduce_segment(op, h[base:base + r], dtype.is_float))
        else:
            vals.extend(_reduce_rows(op, h, base, r, inner, dtype.is_float))
    return pack(vals, out_dtype)

"""Random one-op models of int32 data (not quantized) as .tflite bytes, each with seeded
inputs and TFLM's output: the moves TFLM runs on int32 (SLICE, STRIDED_SLICE, SPLIT, SPLIT_V
and UNPACK are move_cases', tests/host/test_tflite_move.py), the requantizations to and from
int32, TFLM's int32 arithmetic and comparisons, and ZEROS_LIKE.
tests/oracle/test_s16_vs_tflm.py runs them beside the int16 ones (s16_cases).
"""

import numpy as np
from s8_cases import ACTS, _int, f32
from s16_cases import (
    Case,
    _const_i32,
    _shape,
    concat_case,
    ints,
    move_case,
    pad_case,
    update_slice_case,
)


def fill_case(rng):
    """FILL of a shape of rank 1 to 4 with a run-time int32 scalar."""
    shape = tuple(_int(rng, 1, 4) for _ in range(_int(rng, 1, 4)))
    x = ints(rng, (), "int32")

    def build(mb):
        td = _const_i32(mb, "dims", list(shape))
        tv = mb.tensor("v", (), "int32")
        ty = mb.tensor("y", shape, "int32")
        mb.op("FILL", [td, tv], [ty])
        return [tv], [ty]

    return Case("fill int32 %s" % (shape,), build, x)


def int32_requantize_case(rng, types):
    """QUANTIZE to or from int32 (int8 or int16 on the other side) between two scales: an
    int32 input's values within 2**30, the scales in the ratios TFLM's int32 arithmetic
    takes without overflow."""
    src, dst = types
    shape = _shape(rng)
    small = {"int8": 127, "int16": 500, "int32": 500}
    in_zp, out_zp = (int(rng.choice([0, _int(rng, -small[t] - 1, small[t])])) for t in types)
    if src == "int32":
        x = rng.integers(-(1 << 30), 1 << 30, size=shape, dtype=np.int32) >> int(
            rng.choice([0, 8, 16]))
        ratio = rng.uniform(1e-7, 1e-4) if dst == "int8" else rng.uniform(1e-5, 1e-2)
    else:
        x = ints(rng, shape, src)
        ratio = rng.uniform(1, 1e5 if src == "int8" else 1e4)
    in_scale = f32(rng.uniform(1e-4, 0.1))
    out_scale = f32(in_scale / ratio)

    def build(mb):
        tx = mb.tensor("x", shape, src, scale=in_scale, zero_point=in_zp)
        ty = mb.tensor("y", shape, dst, scale=out_scale, zero_point=out_zp)
        mb.op("QUANTIZE", [tx], [ty])
        return [tx], [ty]

    return Case("requantize %s -> %s %s ratio %.3g zps %d %d" % (
        src, dst, shape, ratio, in_zp, out_zp), build, x)


# int32 operands' bound per op, so that the results stay within int32: TFLM's int32 kernels
# overflow as C does (undefined), so the cases keep clear of it
_INT32_BOUND = {"MUL": 1 << 15, "SQUARED_DIFFERENCE": 1 << 14}
_OPTIONS = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions", "DIV": "DivOptions"}
_COMPARE = ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")


def int32_binary_case(rng, op, dtype="int32"):
    """An arithmetic op or a comparison of int32 tensors (int64 ones: MAXIMUM, MINIMUM and
    the comparisons, values beyond int32): b the same shape, per channel or a scalar, the
    operands in either order; a fused activation where the op takes one; DIV's divisors
    non-zero; comparisons of values drawn from a few, so that some are equal."""
    shape = (1, _int(rng, 1, 4), _int(rng, 1, 4), _int(rng, 1, 5))
    b_shape = [shape, (1, 1, 1, shape[3]), (1,)][int(rng.integers(0, 3))]
    swap = bool(rng.integers(0, 2))
    act = int(rng.choice(ACTS))
    bound = _INT32_BOUND.get(op, 1 << 30) if dtype == "int32" else 1 << 62
    if op in _COMPARE:
        pool = rng.integers(-bound, bound, size=4, dtype=dtype)
        xa, xb = rng.choice(pool, size=shape), rng.choice(pool, size=b_shape)
    else:
        xa = rng.integers(-bound, bound, size=shape, dtype=dtype)
        xb = rng.integers(-bound, bound, size=b_shape, dtype=np.int32) >> int(
            rng.choice([0, 20])) if op == "DIV" else rng.integers(-bound, bound, size=b_shape,
                                                                 dtype=dtype)
    if op == "DIV":
        xa[xa == 0], xb[xb == 0] = 1, 1

    def build(mb):
        ta, tb = mb.tensor("a", shape, dtype), mb.tensor("b", b_shape, dtype)
        ty = mb.tensor("y", shape, "bool" if op in _COMPARE else dtype)
        ins = [tb, ta] if swap else [ta, tb]
        if op in _OPTIONS:
            mb.op(op, ins, [ty], _OPTIONS[op], FusedActivationFunction=act)
        else:
            mb.op(op, ins, [ty])
        return ins, [ty]

    return Case("%s %s %s %s act %d%s" % (op.lower(), dtype, shape, b_shape, act,
                                             " swapped" if swap else ""), build,
                [xb, xa] if swap else [xa, xb])


def zeros_like_case(rng, dtype="int32"):
    """ZEROS_LIKE of an int32 (or int64) tensor of rank 1 to 4 (any values)."""
    shape = _shape(rng)
    x = ints(rng, shape, dtype)

    def build(mb):
        tx, ty = mb.tensor("x", shape, dtype), mb.tensor("y", shape, dtype)
        mb.op("ZEROS_LIKE", [tx], [ty])
        return [tx], [ty]

    return Case("zeros_like %s %s" % (dtype, shape), build, x)


INT32_MAKERS = {
    "CONCATENATION int32": lambda r: concat_case(r, "int32"),
    "PACK int32": lambda r: move_case(r, "PACK", "int32"),
    "PAD int32": lambda r: pad_case(r, "PAD", "int32"),
    "PADV2 int32": lambda r: pad_case(r, "PADV2", "int32"),
    "REVERSE_V2 int32": lambda r: move_case(r, "REVERSE_V2", "int32"),
    "BROADCAST_TO int32": lambda r: move_case(r, "BROADCAST_TO", "int32"),
    "DYNAMIC_UPDATE_SLICE int32": lambda r: update_slice_case(r, "int32"),
    "FILL int32": fill_case,
    "ZEROS_LIKE int32": zeros_like_case,
    "QUANTIZE int8 -> int32": lambda r: int32_requantize_case(r, ("int8", "int32")),
    "QUANTIZE int16 -> int32": lambda r: int32_requantize_case(r, ("int16", "int32")),
    "QUANTIZE int32 -> int8": lambda r: int32_requantize_case(r, ("int32", "int8")),
    "QUANTIZE int32 -> int16": lambda r: int32_requantize_case(r, ("int32", "int16")),
}
INT32_MAKERS.update({"%s int32" % op: (lambda o: lambda r: int32_binary_case(r, o))(op)
                     for op in ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM",
                                "SQUARED_DIFFERENCE") + _COMPARE})

"""Random one-op models of int64, uint8 and uint32 data (plain integers, no quantization) as
.tflite bytes, each with seeded inputs and TFLM's output: the pairs of tflite-micro's
reference kernels on those types that burn imports (the moves, RESHAPE and SQUEEZE, SHAPE;
int64 MAXIMUM, MINIMUM, comparisons and ZEROS_LIKE: s32_cases' cases of int64 operands;
QUANTIZE and DEQUANTIZE of quantized uint8).
tests/oracle/test_plain_ints_vs_tflm.py runs them on every runtime.

`PLAIN_INT_MAKERS`: {"OP type": maker(rng) -> Case}, for s16_cases.make_cases.
"""

from s8_cases import _int, f32
from s16_cases import Case, _const_i32, _data, concat_case, ints, move_case
from s32_cases import _COMPARE, int32_binary_case, zeros_like_case


def _dims(rng):
    return tuple(_int(rng, 1, 4) for _ in range(_int(rng, 1, 4)))


def reshape_case(rng, op, dtype):
    """RESHAPE to the reversed shape (a new shape input), or SQUEEZE of unit dims put
    around the data's."""
    shape = _dims(rng)
    if op == "RESHAPE":
        xshape, yshape = shape, tuple(reversed(shape))
    else:
        xshape, yshape = (1,) + shape + (1,), shape
    x = ints(rng, xshape, dtype)

    def build(mb):
        tx, ty = _data(mb, "x", xshape, dtype, None, None), _data(mb, "y", yshape, dtype,
                                                                   None, None)
        if op == "RESHAPE":
            mb.op(op, [tx, _const_i32(mb, "s", list(yshape))], [ty])
        else:
            mb.op(op, [tx], [ty], "SqueezeOptions", SqueezeDims=[0, len(xshape) - 1])
        return [tx], [ty]

    return Case("%s %s %s -> %s" % (op.lower(), dtype, xshape, yshape), build, x)


def shape_case(rng, dtype):
    """SHAPE of a tensor of `dtype`, as int32 (the importer computes it)."""
    shape = _dims(rng)
    x = ints(rng, shape, dtype)

    def build(mb):
        tx, ty = _data(mb, "x", shape, dtype, None, None), mb.tensor("y", (len(shape),),
                                                                     "int32")
        mb.op("SHAPE", [tx], [ty], "ShapeOptions", OutType=2)
        return [tx], [ty]

    return Case("shape %s %s" % (dtype, shape), build, x)


def uint8_quantize_case(rng, src, dst):
    """QUANTIZE uint8 -> int8 or int8 -> uint8 between two scales (a third of them equal,
    the zero points 128 apart: TFLM's shift by 128), or DEQUANTIZE uint8 -> float32."""
    shape = _dims(rng)
    x = ints(rng, shape, src)
    in_scale = f32(rng.uniform(1e-3, 0.1))
    in_zp = _int(rng, 0, 255) if src == "uint8" else _int(rng, -128, 127)
    same = rng.random() < 0.33
    out_scale = in_scale if same else f32(in_scale * rng.uniform(0.3, 3.0))
    if same:
        in_zp = 128 if src == "uint8" else 0
        out_zp = in_zp - 128 if src == "uint8" else 128
    else:
        out_zp = _int(rng, -128, 127) if dst == "int8" else _int(rng, 0, 255)

    def build(mb):
        tx = mb.tensor("x", shape, src, scale=in_scale, zero_point=in_zp)
        if dst == "float32":
            ty = mb.tensor("y", shape, dst)
        else:
            ty = mb.tensor("y", shape, dst, scale=out_scale, zero_point=out_zp)
        mb.op("DEQUANTIZE" if dst == "float32" else "QUANTIZE", [tx], [ty])
        return [tx], [ty]

    return Case("quantize %s %s %s scales %g %g zps %d %d" % (
        src, dst, shape, in_scale, out_scale, in_zp, out_zp), build, x)


def _move(op, dtype):
    return lambda rng: move_case(rng, op, dtype)


def _reshape(op, dtype):
    return lambda rng: reshape_case(rng, op, dtype)


def _shape(dtype):
    return lambda rng: shape_case(rng, dtype)


def _uint8(src, dst):
    return lambda rng: uint8_quantize_case(rng, src, dst)


def _int64(op):
    return lambda rng: int32_binary_case(rng, op, "int64")


_ALL = ("int64", "uint8", "uint32")
PLAIN_INT_MAKERS = dict(
    [("REVERSE_V2 " + t, _move("REVERSE_V2", t)) for t in ("int64", "uint8")] +
    [("BROADCAST_TO " + t, _move("BROADCAST_TO", t)) for t in _ALL] +
    [("CONCATENATION int64", lambda rng: concat_case(rng, "int64")),
     ("PACK int64", _move("PACK", "int64"))] +
    [("%s %s" % (op, t), _reshape(op, t)) for op in ("RESHAPE", "SQUEEZE") for t in _ALL] +
    [("SHAPE " + t, _shape(t)) for t in _ALL] +
    [(op + " int64", _int64(op)) for op in ("MAXIMUM", "MINIMUM") + _COMPARE] +
    [("ZEROS_LIKE int64", lambda rng: zeros_like_case(rng, "int64"))] +
    [("%s %s %s" % ("DEQUANTIZE" if b == "float32" else "QUANTIZE", a, b), _uint8(a, b))
     for a, b in (("uint8", "int8"), ("int8", "uint8"), ("uint8", "float32"))])

"""Random one-op models that move BOOL data (burn holds it as int8 0/1) as .tflite bytes,
each with seeded inputs and TFLM's output: the moves TFLM runs on BOOL tensors
(CONCATENATION, REVERSE_V2, BROADCAST_TO, SLICE, STRIDED_SLICE, RESHAPE, SQUEEZE) and SHAPE
of a BOOL or int32 tensor (folded at import into the shape a RESHAPE takes).
tests/oracle/test_s16_vs_tflm.py runs them beside the int16 and int32 ones.
"""

from s8_cases import _int
from s16_cases import Case, _const_i32, concat_case, ints, move_case


def reshape_case(rng, op, dtype="bool"):
    """RESHAPE (to a constant new shape) or SQUEEZE (of the axes of size 1) of a tensor of
    rank 1 to 4."""
    shape = tuple(_int(rng, 1, 3) for _ in range(_int(rng, 1, 4)))
    x = ints(rng, shape, dtype)
    size = x.size
    if op == "RESHAPE":
        oshape = (size,) if rng.integers(0, 2) else (1, size, 1)
    else:
        oshape = tuple(d for d in shape if d != 1) or (1,)

    def build(mb):
        tx = mb.tensor("x", shape, dtype)
        ty = mb.tensor("y", oshape, dtype)
        if op == "RESHAPE":
            mb.op(op, [tx, _const_i32(mb, "shape", list(oshape))], [ty])
        else:
            squeezed = [i for i, d in enumerate(shape) if d == 1]
            mb.op(op, [tx], [ty], "SqueezeOptions", SqueezeDims=squeezed)
        return [tx], [ty]

    return Case("%s %s %s -> %s" % (op.lower(), dtype, shape, oshape), build, x)


def shape_case(rng, dtype):
    """SHAPE of a tensor, the new shape of a RESHAPE of it into one of rank 2."""
    first = _int(rng, 1, 3)
    shape = (first, _int(rng, 1, 4))
    x = ints(rng, shape, dtype)

    def build(mb):
        tx = mb.tensor("x", shape, dtype)
        ts = mb.tensor("s", (2,), "int32")
        ty = mb.tensor("y", shape, dtype)
        mb.op("SHAPE", [tx], [ts], "ShapeOptions", OutType=2)
        mb.op("RESHAPE", [tx, ts], [ty])
        return [tx], [ty]

    return Case("shape %s %s" % (dtype, shape), build, x)


BOOL_MAKERS = {
    "CONCATENATION bool": lambda r: concat_case(r, "bool"),
    "REVERSE_V2 bool": lambda r: move_case(r, "REVERSE_V2", "bool"),
    "BROADCAST_TO bool": lambda r: move_case(r, "BROADCAST_TO", "bool"),
    "SLICE bool": lambda r: move_case(r, "SLICE", "bool"),
    "STRIDED_SLICE bool": lambda r: move_case(r, "STRIDED_SLICE", "bool"),
    "RESHAPE bool": lambda r: reshape_case(r, "RESHAPE"),
    "SQUEEZE bool": lambda r: reshape_case(r, "SQUEEZE"),
    "SHAPE bool": lambda r: shape_case(r, "bool"),
    "SHAPE int32": lambda r: shape_case(r, "int32"),
}

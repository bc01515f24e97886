"""TFLite CAST between types that no other op converts exactly, as TFLM's static_cast:
int32 and int16 narrowed to int16 or int8 keep their low bits (two's complement, as C's
conversion wraps), float32 to int8, int16 or int32 truncates toward zero, int32 to float32
rounds to the nearest float32 (ties to even). The kernel `cast_<from>_<to>(inp, out,
size)` converts the first `size` elements. uint32: any integer (int8, int16, int32, BOOL)
becomes a uint32 by its low 32 bits (cast_s32_u32), a float32 truncated toward zero
(cast_f32_u32), and a uint32 narrows to int32 by its low bits (cast_u32_s32), to int8 or
int16 and to the nearest float32 through the int32 kernels' Python code (exact on any
integer); the uint32 casts run in Python on every runtime (flex_c's read signed ints).

A float32 outside the target's range is undefined behaviour in C, so in TFLM: burn
saturates it to the type's bounds, and a NaN gives 0, on every runtime.

An optional op (burn.graph.ops.OPTIONAL): its prepare step lives here (burn.graph.s16_prepare
hands it the casts from or to int16 and int32), and a default firmware leaves this module
out. The casts that an existing op computes exactly (a copy, dequantize, requantize of scale
1) are imported as those ops (burn.host.importers.tflite_cast).
"""

from burn import bst_ops

_SUFFIX = {"int8": "s8", "int16": "s16", "int32": "s32", "float32": "f32", "uint32": "u32"}
_NAMES = ("cast_s32_s8", "cast_s32_s16", "cast_s16_s8", "cast_f32_s8", "cast_f32_s16",
          "cast_f32_s32", "cast_s32_f32", "cast_u32_s32", "cast_s32_u32", "cast_f32_u32")
# (from, to) -> kernel, where it is not cast_<from>_<to>: a uint32 narrows and becomes a
# float32 as an int32 does; int8 and int16 widen to uint32 as int32 does
_SHARED = {("uint32", "int8"): "cast_s32_s8", ("uint32", "int16"): "cast_s32_s16",
           ("uint32", "float32"): "cast_s32_f32", ("int8", "uint32"): "cast_s32_u32",
           ("int16", "uint32"): "cast_s32_u32"}


def _low_bits(inp, out, size, bits):
    """out[i] = the low `bits` bits of integer inp[i], as a signed integer of that width."""
    half = 1 << (bits - 1)
    mask = (1 << bits) - 1
    for i in range(size):
        out[i] = ((inp[i] + half) & mask) - half


def _truncated(inp, out, size, bits, lo=None):
    """out[i] = float inp[i] truncated toward zero into a signed integer of `bits` (into
    [lo, 2**bits) when lo is given: 0 for an unsigned one), saturating beyond its range;
    NaN gives 0 (it compares false)."""
    top = float(1 << (bits - (1 if lo is None else 0)))
    hi = int(top) - 1
    lo = -hi - 1 if lo is None else lo
    for i in range(size):
        x = inp[i]
        if x >= top:
            out[i] = hi
        elif x >= lo:
            out[i] = int(x)
        elif x < lo:
            out[i] = lo
        else:
            out[i] = 0


def cast_s32_s8(inp, out, size):
    """int32 -> int8, the low 8 bits."""
    _low_bits(inp, out, size, 8)


def cast_s32_s16(inp, out, size):
    """int32 -> int16, the low 16 bits."""
    _low_bits(inp, out, size, 16)


def cast_s16_s8(inp, out, size):
    """int16 -> int8, the low 8 bits."""
    _low_bits(inp, out, size, 8)


def cast_f32_s8(inp, out, size):
    """float32 -> int8, truncated toward zero."""
    _truncated(inp, out, size, 8)


def cast_f32_s16(inp, out, size):
    """float32 -> int16, truncated toward zero."""
    _truncated(inp, out, size, 16)


def cast_f32_s32(inp, out, size):
    """float32 -> int32, truncated toward zero."""
    _truncated(inp, out, size, 32)


def cast_u32_s32(inp, out, size):
    """uint32 -> int32, the low 32 bits."""
    _low_bits(inp, out, size, 32)


def cast_s32_u32(inp, out, size):
    """int32 (int8, int16, BOOL) -> uint32, the low 32 bits."""
    for i in range(size):
        out[i] = inp[i] & 0xFFFFFFFF


def cast_f32_u32(inp, out, size):
    """float32 -> uint32, truncated toward zero (negative values saturate to 0)."""
    _truncated(inp, out, size, 32, 0)


def cast_s32_f32(inp, out, size):
    """int32 -> the nearest float32. The value is split in two exact halves so that the one
    rounding is the sum's, also where MicroPython's floats are single precision (a uint32
    too)."""
    for i in range(size):
        v = inp[i]
        out[i] = float(v >> 16) * 65536.0 + float(v & 65535)


def prepare(step, ctx, variant):
    """Check and bind a cast op (burn.bst_ops.prepare): one input, one output of the same
    size, a pair of types that has a kernel (a uint32 one's in Python)."""
    bst_ops._arity(step, 1)
    src, dst = ctx.tensors[step.ins[0]][1], ctx.tensors[step.outs[0]][1]
    name = _SHARED.get((src, dst)) or "cast_%s_%s" % (_SUFFIX.get(src, src),
                                                      _SUFFIX.get(dst, dst))
    if name not in _NAMES:
        step.fail("no cast from %s to %s" % (src, dst))
    step.a = bst_ops._unary(step, ctx, src, dst)
    bst_ops._bind(step, "cast", name, "plain" if "uint32" in (src, dst) else variant)

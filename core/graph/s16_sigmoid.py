"""int16 LOGISTIC and TANH, as TFLM's reference integer kernels: the input rescaled to
1 / (3 * 4096) per step, then a linear interpolation in a 256-entry table of sigmoid(i / 24)
in Q0.16 (made on the host: burn.host.importers.sigmoid16.sigmoid_table), the output in Q0.15
(scale 1/32768, zero point 0). TANH reads the table at twice the input: tanh(x) =
2 * sigmoid(2x) - 1.

The table arrives as int16 values holding the uint16 entries' bit patterns. in_mult 0 means
TFLM's power-of-two case: the input is multiplied by 3 << in_left_shift. The kernels work
on any int16 buffers (`out` may be `inp`), e.g. an LSTM's gates.
"""

from burn import bst_ops

_MASK = 0xFFFFFFFF  # the kernels' sums are uint32, wrapping as in C


def _interp(table, a, frac_bits):
    """The table interpolated at a / 2**frac_bits, with frac_bits fraction bits (uint32)."""
    uh = a >> frac_bits
    ua = table[uh] & 0xFFFF
    return ((ua << frac_bits) + (a & ((1 << frac_bits) - 1)) *
            ((table[uh + 1] & 0xFFFF) - ua)) & _MASK


def _scaling(in_mult, in_left_shift):
    """(multiplier, right shift, rounding) applied to every input."""
    if in_mult == 0:
        return 3 << in_left_shift, 0, 0
    return in_mult, in_left_shift, (1 << in_left_shift) >> 1


def _lookup(inp, out, size, in_mult, in_left_shift, table, tanh):
    """The loop of both kernels. Logistic (tanh 0) interpolates the table with 9 fraction
    bits and rounds its Q0.16 value to Q0.15; tanh (tanh 1) reads it at twice the input (8
    fraction bits) and takes 2 * sigmoid - 1. Past the table's end the result saturates."""
    mult, shift, rnd = _scaling(in_mult, in_left_shift)
    frac = 9 - tanh
    top = 0xFFFF << 8 if tanh else 0x7FFF << 10
    for i in range(size):
        v = (inp[i] * mult + rnd) >> shift
        a = -v if v < 0 else v
        r = top if a >> frac >= 255 else _interp(table, a, frac)
        if tanh:
            r = ((r - (1 << 23) + 128) if v >= 0 else ((1 << 23) + 127 - r)) & _MASK
        else:
            r = ((r + 512) if v >= 0 else ((1 << 25) - r + 511)) & _MASK
        out[i] = (((r >> (10 - 2 * tanh)) + 32768) & 0xFFFF) - 32768


def logistic_s16(inp, out, size, in_mult, in_left_shift, table):
    """out[i] = sigmoid(inp[i]) for the first `size` values, TFLM's int16 Logistic."""
    _lookup(inp, out, size, in_mult, in_left_shift, table, 0)


def tanh_s16(inp, out, size, in_mult, in_left_shift, table):
    """out[i] = tanh(inp[i]) for the first `size` values, TFLM's int16 Tanh."""
    _lookup(inp, out, size, in_mult, in_left_shift, table, 1)


def prepare(step, ctx, variant):
    """Check and bind an int16 `logistic` or `tanh` op (burn.graph.s16_prepare hands it here)."""
    step.a = bst_ops._unary(step, ctx, "int16", "int16")
    mult, shift = step.ps((("in_mult", 0, 65535), ("in_left_shift", 0, 31)))
    scaled = mult if mult else 3 << shift  # in_mult 0: TFLM's power-of-two case
    # every input times the multiplier, plus the rounding, stays an int32
    if (scaled << 15) + ((1 << shift) >> 1 if mult else 0) > bst_ops._I32:
        step.fail("in_mult %d, in_left_shift %d overflow int32" % (mult, shift))
    step.a += (mult, shift, bst_ops._const(step, ctx, "table", "int16", count=256)[0])
    bst_ops._bind(step, "s16_sigmoid", step.kind + "_s16", variant)

"""int8 softmax over the last axis, bit-exact with TFLM's reference (gemmlowp exp).

The viper twin reads exp of each input's difference to its row maximum from a table of the
256 possible differences (`softmax_table`, made with the plain arithmetic) and computes the
per-row reciprocal and the output scaling in 32-bit machine words.
"""
# ruff: noqa: F821  (ptr8 / ptr32 / uint are viper builtins)

import sys
from array import array

from .fixedpoint import rounding_divide_by_pot as _rdbp
from .fixedpoint import saturating_rounding_doubling_high_mul as _mul
from .fixedpoint_math import count_leading_zeros32, exp_on_negative_values
from .fixedpoint_math import one_over_one_plus_x_for_x_in_0_1 as _recip


def _scaled_exp(diff, in_mult, in_left_shift):
    # exp(beta * in_scale * diff) in Q0.31; diff is in Q5.26 after the rescale.
    return exp_on_negative_values(_mul(diff * (1 << in_left_shift), in_mult), 5)


def row_max_s8(inp, base, depth):
    """The largest of the `depth` int8 values from inp[base] (raw bytes read as int8)."""
    top = -128
    for c in range(depth):
        v = ((inp[base + c] + 128) & 255) - 128
        if v > top:
            top = v
    return top


def exp_sum_s8(inp, base, depth, top, in_mult, in_left_shift, diff_min):
    """The row's sum of exp(x - top) (top: its maximum) over the differences at or above
    diff_min, each Q0.31 exp rounded to Q12.19: softmax's and log softmax's denominator
    (below 2**31 for the 4095 values a row may hold)."""
    total = 0
    for c in range(depth):
        diff = ((inp[base + c] + 128) & 255) - 128 - top
        if diff >= diff_min:
            total += _rdbp(_scaled_exp(diff, in_mult, in_left_shift), 12)
    return total


def softmax_s8_plain(inp, out, rows, depth, in_mult, in_left_shift, diff_min):
    """Reference int8 softmax of [rows, depth]; output scale 1/256, zero point -128.
    in_mult, in_left_shift, diff_min come from quant_params.softmax_params."""
    softmax_s8_bits(inp, out, rows, depth, in_mult, in_left_shift, diff_min, 8)


def softmax_s8_bits(inp, out, rows, depth, in_mult, in_left_shift, diff_min, out_bits):
    """softmax_s8_plain with outputs of `out_bits` bits (8, or 16 for int8 SOFTMAX to int16:
    scale 1/65536, zero point -32768), as TFLM's Softmax<int8_t, OutputT>."""
    lo, hi = -(1 << (out_bits - 1)), (1 << (out_bits - 1)) - 1
    for r in range(rows):
        base = r * depth
        top = row_max_s8(inp, base, depth)
        total = exp_sum_s8(inp, base, depth, top, in_mult, in_left_shift, diff_min)
        # TFLM's GetReciprocal, inlined so that no tuple is allocated per row.
        headroom = count_leading_zeros32(total)
        scale = _recip((total << headroom) - (1 << 31))
        exponent = 12 - headroom + 31 - out_bits
        for c in range(depth):
            diff = ((inp[base + c] + 128) & 255) - 128 - top
            v = lo
            if diff >= diff_min:
                e = _scaled_exp(diff, in_mult, in_left_shift)
                v = _rdbp(_mul(scale, e), exponent) + lo
                v = lo if v < lo else (hi if v > hi else v)
            out[base + c] = v


def softmax_table(in_mult, in_left_shift, diff_min):
    """array('i') of the Q0.31 exp of the differences 0, -1, .. -255 to the row maximum
    (entry k is diff -k), 0 where the difference is below diff_min (it then adds nothing
    to the row's sum and its output is -128, as when the plain kernel skips it)."""
    table = array("i", bytes(1024))
    for k in range(256):
        if -k >= diff_min:
            table[k] = _scaled_exp(-k, in_mult, in_left_shift)
    return table


row_max_s8_fast = softmax_s8_fast = None
if sys.implementation.name == "micropython":
    import micropython

    from .fixedpoint import srdhm_fast

    _WORK = array("i", bytes(8))  # srdhm_fast's operands

    @micropython.viper
    def row_max_s8_fast(inp, base: int, depth: int) -> int:
        """Viper twin of row_max_s8."""
        pi = ptr8(inp)
        top = -128
        c = 0
        while c < depth:
            v = (int(pi[base + c]) ^ 0x80) - 0x80
            if v > top:
                top = v
            c += 1
        return top

    @micropython.viper
    def _softmax_rows(inp, out, rows: int, depth: int, table, work):
        pi = ptr8(inp)
        po = ptr8(out)
        pt = ptr32(table)
        pw = ptr32(work)
        sign = 1
        sign = sign << 31  # INT32_MIN as a 32-bit word, 2**31 as a 64-bit one (srdhm_fast)
        int32_max = sign - 1
        r = 0
        while r < rows:
            base = r * depth
            top = int(row_max_s8_fast(inp, base, depth))
            total = 0
            c = 0
            while c < depth:
                e = int(pt[top - ((int(pi[base + c]) ^ 0x80) - 0x80)])
                total += (e >> 12) + ((e >> 11) & 1)  # rounding_divide_by_pot(e, 12), e >= 0
                c += 1
            # TFLM GetReciprocal: headroom, then 1 / (1 + x) by gemmlowp's Newton steps.
            headroom = 0
            t = uint(total)
            while not (t >> 31) & 1:
                t = t << 1
                headroom += 1
            a = (total << headroom) - sign  # in [0, 2**31): the 32-bit word wraps alike
            pw[0] = (a >> 1) + 0x3FFFFFFF + 1  # rounding half sum with INT32_MAX
            pw[1] = -1010580540
            srdhm_fast(work, 0)
            x = 0x2D2D2D2D
            x = (x << 1) + ((int(pw[0]) ^ sign) - sign)  # 1515870810 + srdhm
            k = 0
            while k < 3:
                pw[0] = (a >> 1) + 0x3FFFFFFF + 1
                pw[1] = x
                srdhm_fast(work, 0)
                one_minus = (1 << 29) - ((int(pw[0]) ^ sign) - sign)
                pw[0] = x
                pw[1] = one_minus
                srdhm_fast(work, 0)
                d = (int(pw[0]) ^ sign) - sign
                if d > 0x1FFFFFFF:  # saturating_mul_pot(d, 2)
                    d = int32_max
                elif d < -0x1FFFFFFF:
                    d = 0 - sign
                else:
                    d = d << 2
                x = x + d
                k += 1
            if x > 0x3FFFFFFF:  # saturating_mul_pot(x, 1)
                x = int32_max
            elif x < -0x3FFFFFFF:
                x = 0 - sign
            else:
                x = x << 1
            exponent = 35 - headroom
            c = 0
            while c < depth:
                pw[0] = x
                pw[1] = pt[top - ((int(pi[base + c]) ^ 0x80) - 0x80)]
                srdhm_fast(work, 0)
                s = (int(pw[0]) ^ sign) - sign  # >= 0
                v = 0
                if exponent < 32:  # rounding_divide_by_pot(s, exponent) for s >= 0
                    v = (s >> exponent) + ((s >> (exponent - 1)) & 1)
                v -= 128
                if v > 127:
                    v = 127
                po[base + c] = v
                c += 1
            r += 1

    def softmax_s8_fast(inp, out, rows, depth, in_mult, in_left_shift, diff_min,
                        table=None):
        """Viper twin of softmax_s8_plain; `table` is softmax_table of the same parameters
        (made once by the runtime; here when None)."""
        if table is None:
            table = softmax_table(in_mult, in_left_shift, diff_min)
        _softmax_rows(inp, out, rows, depth, table, _WORK)

softmax_s8 = softmax_s8_fast or softmax_s8_plain

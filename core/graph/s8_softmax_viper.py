"""Viper twins of burn.graph.s8_softmax, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere. They call
that module's softmax_table: import that module, not this one."""
# ruff: noqa: F821  (ptr8 / ptr32 / uint are viper builtins)

from array import array

import micropython

from .fixedpoint_viper import srdhm_fast
from .s8_softmax import softmax_table

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

"""Viper twins of burn.graph.log_softmax, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere. They call
that module's log_q5, _low and log_softmax_table: import that module, not this one."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

from array import array

import micropython

from .log_softmax import _low, log_q5, log_softmax_table
from .s8_softmax_viper import row_max_s8_fast

_WORK = array("i", bytes(8))  # a row's maximum and exp sum


@micropython.viper
def _row_sum(inp, base: int, depth: int, table, work):
    pi = ptr8(inp)
    pt = ptr32(table)
    pw = ptr32(work)
    top = int(row_max_s8_fast(inp, base, depth))
    total = 0  # below 2**31: at most 4095 terms below 2**19
    c = 0
    while c < depth:
        total += int(pt[top - ((int(pi[base + c]) ^ 0x80) - 0x80)])
        c += 1
    pw[0] = top
    pw[1] = total


@micropython.viper
def _row_out(inp, out, base: int, depth: int, top: int, low: int, log_sum: int,
             table):
    pi = ptr8(inp)
    po = ptr8(out)
    pt = ptr32(table)
    sign = 1
    sign = sign << 31  # sign-extends a 32-bit table word on a 64-bit port
    c = 0
    while c < depth:
        k = top - ((int(pi[base + c]) ^ 0x80) - 0x80)
        v = -128
        if 0 - k > low:  # then the difference minus log_sum stays within int32
            s = ((int(pt[256 + k]) ^ sign) - sign) - log_sum
            r = s >> 22  # rounding_divide_by_pot(s, 22)
            rem = s & 0x3FFFFF
            if s < 0:
                if rem > 0x200000:
                    r += 1
            elif rem > 0x1FFFFF:
                r += 1
            v = r + 127
            if v < -128:
                v = -128
            elif v > 127:
                v = 127
        po[base + c] = v
        c += 1


def log_softmax_s8_fast(inp, out, rows, depth, in_mult, in_left_shift, reverse_mult,
                        reverse_shift, diff_min, table=None):
    """Viper twin of log_softmax_s8_plain; `table` is log_softmax_table of the same
    parameters (made once by the runtime; here when None)."""
    if table is None:
        table = log_softmax_table(in_mult, in_left_shift, diff_min)
    for row in range(rows):
        base = row * depth
        _row_sum(inp, base, depth, table, _WORK)
        log_sum = log_q5(_WORK[1])
        _row_out(inp, out, base, depth, _WORK[0],
                 _low(log_sum, diff_min, reverse_mult, reverse_shift), log_sum, table)

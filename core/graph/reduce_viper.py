"""Viper twins of burn.graph.reduce, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def reduce_s8_fast(inp, out, outer: int, reduce: int, mid: int, reduce2: int, inner: int,
                   op: int, in_zp: int, out_zp: int, mult: int, shift: int):
    """Viper twin of reduce_s8_plain."""
    pi = ptr8(inp)
    po = ptr8(out)
    m_off = mult - 0x3FFFFFFF - 1
    zero = in_zp * reduce * reduce2
    row = reduce2 * inner
    o = 0
    a = 0
    while a < outer:
        m = 0
        while m < mid:
            k = 0
            while k < inner:
                acc = 0
                if op == 2:
                    acc = -128
                elif op == 3:
                    acc = 127
                r = 0
                while r < reduce:
                    i = ((a * reduce + r) * mid + m) * row + k
                    end = i + row
                    while i < end:
                        v = (int(pi[i]) ^ 0x80) - 0x80
                        if op == 0:
                            acc += v
                        elif op == 3:
                            if v < acc:
                                acc = v
                        elif v > acc:
                            acc = v
                        i += inner
                    r += 1
                if op == 0:
                    acc = int(mbqm_fast(acc - zero, m_off, shift)) + out_zp
                    if acc < -128:
                        acc = -128
                    elif acc > 127:
                        acc = 127
                po[o] = acc
                o += 1
                k += 1
            m += 1
        a += 1

"""Viper twins of burn.graph.s8_mean, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def mean_s8_fast(inp, out, outer: int, reduce: int, inner: int, in_zp: int, out_zp: int,
                 mult: int, shift: int):
    """Viper twin of mean_s8_plain."""
    pi = ptr8(inp)
    po = ptr8(out)
    m = mult - 0x3FFFFFFF - 1
    o = 0
    a = 0
    while a < outer:
        base = a * reduce * inner
        k = 0
        while k < inner:
            acc = 0
            r = 0
            while r < reduce:
                acc += (int(pi[base + r * inner + k]) ^ 0x80) - 0x80
                r += 1
            v = int(mbqm_fast(acc - in_zp * reduce, m, shift)) + out_zp
            if v < -128:
                v = -128
            elif v > 127:
                v = 127
            po[o] = v
            o += 1
            k += 1
        a += 1

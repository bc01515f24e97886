"""Viper twins of burn.graph.s8_quantize, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def requantize_s8_fast(inp, out, size: int, in_zp: int, out_zp: int, mult: int,
                       shift: int):
    """Viper twin of requantize_s8_plain."""
    pi = ptr8(inp)
    po = ptr8(out)
    m = mult - 0x3FFFFFFF - 1
    i = 0
    while i < size:
        v = int(mbqm_fast(((int(pi[i]) ^ 0x80) - 0x80) - in_zp, m, shift)) + out_zp
        if v < -128:
            v = -128
        elif v > 127:
            v = 127
        po[i] = v
        i += 1


@micropython.viper
def clamp_s8_fast(inp, out, size: int, act_min: int, act_max: int):
    """Viper twin of clamp_s8_plain."""
    pi = ptr8(inp)
    po = ptr8(out)
    i = 0
    while i < size:
        v = (int(pi[i]) ^ 0x80) - 0x80
        if v < act_min:
            v = act_min
        elif v > act_max:
            v = act_max
        po[i] = v
        i += 1

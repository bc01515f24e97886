"""Viper twins of burn.graph.prelu, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def prelu_s8_fast(inp, alpha, out, size: int, alpha_size: int, in_zp: int, alpha_zp: int,
                  out_zp: int, pos_mult: int, pos_shift: int, neg_mult: int,
                  neg_shift: int):
    """Viper twin of prelu_s8_plain."""
    pi = ptr8(inp)
    pa = ptr8(alpha)
    po = ptr8(out)
    pm = pos_mult - 0x3FFFFFFF - 1
    nm = neg_mult - 0x3FFFFFFF - 1
    j = 0
    i = 0
    while i < size:
        x = ((int(pi[i]) ^ 0x80) - 0x80) - in_zp
        if x >= 0:
            r = int(mbqm_fast(x, pm, pos_shift))
        else:
            a = ((int(pa[j]) ^ 0x80) - 0x80) - alpha_zp
            r = int(mbqm_fast(x * a, nm, neg_shift))
        j += 1
        if j == alpha_size:
            j = 0
        r += out_zp
        if r < -128:
            r = -128
        elif r > 127:
            r = 127
        po[i] = r
        i += 1

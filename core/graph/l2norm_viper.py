"""Viper twins of burn.graph.l2norm, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere. They call
that module's inv_sqrt: import that module, not this one."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast
from .l2norm import inv_sqrt


@micropython.viper
def l2norm_s8_fast(inp, out, rows: int, depth: int, in_zp: int):
    """Viper twin of l2norm_s8_plain (inv_sqrt, once a row, stays Python)."""
    pi = ptr8(inp)
    po = ptr8(out)
    r = 0
    while r < rows:
        base = r * depth
        acc = 0
        k = 0
        while k < depth:
            v = ((int(pi[base + k]) ^ 0x80) - 0x80) - in_zp
            acc += v * v
            k += 1
        q = inv_sqrt(acc)
        m_off = int(q[0]) - 0x3FFFFFFF - 1
        shift = int(q[1]) + 7
        k = 0
        while k < depth:
            v = int(mbqm_fast(((int(pi[base + k]) ^ 0x80) - 0x80) - in_zp, m_off, shift))
            if v < -128:
                v = -128
            elif v > 127:
                v = 127
            po[base + k] = v
            k += 1
        r += 1

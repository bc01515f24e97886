"""Viper twins of burn.graph.logic, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def compare_s8_fast(a, b, out, size: int, b_size: int, op: int, a_zp: int, a_mult: int,
                    a_shift: int, b_zp: int, b_mult: int, b_shift: int):
    """Viper twin of compare_s8_plain."""
    pa = ptr8(a)
    pb = ptr8(b)
    po = ptr8(out)
    # Multipliers travel to mbqm_fast offset by -2**30, as small ints (see fixedpoint).
    am = a_mult - 0x3FFFFFFF - 1
    bm = b_mult - 0x3FFFFFFF - 1
    j = 0
    i = 0
    while i < size:
        x = int(mbqm_fast((((int(pa[i]) ^ 0x80) - 0x80) - a_zp) << 8, am, a_shift))
        y = int(mbqm_fast((((int(pb[j]) ^ 0x80) - 0x80) - b_zp) << 8, bm, b_shift))
        j += 1
        if j == b_size:
            j = 0
        r = 0
        if op == 0:
            r = int(x == y)
        elif op == 1:
            r = int(x != y)
        elif op == 2:
            r = int(x < y)
        elif op == 3:
            r = int(x <= y)
        elif op == 4:
            r = int(x > y)
        else:
            r = int(x >= y)
        po[i] = r
        i += 1


@micropython.viper
def select_s8_fast(cond, x, y, out, size: int, c_size: int, x_size: int, y_size: int):
    """Viper twin of select_s8_plain for int8 buffers."""
    pc = ptr8(cond)
    px = ptr8(x)
    py = ptr8(y)
    po = ptr8(out)
    c = 0
    k = 0
    m = 0
    i = 0
    while i < size:
        po[i] = px[k] if pc[c] else py[m]
        c += 1
        if c == c_size:
            c = 0
        k += 1
        if k == x_size:
            k = 0
        m += 1
        if m == y_size:
            m = 0
        i += 1

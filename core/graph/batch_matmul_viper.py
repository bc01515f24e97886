"""Viper twins of burn.graph.batch_matmul, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython

from .fixedpoint_viper import mbqm_fast


@micropython.viper
def batch_matmul_s8_fast(a, b, out, batches: int, m: int, k: int, n: int, a_step: int,
                         b_step: int, adj_x: int, adj_y: int, a_zp: int, b_zp: int,
                         out_zp: int, mult: int, shift: int):
    """Viper twin of batch_matmul_s8_plain."""
    pa = ptr8(a)
    pb = ptr8(b)
    po = ptr8(out)
    m_off = mult - 0x3FFFFFFF - 1
    a_row = k
    a_k = 1
    b_k = n
    b_col = 1
    if adj_x:
        a_row = 1
        a_k = m
    if adj_y:
        b_k = 1
        b_col = k
    o = 0
    p = 0
    while p < batches:
        i = 0
        while i < m:
            j = 0
            while j < n:
                ia = p * a_step + i * a_row
                ib = p * b_step + j * b_col
                acc = 0
                t = 0
                while t < k:
                    acc += (((int(pa[ia]) ^ 0x80) - 0x80) - a_zp) * \
                        (((int(pb[ib]) ^ 0x80) - 0x80) - b_zp)
                    ia += a_k
                    ib += b_k
                    t += 1
                v = int(mbqm_fast(acc, m_off, shift)) + out_zp
                if v < -128:
                    v = -128
                elif v > 127:
                    v = 127
                po[o] = v
                o += 1
                j += 1
            i += 1
        p += 1

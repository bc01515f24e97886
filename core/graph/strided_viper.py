"""Viper twins of burn.graph.strided, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython


@micropython.viper
def _run(src, at: int, step: int, dst, to: int, n: int):
    ps = ptr8(src)
    pd = ptr8(dst)
    end = to + n
    while to < end:
        pd[to] = ps[at]
        at += step
        to += 1


def strided_s8_fast(inp, out, offset, d0, d1, d2, d3, d4, d5, s0, s1, s2, s3, s4, s5):
    """Viper twin of strided for int8 buffers."""
    o = 0
    for i0 in range(d0):
        for i1 in range(d1):
            for i2 in range(d2):
                for i3 in range(d3):
                    p = offset + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3
                    for _ in range(d4):
                        _run(inp, p, s5, out, o, d5)
                        o += d5
                        p += s4

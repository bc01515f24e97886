"""Viper twins of burn.graph.s8_lookup, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython


@micropython.viper
def lookup_s8_fast(inp, out, size: int, table):
    """Viper twin of lookup_s8_plain."""
    pi = ptr8(inp)
    po = ptr8(out)
    pt = ptr8(table)
    i = 0
    while i < size:
        po[i] = pt[pi[i]]
        i += 1

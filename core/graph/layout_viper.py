"""Viper twins of burn.graph.layout, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import micropython


@micropython.viper
def _copy_bytes(src, src_off: int, dst, dst_off: int, size: int):
    ps = ptr8(src)
    pd = ptr8(dst)
    i = 0
    while i < size:
        pd[dst_off + i] = ps[src_off + i]
        i += 1


@micropython.viper
def _fill_bytes(dst, size: int, value: int):
    pd = ptr8(dst)
    i = 0
    while i < size:
        pd[i] = value
        i += 1


def copy_s8_fast(src, dst, size):
    """Viper twin of copy for int8 buffers."""
    _copy_bytes(src, 0, dst, 0, size)


def pad_s8_fast(inp, out, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, value):
    """Viper twin of pad for int8 buffers."""
    o1, o2, o3 = b1 + d1 + a1, b2 + d2 + a2, b3 + d3 + a3
    _fill_bytes(out, (b0 + d0 + a0) * o1 * o2 * o3, value)
    for i0 in range(d0):
        for i1 in range(d1):
            for i2 in range(d2):
                _copy_bytes(inp, ((i0 * d1 + i1) * d2 + i2) * d3, out,
                            (((i0 + b0) * o1 + i1 + b1) * o2 + i2 + b2) * o3 + b3, d3)


def concat_s8_fast(inputs, inner_sizes, out, outer):
    """Viper twin of concat for int8 buffers."""
    o = 0
    for a in range(outer):
        for k in range(len(inputs)):
            inner = inner_sizes[k]
            _copy_bytes(inputs[k], a * inner, out, o, inner)
            o += inner

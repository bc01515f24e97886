"""Viper twins of burn.graph.resize, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

import micropython


@micropython.viper
def resize_s8_fast(inp, out, n: int, ih: int, iw: int, c: int, oh: int, ow: int, ys,
                   xs):
    """Viper twin of resize_s8_plain."""
    pi = ptr8(inp)
    po = ptr8(out)
    py = ptr32(ys)
    px = ptr32(xs)
    o = 0
    b = 0
    while b < n:
        y = 0
        while y < oh:
            r0 = (b * ih + py[3 * y]) * iw
            r1 = (b * ih + py[3 * y + 1]) * iw
            wy = py[3 * y + 2]
            x = 0
            while x < ow:
                x0 = px[3 * x]
                x1 = px[3 * x + 1]
                wx = px[3 * x + 2]
                k = 0
                while k < c:
                    acc = (((pi[(r0 + x0) * c + k] ^ 0x80) - 0x80) * (1024 - wy) *
                           (1024 - wx) +
                           ((pi[(r1 + x0) * c + k] ^ 0x80) - 0x80) * wy * (1024 - wx) +
                           ((pi[(r0 + x1) * c + k] ^ 0x80) - 0x80) * (1024 - wy) * wx +
                           ((pi[(r1 + x1) * c + k] ^ 0x80) - 0x80) * wy * wx)
                    if acc > 0:
                        po[o] = (acc + (1 << 19)) >> 20
                    else:
                        po[o] = 0 - ((0 - acc + (1 << 19)) >> 20)
                    o += 1
                    k += 1
                x += 1
            y += 1
        b += 1

"""Viper twins of burn.graph.arg, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

import micropython


@micropython.viper
def arg_s8_fast(inp, out, outer: int, reduce: int, inner: int, op: int):
    """Viper twin of arg_s8_plain."""
    pi = ptr8(inp)
    po = ptr32(out)
    o = 0
    a = 0
    while a < outer:
        k = 0
        while k < inner:
            i = a * reduce * inner + k
            best = (int(pi[i]) ^ 0x80) - 0x80
            index = 0
            r = 1
            while r < reduce:
                i += inner
                v = (int(pi[i]) ^ 0x80) - 0x80
                if ((op & 1) != 0 and v < best) or ((op & 1) == 0 and v > best):
                    best = v
                    index = r
                r += 1
            bits = index
            if (op & 2) == 0 and index > 0:  # the float32 bits of index (index < 2**24)
                e = 0
                while (2 << e) <= index:
                    e += 1
                bits = ((127 + e) << 23) | ((index << (23 - e)) & 0x7FFFFF)
            po[o] = bits
            o += 1
            k += 1
        a += 1

"""Viper twins of burn.graph.fixedpoint's arithmetic, called by the viper kernels (the
`*_viper` modules of burn.graph, imported where MicroPython compiles viper code).

`mbqm_fast` is the twin of `multiply_by_quantized_multiplier`: it computes the 64-bit
product from 16-bit halves, so it is exact on 32-bit boards as well as on 64-bit ports."""
# ruff: noqa: F821  (ptr32 / uint are viper builtins)

import micropython


@micropython.viper
def mbqm_fast(x: int, mult_off: int, shift: int) -> int:
    """multiply_by_quantized_multiplier; mult_off = mult - 2**30 (a small int when
    boxed on a 32-bit board). Exact, the left shift wrapping in int32 as in C."""
    m = mult_off + 0x3FFFFFFF + 1
    if shift > 0:
        # wrapped to int32 as C's (uint32_t)x << shift, whatever the machine word size
        x = x << shift
        hi = (x >> 16) & 0xFFFF
        if hi > 0x7FFF:
            hi -= 0x10000
        x = (hi << 16) | (x & 0xFFFF)
    neg = x < 0
    ax = uint(x)
    if neg:
        ax = uint(0 - x)
    al = ax & 0xFFFF
    ah = (ax >> 16) & 0xFFFF
    ml = uint(m) & 0xFFFF
    mh = uint(m) >> 16
    # |x| * m = ah*mh*2**32 + (ah*ml + al*mh)*2**16 + al*ml, summed in 16-bit columns
    # plus the rounding nudge, then shifted right by 31.
    t0 = al * ml
    t1 = ah * ml
    t2 = al * mh
    t3 = ah * mh
    nudge = uint(0x40000000)
    if neg:
        nudge = uint(0x3FFFFFFF)
    w0 = (t0 & 0xFFFF) + (nudge & 0xFFFF)
    w1 = (t0 >> 16) + (t1 & 0xFFFF) + (t2 & 0xFFFF) + (nudge >> 16) + (w0 >> 16)
    w2 = (t1 >> 16) + (t2 >> 16) + (t3 & 0xFFFF) + (w1 >> 16)
    w3 = (t3 >> 16) + (w2 >> 16)
    r = int((w3 << 17) | ((w2 & 0xFFFF) << 1) | ((w1 & 0xFFFF) >> 15))
    if neg:
        r = 0 - r
    if shift < 0:
        e = 0 - shift
        mask = (1 << e) - 1
        threshold = mask >> 1
        if r < 0:
            threshold += 1
        rem = r & mask
        r = r >> e
        if rem > threshold:
            r += 1
    return r


@micropython.viper
def load_s32_fast(buf, i: int) -> int:
    """buf[i] of an int32 buffer, sign-extended on any machine word size."""
    v = int(ptr32(buf)[i])
    hi = (v >> 16) & 0xFFFF
    if hi > 0x7FFF:
        hi -= 0x10000
    return (hi << 16) | (v & 0xFFFF)


@micropython.viper
def srdhm_fast(buf, i: int):
    """buf[i] = saturating_rounding_doubling_high_mul(buf[i], buf[i + 1]) on an int32
    buffer. Operands and result travel through the buffer, so that no int32 is boxed
    (a big int on a 32-bit board). Exact with 32-bit machine words."""
    p = ptr32(buf)
    # INT32_MIN as a 32-bit word, 2**31 as a 64-bit one (shifted at run time: the
    # compiler would fold a constant 1 << 31 into a big int on a 32-bit port).
    sign = 1
    sign = sign << 31
    a = (int(p[i]) ^ sign) - sign
    b = (int(p[i + 1]) ^ sign) - sign
    if a == b and a == 0 - sign:
        p[i] = sign - 1
        return
    neg = 0
    ua = uint(a)
    if a < 0:
        ua = uint(0 - a)
        neg = 1
    ub = uint(b)
    if b < 0:
        ub = uint(0 - b)
        neg ^= 1
    al = ua & 0xFFFF
    ah = (ua >> 16) & 0xFFFF
    bl = ub & 0xFFFF
    bh = (ub >> 16) & 0xFFFF
    # |a| * |b| + nudge in 16-bit columns, shifted right by 31 (as mbqm_fast).
    t0 = al * bl
    t1 = ah * bl
    t2 = al * bh
    t3 = ah * bh
    nudge = uint(0x40000000)
    if neg:
        nudge = uint(0x3FFFFFFF)
    w0 = (t0 & 0xFFFF) + (nudge & 0xFFFF)
    w1 = (t0 >> 16) + (t1 & 0xFFFF) + (t2 & 0xFFFF) + (nudge >> 16) + (w0 >> 16)
    w2 = (t1 >> 16) + (t2 >> 16) + (t3 & 0xFFFF) + (w1 >> 16)
    w3 = (t3 >> 16) + (w2 >> 16)
    r = int((w3 << 17) | ((w2 & 0xFFFF) << 1) | ((w1 & 0xFFFF) >> 15))
    if neg:
        r = 0 - r
    p[i] = r

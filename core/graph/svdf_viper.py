"""Viper twins of burn.graph.svdf, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

import micropython

from .fixedpoint_viper import load_s32_fast, mbqm_fast


@micropython.viper
def _s16(v: int) -> int:
    """The low 16 bits of v as a signed value, on any machine word size."""
    return ((v & 0xFFFF) ^ 0x8000) - 0x8000


@micropython.viper
def _s32(v: int) -> int:
    """The low 32 bits of v as a signed value, on any machine word size."""
    hi = (v >> 16) & 0xFFFF
    if hi > 0x7FFF:
        hi -= 0x10000
    return (hi << 16) | (v & 0xFFFF)


@micropython.viper
def svdf_s8_fast(inp, wf, wt, bias, state, out, batch: int, input_size: int,
                 filters: int, memory: int, rank: int, in_zp: int, state_zp: int,
                 out_zp: int, state_mult: int, state_shift: int, out_mult: int,
                 out_shift: int, state_bits: int):
    """Viper twin of svdf_s8_plain."""
    px = ptr8(inp)
    pw = ptr8(wf)
    pt = ptr32(wt)
    ps = ptr32(state)
    po = ptr8(out)
    m1 = state_mult - 0x3FFFFFFF - 1
    m2 = out_mult - 0x3FFFFFFF - 1
    n = batch * filters * memory
    i = 0
    while i < n - 1:
        ps[i] = ps[i + 1]
        i += 1
    units = filters // rank
    half = 1 << (state_bits - 1)
    b = 0
    while b < batch:
        x0 = b * input_size
        f = 0
        while f < filters:
            acc = 0
            w0 = f * input_size
            i = 0
            while i < input_size:
                acc += (((int(pw[w0 + i]) ^ 0x80) - 0x80) *
                        (((int(px[x0 + i]) ^ 0x80) - 0x80) - in_zp))
                i += 1
            v = int(mbqm_fast(acc, m1, state_shift))
            if v < 0 - half:
                v = 0 - half
            elif v >= half:
                v = half - 1
            ps[(b * filters + f) * memory + memory - 1] = \
                ((v + state_zp + half) & (2 * half - 1)) - half
            f += 1
        u = 0
        while u < units:
            acc = int(load_s32_fast(bias, u))
            f = u * rank
            while f < u * rank + rank:
                s0 = (b * filters + f) * memory
                w0 = f * memory
                j = 0
                while j < memory:
                    acc += int(_s16(int(pt[w0 + j]))) * \
                        (int(_s16(int(ps[s0 + j]))) - state_zp)
                    j += 1
                f += 1
            v = int(mbqm_fast(int(_s32(acc)), m2, out_shift)) + out_zp
            if v < -128:
                v = -128
            elif v > 127:
                v = 127
            po[b * units + u] = v
            u += 1
        b += 1

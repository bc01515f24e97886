"""int8 mean over one contiguous block of axes, bit-exact with TFLM QuantizedMeanOrSum."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

import sys

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets


def mean_s8_plain(inp, out, outer, reduce, inner, in_zp, out_zp, mult, shift, mult_off=None):
    """Reference int8 mean: inp [outer, reduce, inner] -> out [outer, inner]; mult, shift
    from quant_params.mean_params (1/reduce folded in); mult_off: mult_offsets(mult) (here
    when None)."""
    mult = mult_offsets(mult)[0] if mult_off is None else mult_off[0]
    o = 0
    for a in range(outer):
        base = a * reduce * inner
        for k in range(inner):
            acc = 0
            for r in range(reduce):
                acc += ((inp[base + r * inner + k] + 128) & 255) - 128
            v = _mbqm(acc - in_zp * reduce, mult, shift) + out_zp
            if v < -128:
                v = -128
            elif v > 127:
                v = 127
            out[o] = v
            o += 1


mean_s8_fast = None
if sys.implementation.name == "micropython":
    import micropython

    from .fixedpoint import mbqm_fast

    @micropython.viper
    def mean_s8_fast(inp, out, outer: int, reduce: int, inner: int, in_zp: int, out_zp: int,
                     mult: int, shift: int):
        """Viper twin of mean_s8_plain."""
        pi = ptr8(inp)
        po = ptr8(out)
        m = mult - 0x3FFFFFFF - 1
        o = 0
        a = 0
        while a < outer:
            base = a * reduce * inner
            k = 0
            while k < inner:
                acc = 0
                r = 0
                while r < reduce:
                    acc += (int(pi[base + r * inner + k]) ^ 0x80) - 0x80
                    r += 1
                v = int(mbqm_fast(acc - in_zp * reduce, m, shift)) + out_zp
                if v < -128:
                    v = -128
                elif v > 127:
                    v = 127
                po[o] = v
                o += 1
                k += 1
            a += 1

mean_s8 = mean_s8_fast or mean_s8_plain

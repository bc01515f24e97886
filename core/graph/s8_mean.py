"""int8 mean over one contiguous block of axes, bit-exact with TFLM QuantizedMeanOrSum."""

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
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_mean_viper import mean_s8_fast
    except SyntaxError:
        pass

mean_s8 = mean_s8_fast or mean_s8_plain

"""Layout ops: copy (reshape), pad and concat.

The plain functions work on any typed buffer (int8, float32, ...); the `_s8` names are the
int8 versions (a viper twin on MicroPython, the plain function elsewhere).
"""

import sys


def copy(src, dst, size):
    """dst[i] = src[i] for i < size (reshape is this copy, or nothing when in place)."""
    for i in range(size):
        dst[i] = src[i]


def pad(inp, out, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, value):
    """Pad a [d0, d1, d2, d3] tensor with b* before and a* after each axis, filled with
    `value` (int8: the output zero point, as TFLM's PAD)."""
    o1, o2, o3 = b1 + d1 + a1, b2 + d2 + a2, b3 + d3 + a3
    for i in range((b0 + d0 + a0) * o1 * o2 * o3):
        out[i] = value
    for i0 in range(d0):
        for i1 in range(d1):
            for i2 in range(d2):
                src = ((i0 * d1 + i1) * d2 + i2) * d3
                dst = (((i0 + b0) * o1 + i1 + b1) * o2 + i2 + b2) * o3 + b3
                for i3 in range(d3):
                    out[dst + i3] = inp[src + i3]


def concat(inputs, inner_sizes, out, outer):
    """Concatenate buffers viewed as [outer, inner_sizes[k]] into out [outer, sum(...)]."""
    o = 0
    for a in range(outer):
        for k in range(len(inputs)):
            src = inputs[k]
            inner = inner_sizes[k]
            base = a * inner
            for i in range(inner):
                out[o] = src[base + i]
                o += 1


copy_s8_fast = None
pad_s8_fast = None
concat_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .layout_viper import concat_s8_fast, copy_s8_fast, pad_s8_fast
    except SyntaxError:
        pass

copy_s8 = copy_s8_fast or copy
pad_s8 = pad_s8_fast or pad
concat_s8 = concat_s8_fast or concat

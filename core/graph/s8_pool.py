"""int8 average and max pooling (NHWC), bit-exact with TFLM's reference integer pooling.

Both take (inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
act_min, act_max); windows cover only in-bounds cells (padding is never averaged in).
"""

import sys


def pool_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
               act_min, act_max, is_max, lo):
    """TFLM's reference integer pooling of int8 (lo = -128) or int16 (lo = -32768) values;
    int8 may be read as raw bytes (0..255)."""
    mask = -2 * lo - 1
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            fy0 = max(0, -y0)
            fy1 = min(kh, ih - y0)
            for x in range(ow):
                x0 = x * stride_w - pad_left
                fx0 = max(0, -x0)
                fx1 = min(kw, iw - x0)
                count = (fy1 - fy0) * (fx1 - fx0)
                for ch in range(c):
                    acc = lo if is_max else 0
                    for fy in range(fy0, fy1):
                        row = (b * ih + y0 + fy) * iw + x0
                        for fx in range(fx0, fx1):
                            v = ((inp[(row + fx) * c + ch] - lo) & mask) + lo
                            if not is_max:
                                acc += v
                            elif v > acc:
                                acc = v
                    if not is_max:  # the mean, rounded half away from zero
                        acc = (acc + count // 2) // count if acc > 0 else \
                            -((count // 2 - acc) // count)
                    if acc < act_min:
                        acc = act_min
                    elif acc > act_max:
                        acc = act_max
                    out[o] = acc
                    o += 1


def avg_pool_s8_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                      pad_left, act_min, act_max):
    """Reference int8 average pool: in-window mean rounded half away from zero."""
    pool_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
               act_min, act_max, False, -128)


def max_pool_s8_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                      pad_left, act_min, act_max):
    """Reference int8 max pool over the in-bounds cells of each window."""
    pool_plain(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
               act_min, act_max, True, -128)


avg_pool_s8_fast = None
max_pool_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_pool_viper import avg_pool_s8_fast, max_pool_s8_fast
    except SyntaxError:
        pass

avg_pool_s8 = avg_pool_s8_fast or avg_pool_s8_plain
max_pool_s8 = max_pool_s8_fast or max_pool_s8_plain

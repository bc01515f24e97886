"""int8 average and max pooling (NHWC), bit-exact with TFLM's reference integer pooling.

Both take (inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
act_min, act_max); windows cover only in-bounds cells (padding is never averaged in).
"""
# ruff: noqa: F821  (ptr8 is a viper builtin)

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
    import micropython

    @micropython.viper
    def _pool_s8_fast(inp, out, n: int, ih: int, iw: int, c: int, oh: int, ow: int, kh: int,
                      kw: int, stride_h: int, stride_w: int, pad_top: int, pad_left: int,
                      act_min: int, act_max: int, is_max: int):
        pi = ptr8(inp)
        po = ptr8(out)
        o = 0
        b = 0
        while b < n:
            y = 0
            while y < oh:
                y0 = y * stride_h - pad_top
                fy0 = 0 if y0 >= 0 else 0 - y0
                fy1 = kh if kh < ih - y0 else ih - y0
                x = 0
                while x < ow:
                    x0 = x * stride_w - pad_left
                    fx0 = 0 if x0 >= 0 else 0 - x0
                    fx1 = kw if kw < iw - x0 else iw - x0
                    count = (fy1 - fy0) * (fx1 - fx0)
                    ch = 0
                    while ch < c:
                        acc = 0
                        if is_max:
                            acc = -128
                        fy = fy0
                        while fy < fy1:
                            row = (b * ih + y0 + fy) * iw + x0
                            fx = fx0
                            while fx < fx1:
                                v = (int(pi[(row + fx) * c + ch]) ^ 0x80) - 0x80
                                if is_max:
                                    if v > acc:
                                        acc = v
                                else:
                                    acc += v
                                fx += 1
                            fy += 1
                        if not is_max:
                            if acc > 0:
                                acc = (acc + count // 2) // count
                            else:
                                acc = 0 - ((count // 2 - acc) // count)
                        if acc < act_min:
                            acc = act_min
                        elif acc > act_max:
                            acc = act_max
                        po[o] = acc
                        o += 1
                        ch += 1
                    x += 1
                y += 1
            b += 1

    def avg_pool_s8_fast(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                         pad_left, act_min, act_max):
        """Viper twin of avg_pool_s8_plain."""
        _pool_s8_fast(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                      pad_left, act_min, act_max, 0)

    def max_pool_s8_fast(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                         pad_left, act_min, act_max):
        """Viper twin of max_pool_s8_plain."""
        _pool_s8_fast(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                      pad_left, act_min, act_max, 1)

avg_pool_s8 = avg_pool_s8_fast or avg_pool_s8_plain
max_pool_s8 = max_pool_s8_fast or max_pool_s8_plain

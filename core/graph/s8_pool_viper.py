"""Viper twins of burn.graph.s8_pool, which imports them where MicroPython compiles them
(a port with a native code emitter) and runs its plain kernels elsewhere."""
# ruff: noqa: F821  (ptr8 is a viper builtin)

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

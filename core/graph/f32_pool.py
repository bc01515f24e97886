"""float32 average and max pooling (NHWC) over the in-bounds cells of each window."""

from .f32_activation import apply_act


def _pool(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left, act,
          is_max):
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            fy0, fy1 = max(0, -y0), min(kh, ih - y0)
            for x in range(ow):
                x0 = x * stride_w - pad_left
                fx0, fx1 = max(0, -x0), min(kw, iw - x0)
                for ch in range(c):
                    acc = None if is_max else 0.0
                    for fy in range(fy0, fy1):
                        row = (b * ih + y0 + fy) * iw + x0
                        for fx in range(fx0, fx1):
                            v = inp[(row + fx) * c + ch]
                            if not is_max:
                                acc += v
                            elif acc is None or v > acc:
                                acc = v
                    if not is_max:
                        acc /= (fy1 - fy0) * (fx1 - fx0)
                    out[o] = apply_act(acc, act)
                    o += 1


def avg_pool_f32(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                 pad_left, act):
    """float32 average pool (padding cells are not counted)."""
    _pool(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left, act,
          False)


def max_pool_f32(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                 pad_left, act):
    """float32 max pool."""
    _pool(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left, act,
          True)

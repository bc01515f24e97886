"""int16 average and max pooling (NHWC), as TFLM's reference integer pooling for int16:
windows cover only in-bounds cells; the mean rounds half away from zero."""

from .s16_arith import clamp


def _pool(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
          act_min, act_max, average):
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            fy0, fy1 = max(0, -y0), min(kh, ih - y0)
            for x in range(ow):
                x0 = x * stride_w - pad_left
                fx0, fx1 = max(0, -x0), min(kw, iw - x0)
                count = (fy1 - fy0) * (fx1 - fx0)
                for ch in range(c):
                    acc = 0 if average else -32768
                    for fy in range(fy0, fy1):
                        row = (b * ih + y0 + fy) * iw + x0
                        for fx in range(fx0, fx1):
                            v = inp[(row + fx) * c + ch]
                            if average:
                                acc += v
                            elif v > acc:
                                acc = v
                    if average:
                        acc = (acc + count // 2) // count if acc > 0 else \
                            -((count // 2 - acc) // count)
                    out[o] = clamp(acc, act_min, act_max)
                    o += 1


def avg_pool_s16(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                 pad_left, act_min, act_max):
    """The mean of each window's in-bounds cells, clamped."""
    _pool(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
          act_min, act_max, True)


def max_pool_s16(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top,
                 pad_left, act_min, act_max):
    """The largest of each window's in-bounds cells, clamped."""
    _pool(inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w, pad_top, pad_left,
          act_min, act_max, False)

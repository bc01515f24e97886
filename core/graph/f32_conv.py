"""float32 2-D convolution (NHWC, OHWI weights, groups) with a fused activation."""

from .f32_activation import apply_act


def conv_f32(inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups, stride_h,
             stride_w, dil_h, dil_w, pad_top, pad_left, act):
    """float32 conv; bias may be None. See burn.graph for the argument table."""
    gic = ic // groups
    goc = oc // groups
    wstride = kh * kw * gic
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            for x in range(ow):
                x0 = x * stride_w - pad_left
                for c in range(oc):
                    cin0 = (c // goc) * gic
                    acc = 0.0 if bias is None else bias[c]
                    for fy in range(kh):
                        iy = y0 + fy * dil_h
                        if iy < 0 or iy >= ih:
                            continue
                        for fx in range(kw):
                            ix = x0 + fx * dil_w
                            if ix < 0 or ix >= iw:
                                continue
                            ib = ((b * ih + iy) * iw + ix) * ic + cin0
                            wb = c * wstride + (fy * kw + fx) * gic
                            for k in range(gic):
                                acc += inp[ib + k] * w[wb + k]
                    out[o] = apply_act(acc, act)
                    o += 1

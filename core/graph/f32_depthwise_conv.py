"""float32 depthwise convolution (NHWC, weights [1, kh, kw, ic * depth_mult])."""

from .f32_activation import apply_act


def depthwise_conv_f32(inp, w, bias, out, n, ih, iw, ic, oh, ow, depth_mult, kh, kw,
                       stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act):
    """float32 depthwise conv; bias may be None. See burn.graph for the argument table."""
    oc = ic * depth_mult
    o = 0
    for b in range(n):
        for y in range(oh):
            y0 = y * stride_h - pad_top
            for x in range(ow):
                x0 = x * stride_w - pad_left
                for c in range(oc):
                    ci = c // depth_mult
                    acc = 0.0 if bias is None else bias[c]
                    for fy in range(kh):
                        iy = y0 + fy * dil_h
                        if iy < 0 or iy >= ih:
                            continue
                        for fx in range(kw):
                            ix = x0 + fx * dil_w
                            if 0 <= ix < iw:
                                acc += (inp[((b * ih + iy) * iw + ix) * ic + ci]
                                        * w[(fy * kw + fx) * oc + c])
                    out[o] = apply_act(acc, act)
                    o += 1

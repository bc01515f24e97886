"""2-D convolution over flat NCHW arrays (OIHW weights, groups, stride, dilation, padding).

`conv2d(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, groups)`:
x is [n, c, h, wd], w is [o, c // groups, kh, kw], bias an array of length o or None,
out is [n, o, oh, ow]. Zero padding: `pt` rows on top and `pl` columns on the left; the
bottom/right padding is whatever oh/ow imply. Int inputs give exact sums stored into an
'i' `out`, wrapped to int32 like C.
"""

from burn.kernels.common import ON_MICROPYTHON, put, typecode


def _span(off, sw, ow, wd):
    """For input column ix = ox * sw + off: the output columns [ox0, ox1) whose ix lies
    inside [0, wd), and the ix of the first one."""
    ox0 = max(0, (sw - 1 - off) // sw)
    ox1 = max(ox0, min(ow, (wd - 1 - off) // sw + 1))
    return ox0, ox1, ox0 * sw + off


def conv2d_plain(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                 groups):
    """Reference conv2d: each output row accumulates weight * input-row segments."""
    tc = typecode(out)
    zero = 0.0 if tc == "f" else 0
    cpg = c // groups
    opg = o // groups
    spans = [_span(kx * dw - pl, sw, ow, wd) for kx in range(kw)]
    for b in range(n):
        for oc in range(o):
            xg = (b * c + (oc // opg) * cpg) * h * wd
            start = zero if bias is None else bias[oc]
            for oy in range(oh):
                acc = [start] * ow
                for ci in range(cpg):
                    xc = xg + ci * h * wd
                    wc = (oc * cpg + ci) * kh * kw
                    for ky in range(kh):
                        iy = oy * sh - pt + ky * dh
                        if iy < 0 or iy >= h:
                            continue
                        for kx in range(kw):
                            ox0, ox1, ix0 = spans[kx]
                            if ox0 == ox1:
                                continue
                            wv = w[wc + ky * kw + kx]
                            s = xc + iy * wd + ix0
                            if sw == 1:
                                seg = x[s:s + ox1 - ox0]
                            else:
                                seg = [x[i] for i in range(s, s + (ox1 - ox0) * sw, sw)]
                            acc[ox0:ox1] = [r + wv * v for r, v in zip(acc[ox0:ox1], seg)]
                put(out, tc, ((b * o + oc) * oh + oy) * ow, acc)


conv2d = conv2d_plain

if ON_MICROPYTHON:
    try:  # a port without native code (webassembly) cannot compile the twin
        from burn.kernels.conv_viper import conv2d_fast

        conv2d = conv2d_fast
    except SyntaxError:
        pass

"""MicroPython twin of `burn.kernels.conv`: viper for int8/uint8, native for float.

Imported only on MicroPython. Integer results equal `conv2d_plain` exactly.
"""

from array import array

import micropython

from burn.kernels.common import typecode
from burn.kernels.conv import conv2d_plain


@micropython.viper
def _conv_bytes(x, w, out, dims, bias):
    # dims: n c h wd o kh kw oh ow sh sw pt pl dh dw groups signbit; bias: 'i' array [o].
    d = ptr32(dims)  # noqa: F821
    n = int(d[0])
    c = int(d[1])
    h = int(d[2])
    wd = int(d[3])
    o = int(d[4])
    kh = int(d[5])
    kw = int(d[6])
    oh = int(d[7])
    ow = int(d[8])
    sh = int(d[9])
    sw = int(d[10])
    pt = int(d[11])
    pl = int(d[12])
    dh = int(d[13])
    dw = int(d[14])
    cpg = c // int(d[15])
    opg = o // int(d[15])
    sx = int(d[16])
    px = ptr8(x)  # noqa: F821
    pw = ptr8(w)  # noqa: F821
    po = ptr32(out)  # noqa: F821
    pbias = ptr32(bias)  # noqa: F821
    hw = h * wd
    q = 0
    for b in range(n):
        for oc in range(o):
            xg = (b * c + (oc // opg) * cpg) * hw
            wo = oc * cpg * kh * kw
            for oy in range(oh):
                iy0 = oy * sh - pt
                for ox in range(ow):
                    ix0 = ox * sw - pl
                    acc = pbias[oc]
                    for ci in range(cpg):
                        xc = xg + ci * hw
                        wc = wo + ci * kh * kw
                        for ky in range(kh):
                            iy = iy0 + ky * dh
                            if iy >= 0 and iy < h:
                                xr = xc + iy * wd
                                wr = wc + ky * kw
                                for kx in range(kw):
                                    ix = ix0 + kx * dw
                                    if ix >= 0 and ix < wd:
                                        acc += (((px[xr + ix] ^ sx) - sx)
                                                * ((pw[wr + kx] ^ sx) - sx))
                    po[q] = acc
                    q += 1


@micropython.native
def _conv_float(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                groups):
    cpg = c // groups
    opg = o // groups
    hw = h * wd
    q = 0
    for b in range(n):
        for oc in range(o):
            xg = (b * c + (oc // opg) * cpg) * hw
            # This filter's weights as a list: float objects made once, not once per tap.
            wl = list(w[oc * cpg * kh * kw:(oc + 1) * cpg * kh * kw])
            start = 0.0 if bias is None else bias[oc]
            for oy in range(oh):
                iy0 = oy * sh - pt
                for ox in range(ow):
                    ix0 = ox * sw - pl
                    acc = start
                    for ci in range(cpg):
                        xc = xg + ci * hw
                        wc = ci * kh * kw
                        for ky in range(kh):
                            iy = iy0 + ky * dh
                            if 0 <= iy < h:
                                xr = xc + iy * wd
                                wr = wc + ky * kw
                                for kx in range(kw):
                                    ix = ix0 + kx * dw
                                    if 0 <= ix < wd:
                                        acc += x[xr + ix] * wl[wr + kx]
                    out[q] = acc
                    q += 1


def conv2d_fast(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                groups):
    """Same contract as `conv2d_plain`; int8/uint8 and float arrays take compiled loops."""
    tc = typecode(x)
    if tc == "f":
        _conv_float(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                    groups)
    elif tc in "bB" and typecode(out) == "i":
        dims = array("i", [n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, groups,
                           128 if tc == "b" else 0])
        # int32 bias: ptr32 loads may zero-extend on 64-bit hosts, harmless since the
        # 32-bit store keeps only the low bits of the sum.
        b32 = array("i", bytes(4 * o)) if bias is None else array("i", bias)
        _conv_bytes(x, w, out, dims, b32)
    else:
        conv2d_plain(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                     groups)

"""MicroPython twin of `burn.kernels.pool`: viper for int8/uint8, native for float.

Imported only on MicroPython. Integer results equal `pool2d_plain` exactly.
"""

from array import array

import micropython

from burn.kernels.common import typecode
from burn.kernels.pool import LOWEST, pool2d_plain


@micropython.viper
def _pool_bytes(x, out, dims):
    # dims: planes h wd kh kw oh ow sh sw pt pl dh dw is_max count_include_pad pb pr signbit
    d = ptr32(dims)  # noqa: F821
    planes = int(d[0])
    h = int(d[1])
    wd = int(d[2])
    kh = int(d[3])
    kw = int(d[4])
    oh = int(d[5])
    ow = int(d[6])
    sh = int(d[7])
    sw = int(d[8])
    pt = int(d[9])
    pl = int(d[10])
    dh = int(d[11])
    dw = int(d[12])
    is_max = int(d[13])
    incl = int(d[14])
    hend = h + int(d[15])
    wend = wd + int(d[16])
    sx = int(d[17])
    px = ptr8(x)  # noqa: F821
    po = ptr8(out)  # noqa: F821
    low = 0 - sx
    q = 0
    for plane in range(planes):
        base = plane * h * wd
        for oy in range(oh):
            iy0 = oy * sh - pt
            for ox in range(ow):
                ix0 = ox * sw - pl
                acc = low if is_max else 0
                cnt = 0
                ny = 0
                nx = 0
                for ky in range(kh):
                    iy = iy0 + ky * dh
                    if iy < hend:
                        ny += 1
                    if iy >= 0 and iy < h:
                        for kx in range(kw):
                            ix = ix0 + kx * dw
                            if ix >= 0 and ix < wd:
                                v = (px[base + iy * wd + ix] ^ sx) - sx
                                cnt += 1
                                if is_max:
                                    if v > acc:  # no boxing in viper
                                        acc = v
                                else:
                                    acc += v
                if not is_max:
                    if incl:
                        for kx in range(kw):
                            if ix0 + kx * dw < wend:
                                nx += 1
                        cnt = ny * nx
                    if cnt == 0:
                        acc = 0
                    elif acc >= 0:
                        acc = (acc + cnt // 2) // cnt
                    else:
                        acc = 0 - (0 - acc + cnt // 2) // cnt
                po[q] = acc
                q += 1


@micropython.native
def _pool_float(is_max, x, out, planes, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                incl, hend, wend):
    q = 0
    for plane in range(planes):
        base = plane * h * wd
        for oy in range(oh):
            iy0 = oy * sh - pt
            ny = 0
            for ky in range(kh):
                if iy0 + ky * dh < hend:
                    ny += 1
            for ox in range(ow):
                ix0 = ox * sw - pl
                acc = LOWEST["f"] if is_max else 0.0
                cnt = 0
                for ky in range(kh):
                    iy = iy0 + ky * dh
                    if 0 <= iy < h:
                        r = base + iy * wd
                        for kx in range(kw):
                            ix = ix0 + kx * dw
                            if 0 <= ix < wd:
                                v = x[r + ix]
                                cnt += 1
                                if not is_max:
                                    acc += v
                                elif v > acc or v != v:  # NaN wins, as in torch
                                    acc = v
                if not is_max:
                    if incl:
                        nx = 0
                        for kx in range(kw):
                            if ix0 + kx * dw < wend:
                                nx += 1
                        cnt = ny * nx
                    acc = acc / cnt if cnt else 0.0
                out[q] = acc
                q += 1


def pool2d_fast(is_max, x, out, n, c, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                count_include_pad, pb=None, pr=None):
    """Same contract as `pool2d_plain`; int8/uint8 and float arrays take compiled loops."""
    tc = typecode(x)
    hend = h + (pt if pb is None else pb)
    wend = wd + (pl if pr is None else pr)
    if tc == "f":
        _pool_float(is_max, x, out, n * c, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                    count_include_pad, hend, wend)
    elif tc in "bB":
        dims = array("i", [n * c, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                           1 if is_max else 0, 1 if count_include_pad else 0,
                           hend - h, wend - wd, 128 if tc == "b" else 0])
        _pool_bytes(x, out, dims)
    else:
        pool2d_plain(is_max, x, out, n, c, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                     count_include_pad, pb, pr)

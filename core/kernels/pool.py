"""2-D max and average pooling over flat NCHW arrays.

`pool2d(is_max, x, out, n, c, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
count_include_pad, pb=None, pr=None)`: windows of kh x kw taps (dilation dh, dw) start at
(oy * sh - pt, ox * sw - pl). Max ignores padded taps (a window with no real tap gives the
lowest value of the type). Average divides by the number of taps inside the padded input
(rows [-pt, h + pb), columns [-pl, wd + pr); pb/pr default to pt/pl) when
count_include_pad, else by the number of real taps; integer averages round half away from
zero. `out` has the typecode of `x`.
"""

from burn.kernels.common import ON_MICROPYTHON, put, typecode

# -inf made at run time: a constant-folded infinity cannot be frozen into firmware (mpy-tool
# writes it into C as the bare word `inf`).
LOWEST = {"f": float("-inf"), "b": -128, "B": 0, "i": -2147483648}


def div_round(s, cnt):
    """Integer s / cnt rounded half away from zero (0 when cnt is 0)."""
    if cnt == 0:
        return 0
    q = (abs(s) + cnt // 2) // cnt
    return q if s >= 0 else -q


def _taps(start, k, d, size, pad_after, scale):
    """Real tap positions (times `scale`) of a window starting at `start`, and the number
    of taps inside the padded range."""
    pos = [start + t * d for t in range(k)]
    real = [p * scale for p in pos if 0 <= p < size]
    return real, len([p for p in pos if p < size + pad_after])


def pool2d_plain(is_max, x, out, n, c, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw,
                 count_include_pad, pb=None, pr=None):
    """Reference pooling: gathers each window's real taps, then takes max or mean."""
    tc = typecode(out)
    rows = [_taps(oy * sh - pt, kh, dh, h, pt if pb is None else pb, wd) for oy in range(oh)]
    cols = [_taps(ox * sw - pl, kw, dw, wd, pl if pr is None else pr, 1) for ox in range(ow)]
    low = LOWEST[tc]
    for plane in range(n * c):
        base = plane * h * wd
        res = []
        for iys, ny in rows:
            for ixs, nx in cols:
                vals = [x[base + r + ix] for r in iys for ix in ixs]
                if is_max:
                    m = low
                    for v in vals:
                        if v > m or v != v:  # NaN wins, as in torch
                            m = v
                    res.append(m)
                else:
                    cnt = ny * nx if count_include_pad else len(vals)
                    if tc == "f":
                        res.append(sum(vals) / cnt if cnt else 0.0)
                    else:
                        res.append(div_round(sum(vals), cnt))
        put(out, tc, plane * oh * ow, res)


pool2d = pool2d_plain

if ON_MICROPYTHON:
    try:  # a port without native code (webassembly) cannot compile the twin
        from burn.kernels.pool_viper import pool2d_fast

        pool2d = pool2d_fast
    except SyntaxError:
        pass

"""The matmul/conv2d/pool2d kernels against direct-formula references, and the plain
kernels against their compiled MicroPython twins (which exist only on MicroPython).

MicroPython-safe: runs under CPython and the MicroPython unix port.
"""

from array import array

from checks import ON_MICROPYTHON, micropython_only

from burn.kernels import conv, matmul, pool

_STATE = [2024]


def rand_ints(n, lo, hi):
    """`n` pseudo-random ints in [lo, hi] from a small LCG (same on both interpreters)."""
    out = []
    s = _STATE[0]
    for _ in range(n):
        s = (s * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(lo + (s >> 8) % (hi - lo + 1))
    _STATE[0] = s
    return out


def make(tc, n):
    """A random array of typecode `tc` with `n` elements (floats are multiples of 1/8)."""
    if tc == "f":
        return array("f", [v / 8 for v in rand_ints(n, -64, 64)])
    lo, hi = {"b": (-128, 127), "B": (0, 255), "i": (-1000, 1000)}[tc]
    return array(tc, rand_ints(n, lo, hi))


def zeros(tc, n):
    return array(tc, bytes(n * (1 if tc in "bB" else 4)))


def wrap32(v):
    return ((v + 2 ** 31) % 2 ** 32) - 2 ** 31


def assert_close(got, want, tol=1e-4):
    assert len(got) == len(want)
    for i in range(len(want)):
        assert abs(got[i] - want[i]) <= tol * max(1.0, abs(want[i])), (i, got[i], want[i])


# -- references: one output element at a time, straight from the definitions ------------

def ref_matmul(a, b, batch, m, k, n, sa, sb):
    return [sum([a[t * sa + i * k + p] * b[t * sb + p * n + j] for p in range(k)])
            for t in range(batch) for i in range(m) for j in range(n)]


def ref_conv(x, w, bias, n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, g):
    cpg = c // g
    res = []
    for b in range(n):
        for oc in range(o):
            grp = oc // (o // g)
            for oy in range(oh):
                for ox in range(ow):
                    s = 0 if bias is None else bias[oc]
                    for ci in range(cpg):
                        for ky in range(kh):
                            for kx in range(kw):
                                iy = oy * sh - pt + ky * dh
                                ix = ox * sw - pl + kx * dw
                                if 0 <= iy < h and 0 <= ix < wd:
                                    xv = x[((b * c + grp * cpg + ci) * h + iy) * wd + ix]
                                    s += xv * w[((oc * cpg + ci) * kh + ky) * kw + kx]
                    res.append(s)
    return res


def ref_pool(is_max, x, planes, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, incl,
             pb, pr, is_float):
    res = []
    for p in range(planes):
        for oy in range(oh):
            for ox in range(ow):
                vals = []
                padded = 0
                for ky in range(kh):
                    for kx in range(kw):
                        iy = oy * sh - pt + ky * dh
                        ix = ox * sw - pl + kx * dw
                        if iy < h + pb and ix < wd + pr:
                            padded += 1
                        if 0 <= iy < h and 0 <= ix < wd:
                            vals.append(x[(p * h + iy) * wd + ix])
                if is_max:
                    res.append(max(vals))
                    continue
                cnt = padded if incl else len(vals)
                if is_float:
                    res.append(sum(vals) / cnt)
                else:
                    # round half away from zero, with exact integer arithmetic
                    q = (2 * abs(sum(vals)) + cnt) // (2 * cnt)
                    res.append(q if sum(vals) >= 0 else -q)
    return res


# -- plain kernels -----------------------------------------------------------------------

def test_matmul_plain_hand_example():
    a = array("f", [1, 2, 3, 4, 5, 6])
    b = array("f", [7, 8, 9, 10, 11, 12])
    out = zeros("f", 4)
    matmul.matmul_plain(a, b, out, 1, 2, 3, 2, 0, 0)
    assert list(out) == [58.0, 64.0, 139.0, 154.0]


def test_matmul_plain_matches_reference():
    for tc in ("f", "b", "B", "i"):
        for batch, m, k, n, share in ((1, 3, 4, 5, None), (3, 2, 3, 2, "a"),
                                      (2, 4, 1, 3, "b"), (2, 1, 5, 1, None)):
            sa = 0 if share == "a" else m * k
            sb = 0 if share == "b" else k * n
            a = make(tc, (1 if share == "a" else batch) * m * k)
            b = make(tc, (1 if share == "b" else batch) * k * n)
            out = zeros("f" if tc == "f" else "i", batch * m * n)
            matmul.matmul_plain(a, b, out, batch, m, k, n, sa, sb)
            want = ref_matmul(a, b, batch, m, k, n, sa, sb)
            if tc == "f":
                assert_close(out, want)
            else:
                assert list(out) == want, (tc, batch, m, k, n)


def test_matmul_plain_wraps_int32():
    a = array("i", [2 ** 30, 2 ** 30])
    b = array("i", [4, 3])
    out = zeros("i", 1)
    matmul.matmul_plain(a, b, out, 1, 1, 2, 1, 0, 0)
    assert list(out) == [wrap32(7 * 2 ** 30)]


CONV_CASES = (
    # n c h wd o kh kw sh sw pt pb pl pr dh dw groups
    (1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1),
    (2, 3, 6, 5, 4, 3, 2, 2, 1, 1, 1, 2, 0, 1, 2, 1),
    (1, 4, 7, 6, 6, 3, 3, 1, 2, 2, 1, 1, 1, 2, 1, 2),
    (1, 4, 5, 5, 4, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 4),
    (1, 2, 3, 3, 2, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1),
)


def conv_args(case):
    n, c, h, wd, o, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, g = case
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    return n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, g


def test_conv2d_plain_matches_reference():
    for tc in ("f", "b", "B"):
        for case in CONV_CASES:
            args = conv_args(case)
            n, c, h, wd, o, kh, kw, oh, ow = args[:9]
            g = args[-1]
            x = make(tc, n * c * h * wd)
            w = make(tc, o * (c // g) * kh * kw)
            bias = None if case[0] == 1 else make("f" if tc == "f" else "i", o)
            out = zeros("f" if tc == "f" else "i", n * o * oh * ow)
            conv.conv2d_plain(x, w, bias, out, *args)
            want = ref_conv(x, w, bias, *args)
            if tc == "f":
                assert_close(out, want)
            else:
                assert list(out) == want, (tc, case)


POOL_CASES = (
    # planes h wd kh kw sh sw pt pb pl pr dh dw
    (2, 4, 4, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1),
    (3, 5, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1),
    (1, 7, 7, 3, 2, 2, 3, 1, 2, 1, 0, 2, 1),
    (2, 5, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1),
)


def pool_args(case):
    planes, h, wd, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw = case
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    return planes, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw


def run_pool(fn, is_max, x, tc, case, incl):
    planes, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw = pool_args(case)
    out = zeros(tc, planes * oh * ow)
    fn(is_max, x, out, planes, 1, h, wd, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, incl,
       case[8], case[10])
    return out


def test_pool2d_plain_matches_reference():
    for tc in ("f", "b", "B"):
        for case in POOL_CASES:
            planes, h, wd = case[:3]
            x = make(tc, planes * h * wd)
            for is_max in (True, False):
                for incl in (True, False):
                    got = run_pool(pool.pool2d_plain, is_max, x, tc, case, incl)
                    a = pool_args(case)
                    want = ref_pool(is_max, x, *a, incl, case[8], case[10], tc == "f")
                    if tc == "f":
                        assert_close(got, want)
                    else:
                        assert list(got) == want, (tc, case, is_max, incl)


def test_pool2d_plain_integer_average_rounds_half_away_from_zero():
    x = array("b", [1, 2, -1, -2, 3, 3, -3, -4])  # four 1x2 windows in one row
    out = zeros("b", 4)
    pool.pool2d_plain(False, x, out, 1, 1, 1, 8, 1, 2, 1, 4, 1, 2, 0, 0, 1, 1, True)
    assert list(out) == [2, -2, 3, -4]
    assert pool.div_round(7, 2) == 4 and pool.div_round(-7, 2) == -4
    assert pool.div_round(5, 3) == 2 and pool.div_round(-5, 3) == -2


def test_pool2d_plain_default_padding_after_is_symmetric():
    x = array("f", [1.0, 2.0, 3.0])  # 1x3, window 2, stride 2, pad 1 on the left only
    out = zeros("f", 2)
    pool.pool2d_plain(False, x, out, 1, 1, 1, 3, 1, 2, 1, 2, 1, 2, 0, 1, 1, 1, True)
    assert list(out) == [0.5, 2.5]  # [pad, 1] / 2 and [2, 3] / 2


def test_max_pool_propagates_nan():
    nan = float("inf") - float("inf")
    x = array("f", [1.0, nan, 3.0, 4.0])
    out = zeros("f", 1)
    pool.pool2d_plain(True, x, out, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 0, 0, 1, 1, True)
    assert out[0] != out[0]


# -- plain vs fast -------------------------------------------------------------------------

def test_active_kernels_are_the_fast_ones_only_on_micropython():
    for mod, name in ((matmul, "matmul"), (conv, "conv2d"), (pool, "pool2d")):
        fast = getattr(mod, name + "_fast", None)
        if ON_MICROPYTHON:
            assert fast is not None and getattr(mod, name) is fast
        else:
            assert fast is None and getattr(mod, name) is getattr(mod, name + "_plain")


def _agree(got, want, tc):
    if tc == "f":
        assert_close(got, want, 1e-5)
    else:
        assert list(got) == list(want)


def test_fast_matmul_agrees_with_plain():
    micropython_only()
    for tc in ("f", "b", "B", "i"):
        for batch, m, k, n, sa, sb in ((1, 5, 7, 3, 0, 0), (3, 2, 4, 2, 8, 0),
                                       (2, 3, 2, 4, 0, 8)):
            a = make(tc, (batch if sa else 1) * m * k)
            b = make(tc, (batch if sb else 1) * k * n)
            otc = "f" if tc == "f" else "i"
            o1 = zeros(otc, batch * m * n)
            o2 = zeros(otc, batch * m * n)
            matmul.matmul_plain(a, b, o1, batch, m, k, n, sa, sb)
            matmul.matmul_fast(a, b, o2, batch, m, k, n, sa, sb)
            _agree(o2, o1, tc)


def test_fast_conv2d_agrees_with_plain():
    micropython_only()
    for tc in ("f", "b", "B"):
        for case in CONV_CASES:
            args = conv_args(case)
            n, c, h, wd, o, kh, kw, oh, ow = args[:9]
            x = make(tc, n * c * h * wd)
            w = make(tc, o * (c // args[-1]) * kh * kw)
            bias = None if case[0] == 1 else make("f" if tc == "f" else "i", o)
            otc = "f" if tc == "f" else "i"
            o1 = zeros(otc, n * o * oh * ow)
            o2 = zeros(otc, n * o * oh * ow)
            conv.conv2d_plain(x, w, bias, o1, *args)
            conv.conv2d_fast(x, w, bias, o2, *args)
            _agree(o2, o1, tc)


def test_fast_pool2d_agrees_with_plain():
    micropython_only()
    for tc in ("f", "b", "B"):
        for case in POOL_CASES:
            x = make(tc, case[0] * case[1] * case[2])
            for is_max in (True, False):
                for incl in (True, False):
                    _agree(run_pool(pool.pool2d_fast, is_max, x, tc, case, incl),
                           run_pool(pool.pool2d_plain, is_max, x, tc, case, incl), tc)

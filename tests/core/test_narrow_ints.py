"""Kernels that stay within small ints on a 32-bit MicroPython (31-bit small ints): the
15-bit-limb requantization equals the exact one, and the softmax / logistic / tanh twins
(lookup tables) equal the plain kernels, on seeded random and edge cases. MicroPython-safe:
tests/host/test_unix32.py also runs these functions on a 32-bit build of the unix port."""

import gc
from array import array

from checks import ON_MICROPYTHON, micropython_only
from test_graph_kernels import Lcg, zeros

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp
from burn.graph import s8_logistic, s8_softmax, s8_tanh
from burn.graph.s8_lookup import lookup_s8_plain

EDGES_X = (fp.INT32_MIN, fp.INT32_MAX, 0, 1, -1, 0x3FFFFFFF, -0x3FFFFFFF, -0x40000000,
           0x40000000, 0x20000000, -0x20000000, 0x1FFFFFFF, -0x1FFFFFFF, 12345, -12345)
EDGES_M = (0, 1, 0x3FFFFFFF, 0x40000000, 0x40000001, 0x7FFFFFFF, 0x5A827999, 0x20000000)


def _x(rng):
    # int32 values of every magnitude: a random 31-bit value shifted right by 0..31.
    v = (rng.next(0, 0x7FFF) << 16) | rng.next(0, 0xFFFF)
    v >>= rng.next(0, 31)
    return -v - rng.next(0, 1) if rng.next(0, 1) else v


def _check_limbs(x, m, shift):
    want = fp.multiply_by_quantized_multiplier(x, m, shift)
    got = fp.mbqm_limbs(x, m - 0x3FFFFFFF - 1, shift)
    assert got == want, (x, m, shift, got, want)


def test_limb_requantization_matches_exact():
    for x in EDGES_X:
        for m in EDGES_M:
            for shift in (-31, -30, -29, -16, -1, 0, 1, 2, 15, 30, 31):
                _check_limbs(x, m, shift)
    rng = Lcg(11)
    for _ in range(3000):
        m = (rng.next(0, 0x7FFF) << 16) | rng.next(0, 0xFFFF)
        _check_limbs(_x(rng), m, rng.next(-31, 31))
    # ties: x * m an odd multiple of 2**30 (srdhm) or of 2**(e - 1) (the rounding shift)
    for x in range(-300, 301):
        for m in (0x40000000, 0x60000000, 0x7FFFFFFF):
            for shift in (-31, -30, -3, -1, 0, 3):
                _check_limbs(x, m, shift)


def test_requantize_channel_reads_offsets():
    mult = array("i", [0x40000000, 0x7FFFFFFF, 0x55555555])
    off = fp.multiplier_offsets(mult)
    assert list(off) == [0, 0x3FFFFFFF, 0x15555555]
    shift = array("i", [1, -3, -31])
    bias = array("i", [10, -20, 30])
    for c in range(3):
        want = fp.multiply_by_quantized_multiplier(1000 + bias[c], mult[c], shift[c]) + 5
        want = max(-128, min(127, want))
        assert fp.requantize_channel(1000, bias, off, shift, c, 5, -128, 127) == want


def _run(kernel, n, *args):
    out = zeros(n)
    kernel(*args[:1] + (out,) + args[1:])
    return list(out)


def test_lookup_twins_match_plain():
    """softmax, logistic and tanh: 40 seeded cases each. On MicroPython the viper twins run
    (with the runtime's table and with the table made on the call); on CPython the same
    tables run through the plain lookup."""
    rng = Lcg(5)
    scales = (0.001, 0.01, 0.05, 0.1, 0.3, 1.0, 4.0)
    for case in range(40):
        rows, depth = rng.next(1, 4), rng.next(1, 40)
        x = rng.s8(rows * depth)
        if case % 3 == 0:  # near-ties and repeats
            x = array("b", [rng.next(-3, 3) - 100 * rng.next(0, 1) for _ in x])
        p = qp.softmax_params((0.5, 1.0, 2.0)[case % 3], scales[rng.next(0, 6)])
        want = _run(s8_softmax.softmax_s8_plain, len(x), x, rows, depth, *p)
        table = s8_softmax.softmax_table(*p)
        assert table[0] == fp.INT32_MAX  # exp(0)
        if ON_MICROPYTHON:
            assert _run(s8_softmax.softmax_s8_fast, len(x), x, rows, depth, *p) == want
            assert _run(s8_softmax.softmax_s8_fast, len(x), x, rows, depth, *p + (table,)) \
                == want
        for mod, kind, params in ((s8_logistic, "logistic", qp.logistic_params),
                                  (s8_tanh, "tanh", qp.tanh_params)):
            n = rng.next(1, 300)
            x = rng.s8(n)
            p = (rng.next(-128, 127),) + params(scales[rng.next(0, 6)] * rng.next(1, 5))
            want = _run(getattr(mod, kind + "_s8_plain"), n, x, n, *p)
            table = getattr(mod, kind + "_table")(*p)
            assert _run(lookup_s8_plain, n, x, n, table) == want, kind
            if ON_MICROPYTHON:
                fast = getattr(mod, kind + "_s8_fast")
                assert _run(fast, n, x, n, *p) == want, kind
                assert _run(fast, n, x, n, *p + (table,)) == want, kind


def test_lookup_twins_allocate_nothing():
    micropython_only()
    x = Lcg(3).s8(48)
    out = zeros(48)
    sp = qp.softmax_params(1.0, 0.1)
    lp = (3,) + qp.logistic_params(0.05)
    calls = ((s8_softmax.softmax_s8_fast, (x, out, 4, 12) + sp,
              s8_softmax.softmax_table(*sp)),
             (s8_logistic.logistic_s8_fast, (x, out, 48) + lp, s8_logistic.logistic_table(*lp)),
             (s8_tanh.tanh_s8_fast, (x, out, 48) + lp, s8_tanh.tanh_table(*lp)))
    for fn, args, table in calls:
        args += (table,)
        fn(*args)
        gc.collect()
        before = gc.mem_alloc()
        fn(*args)
        assert gc.mem_alloc() - before == 0, fn

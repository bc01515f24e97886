"""burn.graph kernels: TFLM fixed-point rules, hand-computed cases, plain == viper, and no
allocation in the int8 kernels (the last two on MicroPython only). MicroPython-safe."""

import gc
import sys
from array import array

from checks import micropython_only

from burn.graph import fixedpoint as fp
from burn.graph import layout
from burn.graph.s8_add import add_s8, add_s8_fast, add_s8_plain
from burn.graph.s8_conv import conv_s8, conv_s8_fast, conv_s8_plain
from burn.graph.s8_depthwise_conv import (
    depthwise_conv_s8,
    depthwise_conv_s8_fast,
    depthwise_conv_s8_plain,
)
from burn.graph.s8_fully_connected import (
    fully_connected_s8,
    fully_connected_s8_fast,
    fully_connected_s8_plain,
)
from burn.graph.s8_logistic import logistic_s8, logistic_s8_fast, logistic_s8_plain
from burn.graph.s8_mean import mean_s8, mean_s8_fast, mean_s8_plain
from burn.graph.s8_mul import mul_s8, mul_s8_fast, mul_s8_plain
from burn.graph.s8_pool import (
    avg_pool_s8,
    avg_pool_s8_fast,
    avg_pool_s8_plain,
    max_pool_s8,
    max_pool_s8_fast,
    max_pool_s8_plain,
)
from burn.graph.s8_quantize import (
    clamp_s8_fast,
    clamp_s8_plain,
    dequantize_s8,
    quantize_s8,
    requantize_s8_fast,
    requantize_s8_plain,
)
from burn.graph.s8_softmax import softmax_s8, softmax_s8_fast, softmax_s8_plain
from burn.graph.s8_tanh import tanh_s8, tanh_s8_fast, tanh_s8_plain

try:
    from burn.graph import quant_params as qp
except ImportError:  # a firmware freezes only the modules its kernels import; the board
    import quant_params as qp  # test puts this host-side module beside this file

ONE_MULT, ONE_SHIFT = 1 << 30, 1  # the Q31 encoding of exactly 1.0


class Lcg:
    """Tiny seeded generator (the same numbers on CPython and MicroPython)."""

    def __init__(self, seed):
        self.s = seed

    def next(self, lo, hi):
        self.s = (self.s * 1103515245 + 12345) & 0x7FFFFFFF
        return lo + (self.s >> 8) % (hi - lo + 1)

    def s8(self, n):
        return array("b", [self.next(-128, 127) for _ in range(n)])


def zeros(n):
    return array("b", bytes(n))


# ---- fixed-point rules, worked from the definitions in TFLM / gemmlowp ----------------------

def test_srdhm_rounding_and_saturation():
    srdhm = fp.saturating_rounding_doubling_high_mul
    assert srdhm(fp.INT32_MIN, fp.INT32_MIN) == fp.INT32_MAX
    assert srdhm(3, 1 << 30) == 2          # 1.5: nudge 2**30, then floor -> 2
    assert srdhm(-3, 1 << 30) == -1        # -1.5: nudge 1 - 2**30, truncation -> -1
    assert srdhm(5, 1 << 30) == 3          # 2.5 -> 3
    assert srdhm(1 << 30, 1 << 30) == 1 << 29
    assert srdhm(fp.INT32_MAX, fp.INT32_MAX) == fp.INT32_MAX - 1


def test_rounding_divide_by_pot_is_half_away_from_zero():
    rdbp = fp.rounding_divide_by_pot
    assert [rdbp(x, 1) for x in (5, -5, 3, -3, 4, -4)] == [3, -3, 2, -2, 2, -2]
    assert [rdbp(x, 2) for x in (6, -6, 5, -5, 7, -7)] == [2, -2, 1, -1, 2, -2]
    assert rdbp(123, 0) == 123


def test_multiply_by_quantized_multiplier():
    mbqm = fp.multiply_by_quantized_multiplier
    assert mbqm(100, 1 << 30, 0) == 50               # x * 0.5
    assert mbqm(77, ONE_MULT, ONE_SHIFT) == 77        # x * 1.0 is exact
    assert mbqm(-77, ONE_MULT, ONE_SHIFT) == -77
    assert mbqm(3, 1 << 30, -1) == 1                  # 0.75 -> 1 after srdhm 2, rdbp(2, 1)
    assert mbqm(-3, 1 << 30, -1) == -1                # srdhm -1, then rdbp(-1, 1) = -1
    assert mbqm(1000, 1 << 30, -3) == 63              # 62.5 rounds away from zero
    assert mbqm(-1000, 1 << 30, -3) == -63


def test_quantize_multiplier():
    q = qp.quantize_multiplier
    assert q(0.5) == (1 << 30, 0)
    assert q(1.0) == (1 << 30, 1)
    assert q(0.25) == (1 << 30, -1)
    assert q(0.75) == (3 << 29, 0)
    assert q(0.0) == (0, 0)
    assert q(2.0 ** -40) == (0, 0)                   # shift below -31 flushes to zero
    assert q(1.0 - 2.0 ** -40) == (1 << 30, 1)       # rounds up to 2**31: halved, shift + 1


def test_viper_multiplier_matches_plain_on_edges():
    micropython_only()
    from burn.graph.fixedpoint_viper import mbqm_fast

    rng = Lcg(5)
    xs = [0, 1, -1, fp.INT32_MAX, fp.INT32_MIN, 1 << 30, -(1 << 30), 12345, -12345]
    ms = [0, 1 << 30, fp.INT32_MAX, 1518500250]
    for _ in range(40 if sys.platform == "rp2" else 300):  # an emulated RP2040 is slow
        xs.append(rng.next(-2147483647, 2147483647))
        ms.append(rng.next(1 << 30, fp.INT32_MAX))
    for x in xs:
        for m in ms[:12]:
            for s in (-31, -20, -7, -1, 0):
                want = fp.multiply_by_quantized_multiplier(x, m, s)
                assert mbqm_fast(x, m - (1 << 30), s) == want, (x, m, s)


def test_activation_range():
    assert qp.quant_activation_range(fp.ACT_NONE, 0.1, 3) == (-128, 127)
    assert qp.quant_activation_range(fp.ACT_RELU, 0.1, -20) == (-20, 127)
    assert qp.quant_activation_range(fp.ACT_RELU6, 0.1, -20) == (-20, 40)
    assert qp.quant_activation_range(fp.ACT_RELU6, 0.01, 0) == (0, 127)
    assert qp.quant_activation_range(fp.ACT_RELU_N1_TO_1, 0.5, 0) == (-2, 2)


# ---- hand-computed kernel cases (multiplier exactly 1.0, so results are exact integers) ------

def test_conv_hand_computed():
    inp = array("b", [1, 2, 3, 4, 5, 6, 7, 8, 9])        # 1x3x3x1, zero point 1
    w = bytes([1, 0, 0, 255])                             # 2x2 weights [1, 0; 0, -1]
    out = zeros(4)
    conv_s8(inp, w, array("i", [10]), array("i", [ONE_MULT]), array("i", [ONE_SHIFT]), out,
            1, 3, 3, 1, 2, 2, 1, 2, 2, 1, 1, 1, 1, 1, 0, 0, 1, -3, -128, 127)
    # (a - 1) - (d - 1) = a - d = -4 for every window; + bias 10 + out_zp -3 = 3
    assert list(out) == [3, 3, 3, 3]


def test_conv_same_padding_reads_zero_point():
    inp = array("b", [5, 5, 5, 5])                        # 1x2x2x1, all at zero point 5
    out = zeros(4)
    conv_s8(inp, bytes([1] * 9), array("i", [0]), array("i", [ONE_MULT]),
            array("i", [ONE_SHIFT]), out, 1, 2, 2, 1, 2, 2, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1,
            5, 0, -128, 127)
    assert list(out) == [0, 0, 0, 0]


def test_depthwise_conv_hand_computed():
    inp = array("b", [1, 10, 2, 20])                      # 1x1x2x2 (two channels)
    w = bytes([1, 2, 3, 4, 1, 1, 1, 1])                   # [1, 1, 2, 4]: depth_mult 2
    out = zeros(4)
    depthwise_conv_s8(inp, w, array("i", [0, 0, 0, 0]), array("i", [ONE_MULT] * 4),
                      array("i", [ONE_SHIFT] * 4), out, 1, 1, 2, 2, 1, 1, 2, 1, 2, 1, 1, 1, 1,
                      0, 0, 0, 0, -128, 127)
    # out channel c reads input channel c // 2: [1*1 + 2*1, 1*2 + 2*1, 10*3 + 20, 10*4 + 20]
    assert list(out) == [3, 4, 50, 60]


def test_fully_connected_hand_computed():
    out = zeros(2)
    fully_connected_s8(array("b", [3, -2]), bytes([2, 1, 255, 4]), array("i", [5, -5]),
                       array("i", [ONE_MULT, 1 << 30]), array("i", [ONE_SHIFT, 0]), out,
                       1, 2, 2, 0, 1, -128, 127)
    # [3*2 - 2*1 + 5, (-3 - 8 - 5) * 0.5] + 1 = [10, -8 + 1]
    assert list(out) == [10, -7]


def test_add_mul_hand_computed():
    out = zeros(3)
    params = qp.add_params(0.5, 0.5, 0.5)
    add_s8(array("b", [1, 2, 3]), array("b", [10]), out, 3, 1, 0, params[1], params[2], 0,
           params[3], params[4], 4, params[5], params[6], params[0], -128, 127)
    assert list(out) == [15, 16, 17]
    m, s = qp.mul_params(0.5, 0.5, 0.25)
    mul_s8(array("b", [2, -3, 100]), array("b", [3, 3, 3]), out, 3, 3, 0, 0, 1, m, s,
           -128, 127)
    assert list(out) == [7, -8, 127]


def test_pools_hand_computed():
    inp = array("b", [1, 2, 3, 5, -1, -2, -5, -3])        # 1x2x2x2
    out = zeros(2)
    avg_pool_s8(inp, out, 1, 2, 2, 2, 1, 1, 2, 2, 2, 2, 0, 0, -128, 127)
    assert list(out) == [-1, 1]                           # -2/4 and 2/4 round away from 0
    avg_pool_s8(inp, out, 1, 2, 2, 2, 1, 1, 2, 2, 2, 2, 0, 0, -128, 0)
    assert list(out) == [-1, 0]                           # fused clamp
    max_pool_s8(inp, out, 1, 2, 2, 2, 1, 1, 2, 2, 2, 2, 0, 0, -128, 127)
    assert list(out) == [3, 5]


def test_mean_hand_computed():
    m, s = qp.mean_params(0.1, 0.1, 4)
    out = zeros(2)
    mean_s8(array("b", [1, 10, 2, 20, 3, 30, 5, 41]), out, 1, 4, 2, 0, 0, m, s)
    # 11 / 4 = 2.75 -> 3. 101 / 4 = 25.25 -> 26: TFLM rounds twice (srdhm gives 50.5 -> 51,
    # then the rounding shift 25.5 -> 26), and so do we.
    assert list(out) == [3, 26]


def test_softmax_logistic_tanh_fixed_points():
    out = zeros(4)
    softmax_s8(array("b", [7, 7, 7, 7]), out, 1, 4, *qp.softmax_params(1.0, 0.1))
    assert list(out) == [-64, -64, -64, -64]              # 0.25 * 256 - 128
    logistic_s8(array("b", [9, 127, -128]), out, 3, 9, *qp.logistic_params(0.1))
    assert list(out)[:3] == [0, 127, -128]                # 0.5, ~1, ~0
    tanh_s8(array("b", [9, 127, -128]), out, 3, 9, *qp.tanh_params(0.1))
    assert list(out)[:3] == [0, 127, -128]


def test_quantize_dequantize_round_trip():
    q = zeros(4)
    quantize_s8(array("f", [0.25, -0.25, 0.75, 100.0]), q, 4, 0.5, 1)
    assert list(q) == [2, 0, 3, 127]                      # 0.5 and 1.5 round away from zero
    f = array("f", [0.0] * 4)
    dequantize_s8(q, f, 4, 0.5, 1)
    assert list(f) == [0.5, -0.5, 1.0, 63.0]


def test_layout_ops():
    out = zeros(12)
    layout.pad_s8(array("b", [1, 2, 3, 4]), out, 1, 2, 2, 1, 0, 1, 0, 0, 0, 0, 1, 0, -5)
    assert list(out[:9]) == [-5, -5, -5, 1, 2, -5, 3, 4, -5]
    layout.concat_s8([array("b", [1, 2, 3, 4]), array("b", [9, 8])], array("i", [2, 1]), out,
                     2)
    assert list(out[:6]) == [1, 2, 9, 3, 4, 8]
    f = array("f", [0.0] * 4)
    layout.pad(array("f", [1.5]), f, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0.0)
    assert list(f[:4]) == [0.0, 1.5, 0.0, 0.0]


# ---- plain == viper twin, and no allocation (MicroPython only) -----------------------------

def _out_and_pad(size, k, stride, dil, same):
    # TFLite's SAME / VALID output size and leading padding (burn.graph.geometry, which a
    # default firmware does not freeze: this file also runs on the emulated board)
    span = dil * (k - 1) + 1
    out = (size + stride - 1) // stride if same else (size - span + stride) // stride
    return out, max(0, ((out - 1) * stride + span - size) // 2)


def _conv_args(rng):
    n, ih, iw = rng.next(1, 2), rng.next(1, 6), rng.next(1, 6)
    groups = rng.next(1, 2)
    ic, oc = groups * rng.next(1, 3), groups * rng.next(1, 3)
    kh, kw, sh, sw = rng.next(1, 3), rng.next(1, 3), rng.next(1, 2), rng.next(1, 2)
    dh, dw, same = rng.next(1, 2), rng.next(1, 2), rng.next(0, 1)
    (oh, pt), (ow, pl) = _out_and_pad(ih, kh, sh, dh, same), _out_and_pad(iw, kw, sw, dw, same)
    if oh < 1 or ow < 1:
        return None
    return (n, ih, iw, ic, oh, ow, oc, kh, kw, groups, sh, sw, dh, dw, pt, pl,
            rng.next(-128, 127), rng.next(-128, 127), rng.next(-128, -50), rng.next(50, 127))


def _requant(rng, count):
    bias = array("i", [rng.next(-20000, 20000) for _ in range(count)])
    mult = array("i", [rng.next(1 << 30, fp.INT32_MAX) for _ in range(count)])
    shift = array("i", [rng.next(-12, 0) for _ in range(count)])
    return bias, mult, shift


def _same(plain, fast, outs, *args):
    plain(*args[:outs[0]], outs[1], *args[outs[0]:])
    fast(*args[:outs[0]], outs[2], *args[outs[0]:])
    assert list(outs[1]) == list(outs[2]), plain


def test_viper_twins_match_plain():
    micropython_only()
    rng = Lcg(7)
    # an emulated RP2040 runs the plain twins at a few M operations per second
    for _ in range(8 if sys.platform == "rp2" else 25):
        a = _conv_args(rng)
        if a is None:
            continue
        n, ih, iw, ic, oh, ow, oc, kh, kw, groups = a[:10]
        inp, w = rng.s8(n * ih * iw * ic), rng.s8(oc * kh * kw * (ic // groups))
        bias, mult, shift = _requant(rng, oc)
        size = n * oh * ow * oc
        _same(conv_s8_plain, conv_s8_fast, (5, zeros(size), zeros(size)),
              inp, bytes(w), bias, mult, shift, *a)
        dm = oc
        dsize = n * oh * ow * ic * dm
        wd = rng.s8(kh * kw * ic * dm)
        bias, mult, shift = _requant(rng, ic * dm)
        dargs = a[:6] + (dm,) + a[7:9] + a[10:]
        _same(depthwise_conv_s8_plain, depthwise_conv_s8_fast, (5, zeros(dsize), zeros(dsize)),
              inp, wd, bias, mult, shift, *dargs)
        pool = (n, ih, iw, ic, oh, ow, kh, kw) + a[10:12] + a[14:16] + a[18:20]
        psize = n * oh * ow * ic
        if a[12] == 1 and a[13] == 1:
            _same(avg_pool_s8_plain, avg_pool_s8_fast, (1, zeros(psize), zeros(psize)),
                  inp, *pool)
            _same(max_pool_s8_plain, max_pool_s8_fast, (1, zeros(psize), zeros(psize)),
                  inp, *pool)
        fin, fout = rng.next(1, 50), rng.next(1, 10)
        bias, mult, shift = _requant(rng, fout)
        _same(fully_connected_s8_plain, fully_connected_s8_fast, (5, zeros(fout), zeros(fout)),
              rng.s8(fin), rng.s8(fout * fin), bias, mult, shift, 1, fin, fout,
              rng.next(-128, 127), rng.next(-128, 127), -128, 127)
        size = rng.next(1, 40)
        sa, sb, so = rng.next(1, 100) / 500, rng.next(1, 100) / 500, rng.next(1, 100) / 500
        ap = qp.add_params(sa, sb, so)
        _same(add_s8_plain, add_s8_fast, (2, zeros(size), zeros(size)), rng.s8(size),
              rng.s8(size), size, size, rng.next(-128, 127), ap[1], ap[2],
              rng.next(-128, 127), ap[3], ap[4], rng.next(-128, 127), ap[5], ap[6], ap[0],
              -128, 127)
        m, s = qp.mul_params(sa, sb, so / 50)
        _same(mul_s8_plain, mul_s8_fast, (2, zeros(size), zeros(size)), rng.s8(size),
              rng.s8(1), size, 1, rng.next(-128, 127), rng.next(-128, 127),
              rng.next(-128, 127), m, s, -128, 127)
        m, s = qp.mean_params(sa, so, 3)
        _same(mean_s8_plain, mean_s8_fast, (1, zeros(size), zeros(size)), rng.s8(3 * size),
              1, 3, size, rng.next(-128, 127), rng.next(-128, 127), m, s)
        m, s = qp.requantize_params(sa, so)
        _same(requantize_s8_plain, requantize_s8_fast, (1, zeros(size), zeros(size)),
              rng.s8(size), size, rng.next(-128, 127), rng.next(-128, 127), m, s)
        _same(clamp_s8_plain, clamp_s8_fast, (1, zeros(size), zeros(size)), rng.s8(size),
              size, rng.next(-128, 0), rng.next(0, 127))


def test_viper_softmax_logistic_tanh_match_plain():
    micropython_only()
    rng = Lcg(11)
    # each round builds three 256-entry tables with the plain kernels (slow on an RP2040)
    for _ in range(1 if sys.platform == "rp2" else 4):
        rows, depth = rng.next(1, 4), rng.next(1, 12)
        size = rows * depth
        in_scale = rng.next(1, 200) / 400
        _same(softmax_s8_plain, softmax_s8_fast, (1, zeros(size), zeros(size)), rng.s8(size),
              rows, depth, *qp.softmax_params(rng.next(1, 4) / 2, in_scale))
        for plain, fast, params in ((logistic_s8_plain, logistic_s8_fast, qp.logistic_params),
                                    (tanh_s8_plain, tanh_s8_fast, qp.tanh_params)):
            _same(plain, fast, (1, zeros(size), zeros(size)), rng.s8(size), size,
                  rng.next(-128, 127), *params(in_scale))


def _allocated(fn, *args):
    fn(*args)                        # warm-up
    gc.collect()
    before = gc.mem_alloc()
    fn(*args)
    return gc.mem_alloc() - before


def test_int8_kernels_allocate_nothing():
    micropython_only()
    rng = Lcg(9)
    inp, out = rng.s8(8 * 8 * 4), zeros(8 * 8 * 8)
    bias, mult, shift = _requant(rng, 8)
    w = bytes(rng.s8(8 * 3 * 3 * 4))
    checks = [
        (conv_s8, inp, w, bias, mult, shift, out, 1, 8, 8, 4, 8, 8, 8, 3, 3, 1, 1, 1, 1, 1,
         1, 1, 3, -2, -128, 127),
        (depthwise_conv_s8, inp, w, bias, mult, shift, out, 1, 8, 8, 4, 8, 8, 2, 3, 3, 1, 1,
         1, 1, 1, 1, 3, -2, -128, 127),
        (fully_connected_s8, inp, w, bias, mult, shift, out, 1, 36, 8, 3, -2, -128, 127),
        (avg_pool_s8, inp, out, 1, 8, 8, 4, 4, 4, 2, 2, 2, 2, 0, 0, -128, 127),
        (max_pool_s8, inp, out, 1, 8, 8, 4, 4, 4, 2, 2, 2, 2, 0, 0, -128, 127),
        (add_s8, inp, inp, out, 64, 64, 1) + qp.add_params(0.1, 0.2, 0.3)[1:3] + (2,)
        + qp.add_params(0.1, 0.2, 0.3)[3:5] + (3,) + qp.add_params(0.1, 0.2, 0.3)[5:]
        + (20, -128, 127),
        (mul_s8, inp, inp, out, 64, 4, 1, 2, 3) + qp.mul_params(0.1, 0.2, 0.3) + (-128, 127),
        (mean_s8, inp, out, 1, 64, 4, 1, 2) + qp.mean_params(0.1, 0.2, 64),
        (layout.pad_s8, inp, out, 1, 4, 4, 4, 0, 1, 1, 0, 0, 1, 1, 0, 3),
        (layout.concat_s8, [inp, inp], array("i", [4, 4]), out, 16),
        (layout.copy_s8, inp, out, 64),
    ]
    for case in checks:
        assert _allocated(*case) == 0, case[0]

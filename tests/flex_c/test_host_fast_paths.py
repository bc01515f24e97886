"""The host build's vectorized int8 paths (convolution and depthwise: on AVX-512 VNNI
CPUs byte dot products over a padded copy of the input; else int16 patch dot products in
blocks of output channels, channel-innermost depthwise; average pool, per-channel
requantization rows, ADD over runs or, on AVX-512 CPUs, 16 elements at a time) give the
reference kernels' output bit for bit. The reference is the Cortex-M4F build of the
reference kernels alone, run in unicorn; shapes and parameters are chosen to
reach each path and its edges (left shifts, negative and INT32_MIN multipliers, wrapping
accumulators, no bias), at each int8 vector width (conftest.py's s8_width)."""

import numpy as np
import pytest

from burn.host.flex.binding import Struct, host
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.params import dims, window

INT32_MIN = -(1 << 31)


@pytest.fixture(scope="module")
def ref():
    return EmulatedLib("cortex-m4f", reference=True)


def _quant(rng, oc, edges, folded=False):
    """Per-channel multipliers, shifts and biases: TFLM-like, or with `edges` also shifts
    over the whole range, any multiplier, biases that wrap the accumulator and channels
    whose shifted accumulator and multiplier can both be INT32_MIN (the saturating case);
    `folded`: right shifts 1 and 23 too, the ends of the VNNI paths' folded requantization
    (s8_vnni.h), and biases large enough to reach it."""
    mult = rng.integers(1 << 30, 1 << 31, oc, dtype=np.int64)
    shift = rng.integers(-12, -4, oc)
    bias = rng.integers(-5000, 5000, oc)
    if folded:
        shift = rng.choice([-1, -2, -12, -22, -23], oc)
        bias = rng.integers(-(1 << 28), 1 << 28, oc)
    if edges:
        kinds = rng.integers(0, 5, oc)
        shift = np.where(kinds == 1, rng.integers(-31, 32, oc), shift)
        mult = np.where(kinds == 2, rng.integers(INT32_MIN, 1 << 31, oc), mult)
        bias = np.where(kinds == 3, rng.integers(INT32_MIN, 1 << 31, oc), bias)
        mult = np.where(kinds == 4, INT32_MIN, mult)
        shift = np.where(kinds == 4, 31, shift)
    return mult.astype(np.int32), shift.astype(np.int32), bias.astype(np.int32)


def _q(rng, edges, folded=False):
    """Offsets and clamps; with `edges` the output offset is 0, the one offset for which a
    saturated INT32_MAX and a wrapped INT32_MIN clamp differently; `folded`: any output
    offset and the whole int8 range (no clamp but the int8 conversion's)."""
    out_offset = 0 if edges else int(rng.integers(-128 if folded else -20, 128 if folded else 20))
    if folded:
        return Struct("flex_s8_quant", (int(rng.integers(-127, 129)), out_offset, -128, 127))
    return Struct("flex_s8_quant", (int(rng.integers(-127, 129)), out_offset,
                                    int(rng.integers(-128, 0)), int(rng.integers(0, 128))))


# (edges, with_bias, folded) of each run of a case: TFLM-like, the edges, no bias, folded
RUNS = ((False, True, False), (True, True, False), (False, False, False), (False, True, True))


def _same(ref, name, args, out):
    """Run `name` on the host and on the reference build: both succeed, outputs equal."""
    results = []
    for lib in (host(), ref):
        out[...] = 0
        assert lib.call(name, args) == 0
        results.append(out.copy())
    bad = np.nonzero(results[0] != results[1])[0]
    assert bad.size == 0, (name, int(bad[0]), results[0][bad[:8]], results[1][bad[:8]])


def _conv(ref, rng, n, ih, iw, ic, oc, kh, kw, stride, pad, dil=1, groups=1, offset=None):
    oh = (ih + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    ow = (iw + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    x = rng.integers(-128, 128, n * ih * iw * ic, dtype=np.int8)
    w = rng.integers(-128, 128, oc * kh * kw * ic // groups, dtype=np.int8)
    for edges, with_bias, folded in RUNS:
        mult, shift, bias = _quant(rng, oc, edges, folded)
        bias = bias if with_bias else None
        y = np.zeros(n * oh * ow * oc, np.int8)
        q = _q(rng, edges, folded)
        if offset is not None:
            q = Struct("flex_s8_quant", [offset] + q.values[1:])
        _same(ref, "flex_s8_conv2d", [
            dims(n, ih, iw, ic), x, x.size, w, w.size, bias, oc * with_bias, mult, shift, oc,
            window(ih, iw, oh, ow, kh, kw, stride, stride, dil, dil, pad, pad), groups,
            q, dims(n, oh, ow, oc), y, y.size], y)


@pytest.mark.parametrize("shape", [
    (1, 5, 5, 64, 64, 1, 1, 1, 0),      # pointwise, taps a multiple of the vector
    (1, 13, 10, 1, 16, 10, 4, 2, 4),    # one input channel, 10x4 stride 2: rows and borders
    (2, 7, 6, 3, 16, 3, 3, 1, 1),       # three channels, 27 taps padded to 32
    (1, 9, 8, 16, 32, 3, 3, 2, 1),      # stride 2
    (1, 7, 7, 5, 7, 3, 3, 1, 2, 2),     # dilation 2 (per-column gather), 7 output channels
    (1, 4, 4, 96, 40, 3, 3, 1, 0),      # weights widened in two blocks of output channels
    (1, 6, 5, 6, 4, 3, 3, 1, 1, 1, 2),  # groups: the reference kernel
    # the AVX-512 VNNI path's edges (s8_conv_vnni.c)
    (1, 5, 4, 8, 300, 3, 3, 1, 1),      # 64-channel tiles, then 44 (12 lanes of 16 kept)
    (1, 2, 2, 4, 20, 1, 1, 1, 0),       # fewer pixels than a tile: one pixel at a time
    (2, 5, 4, 5, 33, 3, 2, 1, 1),       # rows of 10 taps in groups of 4, 33 channels
    (1, 11, 7, 3, 17, 3, 3, 2, 1),      # stride 2, last tile over the one before
    (1, 9, 9, 1, 8, 3, 3, 2, 1),        # 8 channels: 2 pixels a vector, 25 pixels
    (1, 2, 3, 5, 8, 1, 1, 1, 0),        # 8 channels, fewer pixels than a tile: one at a time
    (1, 64, 48, 24, 8, 1, 1, 1, 0),     # image past the stack buffer: the portable path
])
def test_conv_equals_reference(ref, shape, s8_width):
    _conv(ref, np.random.default_rng(sum(shape)), *shape)


@pytest.mark.parametrize("offset", [-127, 128])
def test_conv_input_offset_edges(ref, offset, s8_width):
    """The VNNI path pads with 128 - input_offset, 0 and 255 at the edges."""
    _conv(ref, np.random.default_rng(offset + 200), 1, 6, 5, 4, 24, 3, 3, 1, 1, offset=offset)


def _depthwise(ref, rng, n, ih, iw, c, k, stride, pad, dil=1, dm=1, offset=None):
    oh = (ih + 2 * pad - dil * (k - 1) - 1) // stride + 1
    ow = (iw + 2 * pad - dil * (k - 1) - 1) // stride + 1
    oc = c * dm
    x = rng.integers(-128, 128, n * ih * iw * c, dtype=np.int8)
    w = rng.integers(-128, 128, k * k * oc, dtype=np.int8)
    for edges, with_bias, folded in RUNS:
        mult, shift, bias = _quant(rng, oc, edges, folded)
        bias = bias if with_bias else None
        y = np.zeros(n * oh * ow * oc, np.int8)
        q = _q(rng, edges, folded)
        if offset is not None:
            q = Struct("flex_s8_quant", [offset] + q.values[1:])
        _same(ref, "flex_s8_depthwise_conv2d", [
            dims(n, ih, iw, c), x, x.size, w, w.size, bias, oc * with_bias, mult, shift, oc,
            window(ih, iw, oh, ow, k, k, stride, stride, dil, dil, pad, pad), dm, q,
            dims(n, oh, ow, oc), y, y.size], y)


@pytest.mark.parametrize("shape", [
    (1, 25, 5, 64, 3, 1, 1),     # the KWS layer: nine taps in one pass
    (2, 7, 6, 13, 3, 2, 1),      # stride 2, channels not a multiple of the vector
    (1, 9, 8, 24, 3, 1, 2, 2),   # dilation 2
    (1, 6, 7, 20, 5, 1, 2),      # 5x5: one tap at a time
    (1, 5, 5, 4, 3, 1, 1, 1, 2),  # depth multiplier 2: the reference kernel
    # the AVX-512 VNNI path's edges (s8_depthwise_vnni.c)
    (1, 4, 3, 40, 2, 1, 0),      # four taps: one group; 40 channels, 8 lanes of 16 kept
    (2, 5, 6, 1, 3, 1, 1),       # one channel: the next pixels' bytes at weight 0
    (2, 6, 9, 8, 3, 1, 1),       # 8 channels: 2 pixels a vector, 9 a row (last pair overlaps)
    (1, 4, 21, 4, 3, 1, 1),      # 4 channels: 4 pixels a vector
    (1, 3, 20, 1, 3, 1, 1),      # 1 channel: 16 pixels a vector, 18 a row
    (1, 5, 8, 2, 3, 2, 1),       # 2 channels, stride 2: one pixel a vector
    (1, 72, 40, 24, 3, 1, 1),    # image past the stack buffer: the portable path
])
def test_depthwise_equals_reference(ref, shape, s8_width):
    _depthwise(ref, np.random.default_rng(sum(shape)), *shape)


@pytest.mark.parametrize("offset", [-127, 128])
def test_depthwise_input_offset_edges(ref, offset, s8_width):
    """The VNNI path pads with 128 - input_offset, 0 and 255 at the edges."""
    _depthwise(ref, np.random.default_rng(offset + 300), 1, 6, 5, 20, 3, 1, 1, offset=offset)


def _add_params(rng, edges):
    if edges == "limits":  # left shifts up to 22 with positive input shifts, offsets 128
        # and -127, any multiplier
        ls, sh = [(9, 0), (22, 0), (6, 3), (20, 2)][int(rng.integers(0, 4))]
        m = [int(v) for v in rng.integers(INT32_MIN, 1 << 31, 3)]
        return (128, m[0], sh, -127, m[1], sh - 5, ls, int(rng.integers(-128, 128)),
                m[2], int(rng.integers(-31, 1)), -128, 127)
    if not edges:
        return (int(rng.integers(-127, 129)), int(rng.integers(1 << 30, 1 << 31)),
                int(rng.integers(-3, 1)), int(rng.integers(-127, 129)),
                int(rng.integers(1 << 30, 1 << 31)), int(rng.integers(-3, 1)), 20,
                int(rng.integers(-128, 128)), int(rng.integers(1 << 30, 1 << 31)),
                int(rng.integers(-20, -10)), -128, 127)
    mults = [int(m) for m in rng.integers(INT32_MIN, 1 << 31, 3)]
    mults[int(rng.integers(0, 3))] = INT32_MIN
    shifts = [int(s) for s in rng.integers(-31, 32, 3)]
    return (int(rng.integers(-127, 129)), mults[0], shifts[0], int(rng.integers(-127, 129)),
            mults[1], shifts[1], int(rng.integers(0, 23)), int(rng.integers(-128, 128)),
            mults[2], shifts[2], int(rng.integers(-128, 0)), int(rng.integers(0, 128)))


@pytest.mark.parametrize("d1,d2", [
    ((1, 8, 8, 16), (1, 8, 8, 16)),   # same shapes: one run over the whole tensor
    ((2, 3, 5, 24), (1, 1, 1, 24)),   # per-channel second input: a run per pixel
    ((1, 4, 5, 1), (1, 4, 5, 7)),     # first input broadcast along the channels
    ((2, 3, 1, 9), (1, 3, 4, 9)),     # broadcast on outer axes
    ((1, 3, 5, 7), (1, 3, 5, 7)),     # 105 elements: too few for the AVX-512 tables
    ((1, 9, 9, 13), (1, 9, 9, 13)),   # AVX-512: 1053 elements, the last 29 under a mask
])
def test_add_equals_reference(ref, d1, d2, s8_width):
    rng = np.random.default_rng(sum(d1) + sum(d2))
    out = tuple(max(a, b) for a, b in zip(d1, d2))
    a = rng.integers(-128, 128, int(np.prod(d1)), dtype=np.int8)
    b = rng.integers(-128, 128, int(np.prod(d2)), dtype=np.int8)
    for edges in (False, True, True, "limits", "limits"):
        y = np.zeros(int(np.prod(out)), np.int8)
        _same(ref, "flex_s8_add", [
            dims(*d1), a, a.size, dims(*d2), b, b.size,
            Struct("flex_s8_add_params", _add_params(rng, edges)), dims(*out), y, y.size], y)


# TFLM-like ADD parameters (input offset, multiplier, shift; left shift 20; output
# offset, multiplier, shift; clamp) for the AVX-512 tables' split form (output shift -15 or
# below): ResNet-8's first ADD, a ReLU clamp, the smallest and largest output shifts, and
# negative and INT32_MIN output multipliers.
SPLIT_ADDS = [
    (128, 1623821475, -2, -4, 1073741824, 0, 20, -128, 1098017566, -17, -128, 127),
    (17, 1699529983, -1, 3, 1207959552, -3, 20, 5, 1140768826, -15, -128, 100),
    (-38, 1657902019, -2, 2, 1073741824, 0, 20, 7, 1835721671, -20, 0, 127),
    (101, 1382302848, 0, -99, 2004318071, 0, 22, -3, 1431655765, -31, -128, 127),
    (-127, 1073741824, -5, 128, 1900000000, -1, 20, 40, -1500000000, -18, -128, 127),
    (0, 2147483647, 0, 0, 1073741824, -1, 20, 0, INT32_MIN, -16, -100, 120),
]


@pytest.mark.parametrize("params", SPLIT_ADDS)
def test_add_tables_give_every_pair_of_bytes(ref, params, s8_width):
    """Every (a, b) byte pair (65,536 elements, and the 65,536 - 37 of a masked last
    step), the output over the first input and over the second too: the split form's
    sums in int16 lanes, the pairs whose carry it leaves open (a few per set of
    parameters) computed one by one, as the reference computes them all."""
    a = np.repeat(np.arange(-128, 128, dtype=np.int8), 256)
    b = np.tile(np.arange(-128, 128, dtype=np.int8), 256)
    p = Struct("flex_s8_add_params", list(params))
    for n in (a.size, a.size - 37):
        y = np.zeros(n, np.int8)
        args = [dims(1, 1, 1, n), a[:n], n, dims(1, 1, 1, n), b[:n], n, p, dims(1, 1, 1, n)]
        _same(ref, "flex_s8_add", args + [y, n], y)
        for over in (0, 1):  # in place: the output is the first, then the second input
            x = [a[:n].copy(), b[:n].copy()]
            assert host().call("flex_s8_add", args[:1] + [x[0], n] + args[3:4] +
                               [x[1], n] + args[6:] + [x[over], n]) == 0
            assert np.array_equal(x[over], y)


def test_add_tables_leave_wrapping_sums_to_add64(ref):
    """Input shifts that shift left far enough for the two scaled values' sum to wrap, as
    the reference's int32 sum does: the split form's 64-bit tables would not wrap it, so
    such parameters keep the 64-bit form (both inputs' largest values checked)."""
    a = np.repeat(np.arange(-128, 128, dtype=np.int8), 256)
    b = np.tile(np.arange(-128, 128, dtype=np.int8), 256)
    for shift in (9, 10, 11):
        p = Struct("flex_s8_add_params", [1, (1 << 31) - 1, shift, -2, (1 << 31) - 1, shift,
                                          20, 3, 1 << 29, -16, -128, 127])
        y = np.zeros(a.size, np.int8)
        _same(ref, "flex_s8_add", [dims(1, 1, 1, a.size), a, a.size, dims(1, 1, 1, a.size), b,
                                   b.size, p, dims(1, 1, 1, a.size), y, y.size], y)


@pytest.mark.parametrize("shape", [
    (1, 25, 5, 64, 25, 5, 1, 0),   # the KWS global average: one window of 125 cells
    (2, 9, 7, 13, 3, 3, 2, 1),     # padded windows, clipped at the borders
])
def test_avg_pool_equals_reference(ref, shape):
    n, ih, iw, c, kh, kw, stride, pad = shape
    rng = np.random.default_rng(sum(shape))
    oh, ow = (ih + 2 * pad - kh) // stride + 1, (iw + 2 * pad - kw) // stride + 1
    x = rng.integers(-128, 128, n * ih * iw * c, dtype=np.int8)
    y = np.zeros(n * oh * ow * c, np.int8)
    win = window(ih, iw, oh, ow, kh, kw, stride, stride, 1, 1, pad, pad)
    _same(ref, "flex_s8_avg_pool2d", [
        dims(n, ih, iw, c), x, x.size, win, int(rng.integers(-128, -100)),
        int(rng.integers(100, 128)), dims(n, oh, ow, c), y, y.size], y)

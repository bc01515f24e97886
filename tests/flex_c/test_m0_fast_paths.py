"""The Cortex-M0+ kernels' special paths, and the same cases on the DSP kernels of the M33
that stand on them (patch gather, padded bands of input rows, dot
products over 1-4 rows and paired dot products over packed rows and patches, the
32-bit requantization and its fall-back, the 3x3 depthwise tile), run in the unicorn
emulator, give the host build's output bit for bit on shapes and quantization parameters
chosen to reach each path and its edges."""

import shutil

import numpy as np
import pytest

from burn.host.flex.binding import Struct, host
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.params import dims, window
from burn.host.flex.qemu_lib import QemuLib


@pytest.fixture(scope="module", params=["cortex-m0plus", "cortex-m33", "riscv32", "cortex-m55"])
def m0(request):
    """The Cortex-M0+ kernels, and the DSP ones of the M33 (unicorn) and the M55 (QEMU,
    built with MVE) that stand on them."""
    if request.param == "cortex-m55":
        if shutil.which("qemu-system-arm") is None:
            pytest.skip("the Cortex-M55 runs in QEMU: apt-get install -y qemu-system-arm")
        with QemuLib(request.param) as lib:
            yield lib
        return
    yield EmulatedLib(request.param)


# per-channel shifts drawn from [lo, hi]: the KWS model's, and as wide as converted models'
SHIFTS = {"kws": (-11, -6), "wide": (-20, 2)}


def _quant(rng, oc, wide=False, shifts=SHIFTS["kws"]):
    """Per-channel multipliers / shifts (from `shifts`) / biases: TFLM-like (2^30 makes
    rounding ties), or with wide="large" biases that push accumulators past 2^20, or with
    wide=True also shift 0, positive and < -12 shifts, negative or small multipliers (some
    of which leave the fast requantization)."""
    mult = np.where(rng.integers(0, 4, oc) == 0, 1 << 30,
                    rng.integers(1 << 30, 1 << 31, oc, dtype=np.int64))
    shift = rng.integers(shifts[0], shifts[1] + 1, oc)
    bias = rng.integers(-3000, 3000, oc)
    if wide == "large":
        bias = rng.integers(-(1 << 21), 1 << 21, oc)
    elif wide:
        kinds = rng.integers(0, 7, oc)
        shift = np.where(kinds == 1, rng.integers(-20, 3, oc), shift)
        mult = np.where(kinds == 2, rng.integers(-(1 << 31), 1 << 16, oc), mult)
        bias = np.where(kinds == 3, rng.integers(-(1 << 24), 1 << 24, oc), bias)
        shift = np.where(kinds == 4, 0, shift)
        shift = np.where(kinds == 5, -12, shift)
        mult = np.where(kinds == 6, 1 << 30, mult)
    return (mult.astype(np.int32), shift.astype(np.int32), bias.astype(np.int32))


def _same(m0, name, args, out):
    """Run `name` on the host and on the emulated M0+; both outputs must be equal."""
    results = []
    for lib in (host(), m0):
        out[...] = 0
        assert lib.call(name, args) == 0
        results.append(out.copy())
    assert np.array_equal(results[0], results[1]), (name, results[0][:16], results[1][:16])


def _conv(m0, rng, n, ih, iw, ic, oc, kh, kw, stride, pad, dil=1, wide=False, in_zp=None,
          w_min=-127, shifts=SHIFTS["kws"]):
    eff_h, eff_w = dil * (kh - 1) + 1, dil * (kw - 1) + 1
    oh, ow = (ih + 2 * pad - eff_h) // stride + 1, (iw + 2 * pad - eff_w) // stride + 1
    x = rng.integers(-128, 128, n * ih * iw * ic, dtype=np.int8)
    w = rng.integers(w_min, 128, oc * kh * kw * ic, dtype=np.int8)
    mult, shift, bias = _quant(rng, oc, wide, shifts)
    zp = int(rng.integers(-128, 128)) if in_zp is None else in_zp
    # Half the cases clamp to the whole int8 range (the DSP build saturates those in one step).
    act_max = 127 if rng.integers(2) else int(rng.integers(0, 127))
    q = Struct("flex_s8_quant", (-zp, int(rng.integers(-20, 20)), -128, act_max))
    y = np.zeros(n * oh * ow * oc, np.int8)
    _same(m0, "flex_s8_conv2d", [
        dims(n, ih, iw, ic), x, x.size, w, w.size, bias, oc, mult, shift, oc,
        window(ih, iw, oh, ow, kh, kw, stride, stride, dil, dil, pad, pad), 1, q,
        dims(n, oh, ow, oc), y, y.size], y)


@pytest.mark.parametrize("shape", [
    (1, 5, 4, 8, 12, 1, 1, 1, 0, 1),    # pointwise: the input packed in place
    (1, 6, 5, 8, 9, 3, 3, 1, 1, 1),     # 3x3 same padding, a band of rows, 8 + 1 rows
    (2, 9, 6, 1, 7, 5, 2, 2, 2, 1),     # one input channel, band rows of two
    (1, 12, 6, 1, 10, 5, 4, 2, 2, 1),   # band rows of four, odd left padding
    (1, 6, 6, 3, 5, 3, 3, 1, 1, 1),     # odd window rows: packed from the input inside it
    (2, 9, 8, 1, 8, 3, 3, 2, 1, 1),     # rows of three, stride 2 (person_detect's first)
    (1, 8, 7, 1, 6, 3, 3, 1, 0, 1),     # unpadded: every window inside the input
    (1, 6, 6, 12, 5, 1, 1, 2, 0, 1),    # pointwise, stride 2: rows of 12 packed by fours
    (1, 7, 7, 3, 6, 3, 3, 1, 2, 2),     # dilation 2: per-column gather
    (1, 4, 4, 4, 37, 2, 2, 1, 0, 1),    # more output channels than one block
    (2, 4, 3, 8, 130, 1, 1, 1, 0, 1),   # pointwise, two images, a pass per 64 channels
    (1, 5, 4, 6, 70, 3, 3, 1, 1, 1),    # 3x3, a pass per 64 channels
    (1, 5, 5, 32, 6, 3, 3, 1, 1, 1),    # patches too long to pair: byte dot products
    (1, 5, 5, 16, 6, 3, 3, 1, 1, 1),    # blocks of under eight rows: byte dot products
    (1, 5, 5, 16, 3, 3, 3, 1, 1, 1),    # ... unless one block holds every channel
])
@pytest.mark.parametrize("shifts", SHIFTS)
def test_conv_equals_host(m0, shape, shifts):
    rng = np.random.default_rng(sum(shape))
    _conv(m0, rng, *shape, shifts=SHIFTS[shifts])


def test_conv_requantization_edges_equal_host(m0):
    rng = np.random.default_rng(3)
    for wide in (True, True, "large"):
        _conv(m0, rng, 1, 4, 4, 5, 40, 3, 3, 1, 1, wide=wide)
        _conv(m0, rng, 1, 4, 4, 5, 40, 3, 3, 1, 1, wide=wide, shifts=SHIFTS["wide"])


def test_conv_with_weight_minus_128_equals_host(m0):
    """-128 weights could overflow a packed pair: such blocks take the byte dot products."""
    rng = np.random.default_rng(11)
    _conv(m0, rng, 1, 6, 5, 8, 9, 3, 3, 1, 1, w_min=-128)
    _conv(m0, rng, 1, 5, 4, 8, 12, 1, 1, 1, 0, w_min=-128)


def _depthwise(m0, rng, n, ih, iw, c, stride, pad, wide=False, kh=3, kw=3, dm=1, offset=0,
               shifts=SHIFTS["kws"], dil=1):
    """offset: the input starts that many bytes past a word boundary."""
    oh = (ih + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    ow = (iw + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    oc = c * dm
    x = np.zeros(n * ih * iw * c + offset, np.int8)[offset:]
    x[:] = rng.integers(-128, 128, x.size, dtype=np.int8)
    w = rng.integers(-127, 128, kh * kw * oc, dtype=np.int8)
    mult, shift, bias = _quant(rng, oc, wide, shifts)
    act_min = -128 if rng.integers(2) else int(rng.integers(-127, 0))
    q = Struct("flex_s8_quant", (int(rng.integers(-127, 129)), int(rng.integers(-20, 20)),
                                 act_min, 127))
    y = np.zeros(n * oh * ow * oc, np.int8)
    _same(m0, "flex_s8_depthwise_conv2d", [
        dims(n, ih, iw, c), x, x.size, w, w.size, bias, oc, mult, shift, oc,
        window(ih, iw, oh, ow, kh, kw, stride, stride, dil, dil, pad, pad), dm, q,
        dims(n, oh, ow, oc), y, y.size], y)


@pytest.mark.parametrize("shape", [
    (1, 25, 5, 8, 1, 1),   # tall: strips down the columns, the last one overlapping
    (1, 4, 11, 4, 1, 1),   # wide: strips along the rows
    (2, 6, 6, 12, 1, 0),   # no padding, two images
    (1, 3, 3, 4, 1, 1),    # lines shorter than a strip
    (1, 9, 7, 8, 2, 1),    # stride 2
    (1, 6, 6, 8, 2, 1),    # stride 2, lines shorter than a strip
    (1, 40, 40, 8, 1, 1),  # too large for one tile: bands of output rows
    (1, 48, 48, 16, 2, 1), # bands with stride 2
    (2, 30, 30, 4, 1, 0),  # bands, no padding, two images
    (1, 12, 12, 8, 1, 1, False, 3, 3, 1, 1),  # input at an odd address
    (1, 40, 40, 8, 1, 1, False, 3, 3, 1, 2),  # banded, input at an even one
    (1, 5, 5, 6, 1, 1),    # channels not a multiple of 4: channels innermost
    (1, 6, 5, 37, 2, 1),   # channels innermost, two blocks of channels
])
@pytest.mark.parametrize("shifts", SHIFTS)
def test_depthwise_equals_host(m0, shape, shifts):
    rng = np.random.default_rng(sum(shape))
    _depthwise(m0, rng, *shape, shifts=SHIFTS[shifts])


def test_depthwise_requantization_edges_and_other_windows_equal_host(m0):
    rng = np.random.default_rng(5)
    _depthwise(m0, rng, 1, 8, 6, 16, 1, 1, wide=True)
    _depthwise(m0, rng, 1, 8, 6, 16, 1, 1, wide="large")
    _depthwise(m0, rng, 1, 6, 6, 8, 1, 2, kh=5, kw=5)
    _depthwise(m0, rng, 1, 7, 6, 20, 1, 2, wide=True, kh=5, kw=5)
    _depthwise(m0, rng, 1, 5, 5, 4, 1, 1, dm=2)
    _depthwise(m0, rng, 1, 9, 8, 12, 1, 2, dil=2)  # dilated 3 x 3: interior and border
    _depthwise(m0, rng, 1, 9, 9, 8, 2, 0, dil=3)
    _depthwise(m0, rng, 1, 4, 5, 260, 1, 1)  # channels in three passes of the DSP build


@pytest.mark.parametrize("fout", [1, 2, 3, 5, 10, 37])
@pytest.mark.parametrize("shifts", SHIFTS)
def test_fully_connected_equals_host(m0, fout, shifts):
    rng = np.random.default_rng(fout)
    for batches, fin, wide in [(1, 64, False), (2, 13, True), (1, 30, "large")]:
        x = rng.integers(-128, 128, batches * fin, dtype=np.int8)
        w = rng.integers(-127, 128, fin * fout, dtype=np.int8)
        mult, shift, bias = _quant(rng, fout, wide, SHIFTS[shifts])
        q = Struct("flex_s8_quant", (int(rng.integers(-127, 129)), 5, -128, 127))
        y = np.zeros(batches * fout, np.int8)
        _same(m0, "flex_s8_fully_connected", [
            batches, fin, fout, x, x.size, w, w.size, 0, bias, fout, mult, shift, fout, q,
            y, y.size], y)


@pytest.mark.parametrize("fout", [1, 2, 3, 4, 6, 10, 33])
@pytest.mark.parametrize("fin", [4, 12, 20, 27, 64])
def test_fully_connected_per_tensor_equals_host(m0, fout, fin):
    """One multiplier and shift for every output (given once, or repeated per channel, as
    the DSP build checks), with and without biases, under the whole int8 range and a ReLU
    clamp; every count of four-element groups modulo the unrolling and every short block
    of rows; an input offset of 0 (the DSP build's unwidened path) or another."""
    rng = np.random.default_rng(fout * 100 + fin)
    for quant_len, use_bias, act_max, in_off in [
            (1, True, 127, None), (fout, True, 90, None), (fout, False, 127, None),
            (1, True, 60, None), (1, True, 127, 0), (1, False, 90, 0)]:
        x = rng.integers(-128, 128, fin, dtype=np.int8)
        w = rng.integers(-127, 128, fin * fout, dtype=np.int8)
        mult = np.full(quant_len, rng.integers(1 << 30, 1 << 31), np.int32)
        shift = np.full(quant_len, rng.integers(-10, -5), np.int32)
        bias = rng.integers(-3000, 3000, fout).astype(np.int32) if use_bias else None
        out_zp = int(rng.integers(-20, 20))
        if in_off is None:
            in_off = int(rng.integers(-127, 129))
        q = Struct("flex_s8_quant", (in_off, out_zp, -128 if act_max == 127 else out_zp,
                                     act_max))
        y = np.zeros(fout, np.int8)
        _same(m0, "flex_s8_fully_connected", [
            1, fin, fout, x, x.size, w, w.size, 0, bias, fout if use_bias else 0, mult,
            shift, quant_len, q, y, y.size], y)


@pytest.mark.parametrize("shape, b_shape", [
    ((1, 16, 16, 8), (1, 16, 16, 8)),   # tabulated input scaling
    ((1, 8, 8, 16), (1, 1, 1, 16)),     # tabulated, the second input broadcast
    ((1, 4, 4, 8), (1, 4, 4, 8)),       # too small to tabulate: the reference loop
])
def test_add_equals_host(m0, shape, b_shape):
    rng = np.random.default_rng(sum(shape) + sum(b_shape))
    a = rng.integers(-128, 128, int(np.prod(shape)), dtype=np.int8)
    b = rng.integers(-128, 128, int(np.prod(b_shape)), dtype=np.int8)
    for _ in range(3):
        mult = rng.integers(1 << 30, 1 << 31, 3, dtype=np.int64)
        params = Struct("flex_s8_add_params", (
            int(rng.integers(-127, 129)), int(mult[0]), int(rng.integers(-3, 0)),
            int(rng.integers(-127, 129)), int(mult[1]), int(rng.integers(-3, 0)), 20,
            int(rng.integers(-20, 20)), int(mult[2]), int(rng.integers(-22, -16)),
            int(rng.integers(-128, -100)), int(rng.integers(100, 128))))
        y = np.zeros(a.size, np.int8)
        _same(m0, "flex_s8_add", [dims(*shape), a, a.size, dims(*b_shape), b, b.size, params,
                                  dims(*shape), y, y.size], y)

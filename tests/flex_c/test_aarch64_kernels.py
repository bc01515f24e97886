"""The AArch64 build's int8 fully connected kernel and pointwise convolution (SDOT,
opt/aarch64), run in unicorn's ARM64 mode, give TFLM's output with their own input-offset
handling, and the fully connected kernel the host build's on weights of -128, input offsets
up to 128, every tail of sixteen inputs and of four rows, and an output over its input."""

import numpy as np
import pytest
from in_place import assert_same_in_place, fully_connected_case
from in_place import conv_case as in_place_conv_case
from s8_cases import conv_case, fc_case

from burn.host.flex.binding import Struct, host
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels


@pytest.fixture(scope="module")
def a64():
    """The aarch64 build in the emulator."""
    return EmulatedLib("aarch64")


def _fc(lib, batches, fin, fout, x, w, bias, mult, shift, in_offset, out_zp, lo, hi, y):
    """flex_s8_fully_connected on `lib`, the input offset passed to the kernel."""
    q = Struct("flex_s8_quant", (in_offset, out_zp, lo, hi))
    status = lib.call("flex_s8_fully_connected", [
        batches, fin, fout, x, x.size, w, w.size, 0, bias, 0 if bias is None else fout,
        mult, shift, mult.size, q, y, y.size])
    assert status == 0


class _Unfolded:
    """fully_connected_s8 of a kernel set (burn.host.flex.kernels_s8) that hands the input
    zero point to the kernel instead of folding it into the bias."""

    def __init__(self, lib):
        self.lib = lib

    def fully_connected_s8(self, inp, w, bias, mult, shift, out, batches, fin, fout, in_zp,
                           out_zp, lo, hi):
        """int8 fully connected with input offset -in_zp."""
        _fc(self.lib, batches, fin, fout, np.ascontiguousarray(inp, np.int8).ravel(),
            np.ascontiguousarray(w, np.int8).ravel(), np.asarray(bias, np.int32),
            np.asarray(mult, np.int32), np.asarray(shift, np.int32), -in_zp, out_zp, lo, hi,
            out)


def test_fully_connected_equals_tflm(a64):
    rng = np.random.default_rng(31)
    for _ in range(6):
        case = fc_case(rng)
        for kernels in (_Unfolded(a64), GraphKernels(a64)):
            assert np.array_equal(case.run(kernels), case.want), case.name


def test_pointwise_conv_and_its_fallbacks_equal_tflm(a64):
    """1x1 stride-1 convolutions (SDOT) over 1 to 40 channels, and a 3x3 and a strided 1x1
    one (the reference kernel)."""
    rng = np.random.default_rng(34)
    kernels = GraphKernels(a64)
    for shape in [(2, 1, 1, 1, 1), (5, 3, 1, 1, 7), (4, 17, 1, 1, 5), (3, 40, 1, 1, 9),
                  (5, 4, 3, 1, 6), (6, 8, 1, 2, 4)]:
        case = conv_case(rng, False, shape)
        assert np.array_equal(case.run(kernels), case.want), case.name


def test_fully_connected_equals_host(a64):
    rng = np.random.default_rng(32)
    for batches, fin, fout, per_channel, in_offset in [
            (1, 1, 1, False, 128), (2, 15, 3, True, -127), (1, 16, 4, True, 0),
            (3, 17, 5, False, 128), (1, 33, 7, True, 77), (2, 100, 9, True, -127)]:
        x = rng.integers(-128, 128, batches * fin, dtype=np.int8)
        w = rng.integers(-128, 128, fin * fout, dtype=np.int8)
        w[::3] = -128
        n = fout if per_channel else 1
        mult = rng.integers(1 << 30, 1 << 31, n, dtype=np.int64).astype(np.int32)
        shift = rng.integers(-14, -6, n, dtype=np.int32)
        for bias in (rng.integers(-(1 << 20), 1 << 20, fout, dtype=np.int32), None):
            outs = []
            for lib in (host(), a64):
                y = np.zeros(batches * fout, np.int8)
                _fc(lib, batches, fin, fout, x, w, bias, mult, shift, in_offset, 3, -128, 127,
                    y)
                outs.append(y)
            assert np.array_equal(outs[0], outs[1]), (batches, fin, fout, bias is None)


def test_fully_connected_output_over_its_input(a64):
    rng = np.random.default_rng(33)
    batches, fin, fout = 3, 40, 24
    mult, shift = np.array([1 << 30], np.int32), np.array([-9], np.int32)
    bias = rng.integers(-3000, 3000, fout, dtype=np.int32)
    w = rng.integers(-128, 128, fin * fout, dtype=np.int8)
    arena = rng.integers(-128, 128, batches * fin, dtype=np.int8)
    want = np.zeros(batches * fout, np.int8)
    _fc(host(), batches, fin, fout, arena.copy(), w, bias, mult, shift, 5, 0, -128, 127, want)
    _fc(a64, batches, fin, fout, arena, w, bias, mult, shift, 5, 0, -128, 127,
        arena[:batches * fout])
    assert np.array_equal(arena[:batches * fout], want)


def test_fully_connected_runs_sdot():
    """The kernel executes SDOT (vector, 4S <- 16B) instructions."""
    a64 = EmulatedLib("aarch64")
    x, w = np.ones(32, np.int8), np.ones(32, np.int8)
    one = np.array([1 << 30], np.int32), np.array([-1], np.int32)
    words = []

    def on_block(addr, size):
        code = a64.read_code(addr, size)
        words.extend(np.frombuffer(code, np.uint32).tolist())

    y = np.zeros(1, np.int8)
    q = Struct("flex_s8_quant", (0, 0, -128, 127))
    status = a64.trace_blocks("flex_s8_fully_connected", [
        1, 32, 1, x, 32, w, 32, 0, None, 0, one[0], one[1], 1, q, y, 1], on_block)
    assert status == 0 and y[0] == 8  # 32 * 2^30 / 2^31 / 2
    assert any(word & 0xBFE0FC00 == 0x0E809400 for word in words)


@pytest.mark.parametrize("h,w,ic,oc,extra", [(25, 5, 64, 64, 0), (6, 6, 16, 200, 5)])
def test_pointwise_conv_in_place(a64, h, w, ic, oc, extra):
    """Output over input as the .bst arena plans it (tests/in_place.py), -128 weights."""
    assert_same_in_place(GraphKernels(a64), GraphKernels(),
                         *in_place_conv_case(h, w, ic, oc, 1, 1, extra, -128))


def test_fully_connected_rows_in_place(a64):
    assert_same_in_place(GraphKernels(a64), GraphKernels(), *fully_connected_case())

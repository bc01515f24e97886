"""The Cortex-M0+, Cortex-M4F, Cortex-M33, RISC-V and AArch64 builds of flex_c (the M4F's
and M33's with the DSP kernels), run in the unicorn emulator, and the Cortex-M55's (its
Helium kernels) in QEMU, give every int8 kernel's output equal to the host build's and to
TFLM's on random shapes and data."""

import shutil

import numpy as np
import pytest
from s8_cases import make_cases

from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.qemu_lib import QemuLib


def _equal_host_and_tflm(lib):
    host, emulated = GraphKernels(), GraphKernels(lib)
    failures = []
    for case in make_cases(seed=7, count=4):
        ours, theirs = case.run(emulated), case.run(host)
        if not (np.array_equal(ours, theirs) and np.array_equal(ours, case.want)):
            failures.append("%s: emulated %s, host %s, tflm %s" % (
                case.name, ours[:8], theirs[:8], case.want[:8]))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("target", ["cortex-m0plus", "cortex-m4f", "cortex-m33", "riscv32",
                                    "aarch64"])
def test_emulated_int8_kernels_equal_host_and_tflm(target):
    _equal_host_and_tflm(EmulatedLib(target))


@pytest.mark.skipif(shutil.which("qemu-system-arm") is None,
                    reason="the Cortex-M55 runs in QEMU: apt-get install -y qemu-system-arm")
def test_cortex_m55_int8_kernels_equal_host_and_tflm():
    with QemuLib("cortex-m55") as lib:
        _equal_host_and_tflm(lib)


def test_one_channel_depthwise_and_odd_window_rows_equal_tflm():
    """Depthwise convolutions of one input channel with a depth multiplier (person_detect's
    first layer: 3x3, stride 2, multiplier 8), and the convolutions the importer makes of
    them and others whose window rows are odd (3x3 over one or three channels), on the
    Cortex-M0+ and the host."""
    from s8_cases import conv_case

    rng = np.random.default_rng(11)
    cases = [conv_case(rng, True, (12, 1, 3, 2, 8)), conv_case(rng, True, (9, 1, 5, 1, 3)),
             conv_case(rng, False, (10, 1, 3, 2, 8)), conv_case(rng, False, (8, 3, 3, 1, 16))]
    for kernels in (GraphKernels(EmulatedLib("cortex-m0plus")), GraphKernels()):
        for case in cases:
            assert np.array_equal(case.run(kernels), case.want), case.name


def test_emulated_status_codes_equal_host():
    emulated = GraphKernels(EmulatedLib("cortex-m0plus"))
    x, y = np.zeros(12, np.int8), np.zeros(12, np.int8)
    with pytest.raises(ValueError, match="flex_s8_softmax: bad shape"):
        emulated.softmax_s8(x, y, 0, 12, 1 << 30, 1, -10)
    with pytest.raises(ValueError, match="flex_s8_requantize: parameter out of range"):
        emulated.requantize_s8(x, y, 12, 0, 0, 1 << 30, 40)


def test_fully_connected_input_offset_path_equals_host():
    """The kernels' own input-offset handling (GraphKernels folds it away) on the emulator."""
    from burn.host.flex.binding import Struct, host

    rng = np.random.default_rng(9)
    lib = EmulatedLib("cortex-m0plus")
    for batches, fin, fout in [(1, 37, 5), (2, 64, 12), (3, 8, 1)]:
        x = rng.integers(-128, 128, batches * fin, dtype=np.int8)
        w = rng.integers(-127, 128, fin * fout, dtype=np.int8)
        bias = rng.integers(-5000, 5000, fout, dtype=np.int32)
        mult = rng.integers(1 << 29, 1 << 31, fout, dtype=np.int64).astype(np.int32)
        shift = rng.integers(-12, -6, fout, dtype=np.int32)
        q = Struct("flex_s8_quant", (int(rng.integers(-127, 129)), 7, -128, 127))
        outs = []
        for target in (host(), lib):
            y = np.zeros(batches * fout, np.int8)
            status = target.call("flex_s8_fully_connected", [
                batches, fin, fout, x, x.size, w, w.size, 0, bias, fout, mult, shift, fout, q,
                y, y.size])
            assert status == 0
            outs.append(y)
        assert np.array_equal(outs[0], outs[1])

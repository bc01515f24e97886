"""QemuLib: flex_c's Cortex-M55 build (with MVE) driven in QEMU's mps3-an547 through its GDB
stub. Its outputs are the host's bit for bit (the case sets of test_m0_fast_paths.py and
test_emulated_in_place.py run on it too), and its instruction counts, read from SysTick
under `-icount shift=0`, agree with unicorn's count of the same code: the Cortex-M33 build,
which the M55 runs too."""

import shutil

import numpy as np
import pytest

from burn.host.flex.binding import Struct, host
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.m0_timing import Counter
from burn.host.flex.m4_timing import block_cost
from burn.host.flex.qemu_lib import QemuLib

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-arm") is None,
                                reason="QemuLib runs QEMU: apt-get install -y qemu-system-arm")


@pytest.fixture(scope="module")
def m55():
    with QemuLib("cortex-m55") as lib:
        yield lib


def _fc_args(rng, fin, fout):
    x = rng.integers(-128, 128, fin, dtype=np.int8)
    w = rng.integers(-127, 128, fin * fout, dtype=np.int8)
    bias = rng.integers(-3000, 3000, fout).astype(np.int32)
    mult = rng.integers(1 << 30, 1 << 31, fout).astype(np.int32)
    shift = rng.integers(-10, -5, fout).astype(np.int32)
    q = Struct("flex_s8_quant", (11, -3, -128, 127))
    y = np.zeros(fout, np.int8)
    return [1, fin, fout, x, x.size, w, w.size, 0, bias, fout, mult, shift, fout, q, y,
            y.size], y


@pytest.fixture(scope="module")
def m33_on_qemu():
    m33 = EmulatedLib("cortex-m33")
    with QemuLib("cortex-m55", image=m33.build.image) as lib:
        yield m33, lib


@pytest.mark.parametrize("fin, fout", [(640, 128), (256, 64)])
def test_counts_agree_with_unicorn_on_the_same_code(m33_on_qemu, fin, fout):
    m33, qemu = m33_on_qemu
    args, y = _fc_args(np.random.default_rng(fin), fin, fout)
    status, count = qemu.count("flex_s8_fully_connected", args)
    assert status == 0
    ours = y.copy()
    counter = Counter(m33, block_cost)
    assert m33.trace_blocks("flex_s8_fully_connected", args, counter.on_block) == 0
    assert np.array_equal(ours, y)
    assert host().call("flex_s8_fully_connected", args) == 0
    assert np.array_equal(ours, y)
    # the same code; SysTick's tick is 31.25 instructions
    assert abs(count - counter.instructions) <= 32, (count, counter.instructions)


def test_counts_grow_with_the_work(m55):
    rng = np.random.default_rng(1)
    small = m55.count("flex_s8_fully_connected", _fc_args(rng, 512, 32)[0])[1]
    large = m55.count("flex_s8_fully_connected", _fc_args(rng, 512, 64)[0])[1]
    assert 1.8 < large / small < 2.1, (small, large)


def test_bad_requests_are_refused_by_name(m55):
    with pytest.raises(AttributeError, match="no function flex_nothing"):
        m55.call("flex_nothing", [])
    with pytest.raises(ValueError, match="more float arguments than s0-s15 hold"):
        m55.call("flex_version", [1.5] * 17)
    with pytest.raises(ValueError, match="no QEMU machine for target 'cortex-m0plus'"):
        QemuLib("cortex-m0plus")
    with pytest.raises(MemoryError, match="DTCM"):
        m55.call("flex_s8_fully_connected", _fc_args(np.random.default_rng(2), 1024, 600)[0])
    assert m55.call("flex_version", []) > 0  # still usable after a refused call

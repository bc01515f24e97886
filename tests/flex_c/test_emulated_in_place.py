"""The Cortex-M0+ int8 kernels, the DSP ones of the M33 and the Helium ones of the M55, with
their output over their input, as the .bst arena plans it (docs/bst-format.md, "Arena and
in-place execution"), run in the unicorn emulator (the M55 in QEMU): the same bits as the
host computes out of place. Kernels that run
output channels in blocks (conv, fully connected) or channels in groups (3x3 depthwise)
must not overwrite inputs that a later block still reads."""

import shutil

import numpy as np
import pytest
from in_place import (
    assert_same_in_place,
    conv_case,
    fully_connected_case,
    planned_delta,
    pool_case,
    random_quant,
)

from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.qemu_lib import QemuLib

HOST = GraphKernels()


@pytest.fixture(scope="module", params=["cortex-m0plus", "cortex-m33", "riscv32", "cortex-m55"])
def m0(request):
    if request.param == "cortex-m55":
        if shutil.which("qemu-system-arm") is None:
            pytest.skip("the Cortex-M55 runs in QEMU: apt-get install -y qemu-system-arm")
        with QemuLib(request.param) as lib:
            yield GraphKernels(lib)
        return
    yield GraphKernels(EmulatedLib(request.param))


# (h, w, ic, oc, kernel, stride, extra bytes below the planned position)
CONVS = [(25, 5, 64, 64, 1, 1, 0),    # the KWS pointwise layers: four channel blocks
         (25, 5, 64, 64, 3, 1, 0),
         (6, 6, 16, 200, 1, 1, 0),    # blocks of the unpacked path
         (6, 6, 16, 200, 1, 1, 5),
         (9, 9, 32, 64, 3, 2, 3),
         (5, 5, 200, 8, 3, 1, 0),     # one block
         (4, 4, 8, 1100, 1, 1, 0),    # a pixel larger than the span buffer
         (10, 10, 2, 38, 3, 1, 0),    # patches from a padded band, k % 4 == 2, 38 channels
         (12, 12, 3, 40, 3, 1, 2)]    # odd window rows gathered, k odd


@pytest.mark.parametrize("h,w,ic,oc,k,s,extra", CONVS)
@pytest.mark.parametrize("w_min", [-127, -128])
def test_conv_in_place(m0, h, w, ic, oc, k, s, extra, w_min):
    """w_min -128: the paired dot products cannot take the filter."""
    assert_same_in_place(m0, HOST, *conv_case(h, w, ic, oc, k, s, extra, w_min))


# (h, w, channels, stride, padding): one tile, bands of output rows, bands with stride 2,
# more channels than the DSP build takes in one pass
DEPTHWISE = [(25, 5, 64, 1, 1), (40, 40, 8, 1, 1), (48, 48, 16, 2, 0), (24, 24, 8, 2, 1),
             (4, 4, 136, 1, 1)]


@pytest.mark.parametrize("h,w,c,s,p", DEPTHWISE)
@pytest.mark.parametrize("extra", [0, 1, 4, 64])
def test_depthwise_3x3_in_place(m0, h, w, c, s, p, extra):
    rng = np.random.default_rng(extra + h + c)
    oh, ow = (h + p + 1 - 3) // s + 1, (w + p + 1 - 3) // s + 1
    x = rng.integers(-128, 128, h * w * c, dtype=np.int8)
    wt = rng.integers(-127, 128, 9 * c, dtype=np.int8)
    bias, mult, shift = random_quant(rng, c)
    params = {"stride_h": s, "stride_w": s, "pad_top": p, "pad_left": p}
    delta = planned_delta("depthwise_conv2d", params, (1, h, w, c), (1, oh, ow, c)) + extra

    def run(lib, xi, y):
        lib.depthwise_conv_s8(xi, wt, bias, mult, shift, y, 1, h, w, c, oh, ow, 1, 3, 3, s, s,
                              1, 1, p, p, -128, -3, -128, 127)

    assert_same_in_place(m0, HOST, run, x, oh * ow * c, delta)


def test_fully_connected_rows_in_place(m0):
    assert_same_in_place(m0, HOST, *fully_connected_case())


@pytest.mark.parametrize("per_tensor", [False, True])
def test_few_fully_connected_rows_in_place(m0, per_tensor):
    """One block of 10 outputs, input zero point 0: the DSP build's unwidened rows."""
    assert_same_in_place(m0, HOST, *fully_connected_case(10, per_tensor))


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_pools_in_place(m0, kind):
    assert_same_in_place(m0, HOST, *pool_case(kind))

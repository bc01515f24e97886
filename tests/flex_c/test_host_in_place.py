"""The host build's int8 kernels with their output over their input, as the .bst arena plans
it (docs/bst-format.md, "Arena and in-place execution"): the same bits as out of place. The
convolution widens its weights in blocks of output channels once k x channels passes its
stack buffer; in place it must still finish every channel of a pixel before writing it."""

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

from burn.host.flex.graph_kernels import GraphKernels

HOST = GraphKernels()

# (h, w, ic, oc, kernel, stride, extra bytes below the planned position)
CONVS = [(8, 8, 64, 64, 3, 1, 0),       # k x oc = 36,864: two weight blocks (ResNet-8)
         (20, 20, 64, 64, 3, 1, 0),     # and several spans of pixels
         (6, 6, 256, 256, 1, 1, 0),     # pointwise, two blocks
         (10, 10, 128, 300, 1, 1, 3),   # spans that end inside a row
         (9, 9, 96, 128, 3, 2, 0),      # strided, four blocks
         (25, 5, 64, 64, 1, 1, 0),      # one block
         (7, 7, 3, 20, 3, 1, 1)]        # AVX-512 VNNI: rows of 9 taps, 20 channels


@pytest.mark.parametrize("h,w,ic,oc,k,s,extra", CONVS)
def test_conv_in_place(h, w, ic, oc, k, s, extra, s8_width):
    assert_same_in_place(HOST, HOST, *conv_case(h, w, ic, oc, k, s, extra))


@pytest.mark.parametrize("k", [3, 5])
def test_depthwise_in_place(k, s8_width):
    rng = np.random.default_rng(k)
    h, w, c = 25, 5, 64
    x = rng.integers(-128, 128, h * w * c, dtype=np.int8)
    wt = rng.integers(-127, 128, k * k * c, dtype=np.int8)
    bias, mult, shift = random_quant(rng, c)
    p = k // 2
    params = {"stride_h": 1, "stride_w": 1, "pad_top": p, "pad_left": p}
    delta = planned_delta("depthwise_conv2d", params, (1, h, w, c), (1, h, w, c))

    def run(lib, xi, y):
        lib.depthwise_conv_s8(xi, wt, bias, mult, shift, y, 1, h, w, c, h, w, 1, k, k, 1, 1,
                              1, 1, p, p, -128, -3, -128, 127)

    assert_same_in_place(HOST, HOST, run, x, h * w * c, delta)


def test_add_in_place(s8_width):
    rng = np.random.default_rng(7)
    size = 4000
    a = rng.integers(-128, 128, size, dtype=np.int8)
    b = rng.integers(-128, 128, size, dtype=np.int8)

    def run(lib, ai, y):
        lib.add_s8(ai, b, y, size, size, 3, 1 << 30, -1, -7, 1 << 30, -2, 5, 1 << 30, -3,
                   20, -128, 127)

    assert_same_in_place(HOST, HOST, run, a, size, 0)


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_pools_in_place(kind):
    assert_same_in_place(HOST, HOST, *pool_case(kind))


def test_fully_connected_in_place(s8_width):
    assert_same_in_place(HOST, HOST, *fully_connected_case())

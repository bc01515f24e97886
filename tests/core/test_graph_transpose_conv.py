"""burn.graph.transpose_conv2d: hand-computed int8 and float32 cases, plain == viper and no
allocation (the last two on MicroPython). tests/s8_cases.py compares with TFLM."""

import gc
from array import array

from checks import ON_MICROPYTHON, micropython_only, skip
from test_graph_kernels import Lcg

from burn.graph.transpose_conv2d import (
    transpose_conv_f32,
    transpose_conv_s8,
    transpose_conv_s8_fast,
    transpose_conv_s8_plain,
)

ONE_MULT, ONE_SHIFT = 1 << 30, 1  # the Q31 encoding of exactly 1.0


def test_stride_two_places_a_copy_of_the_kernel_per_pixel():
    # 1x1x2x1 input (zero point 1) -> 1x2x4x1, 2x2 kernel [1, 2; 3, 4], stride 2, no padding
    inp, out = array("b", [2, 11]), array("b", bytes(8))
    transpose_conv_s8(inp, bytes([1, 2, 3, 4]), array("i", [5]), array("i", [ONE_MULT]),
                      array("i", [ONE_SHIFT]), out, 1, 1, 2, 1, 2, 4, 1, 2, 2, 2, 2, 0, 0, 1,
                      -3, -128, 127)
    # (2 - 1) * k and (11 - 1) * k side by side, + bias 5 + output zero point -3
    assert list(out) == [3, 4, 12, 22, 5, 6, 32, 42]


def test_padding_crops_and_overlaps_add_up():
    # 3x3 kernel of ones, stride 1, pad 1: every output sums its 3x3 input neighbourhood
    x = array("f", [1.0, 2.0, 3.0, 4.0])
    out = array("f", bytes(16))
    transpose_conv_f32(x, array("f", [1.0] * 9), None, out, 1, 2, 2, 1, 2, 2, 1, 3, 3, 1, 1,
                       1, 1, 0)
    assert list(out) == [10.0, 10.0, 10.0, 10.0]
    transpose_conv_f32(x, array("f", [1.0] * 9), array("f", [-20.0]), out, 1, 2, 2, 1, 2, 2,
                       1, 3, 3, 1, 1, 1, 1, 1)  # RELU clamps the negative sums to 0
    assert list(out) == [0.0, 0.0, 0.0, 0.0]


def _random_case(rng):
    n, ih, iw, ic, oc = rng.next(1, 2), rng.next(1, 4), rng.next(1, 4), rng.next(1, 3), \
        rng.next(1, 3)
    kh, kw, sh, sw = rng.next(1, 3), rng.next(1, 3), rng.next(1, 3), rng.next(1, 3)
    oh, ow = (ih - 1) * sh + kh, (iw - 1) * sw + kw
    bias = array("i", [rng.next(-20000, 20000) for _ in range(oc)])
    mult = array("i", [rng.next(1 << 30, 0x7FFFFFFF) for _ in range(oc)])
    shift = array("i", [rng.next(-12, 0) for _ in range(oc)])
    args = (rng.s8(n * ih * iw * ic), bytes(rng.s8(oc * kh * kw * ic)), bias, mult, shift)
    geometry = (n, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, rng.next(0, kh - 1),
                rng.next(0, kw - 1), rng.next(-128, 127), rng.next(-128, 127), -128, 127)
    return args, geometry, n * oh * ow * oc


def test_viper_twin_matches_plain():
    if not ON_MICROPYTHON:
        assert transpose_conv_s8_fast is None and transpose_conv_s8 is transpose_conv_s8_plain
        skip("the viper twins exist on MicroPython only")
    rng = Lcg(11)
    for _ in range(40):
        args, geometry, size = _random_case(rng)
        a, b = array("b", bytes(size)), array("b", bytes(size))
        transpose_conv_s8_plain(*args, a, *geometry)
        transpose_conv_s8_fast(*args, b, *geometry)
        assert list(a) == list(b), geometry


def test_int8_kernel_allocates_nothing():
    micropython_only()
    args, geometry, size = _random_case(Lcg(5))
    out = array("b", bytes(size))
    transpose_conv_s8(*args, out, *geometry)
    gc.collect()
    before = gc.mem_alloc()
    transpose_conv_s8(*args, out, *geometry)
    assert gc.mem_alloc() - before == 0

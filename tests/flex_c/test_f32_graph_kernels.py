"""float32 NHWC graph kernels of flex_c (through GraphKernels) against burn.graph's f32_*
kernels on random shapes and geometries."""

from array import array

import numpy as np
import pytest

from burn.graph import (
    f32_conv,
    f32_depthwise_conv,
    f32_elementwise,
    f32_fully_connected,
    f32_mean,
    f32_pool,
    f32_softmax,
)
from burn.graph.geometry import out_size, pad_before
from burn.host.arena_plan import overlap_delta
from burn.host.bst_writer import GraphOp, GraphTensor
from burn.host.flex.binding import FlexError
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels

K = GraphKernels()


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def both(fn_ref, fn_flex, inputs, out_count, *args):
    """Run the burn.graph kernel on array('f') buffers and the flex one on numpy; returns
    (reference, flex) outputs."""
    ref_in = [None if a is None else array("f", a.ravel().tolist()) for a in inputs]
    ref_out = array("f", [0.0] * out_count)
    fn_ref(*ref_in, ref_out, *args)
    out = np.full(out_count, np.nan, np.float32)
    fn_flex(*inputs, out, *args)
    return np.array(ref_out, np.float32), out


def close(ref, ours):
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(ref).max()))


def geometry(rng, size, k, stride, dil):
    same = bool(rng.integers(0, 2))
    o = out_size(size, k, stride, dil, same)
    return o, pad_before(size, k, stride, dil, o)


def window_case(rng, max_k=4):
    kh, kw = int(rng.integers(1, max_k)), int(rng.integers(1, max_k))
    sh, sw, dh, dw = (int(v) for v in rng.integers(1, 3, size=4))
    ih = int(rng.integers((kh - 1) * dh + 1, 10))
    iw = int(rng.integers((kw - 1) * dw + 1, 10))
    oh, pt = geometry(rng, ih, kh, sh, dh)
    ow, pl = geometry(rng, iw, kw, sw, dw)
    return ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl


def test_conv_matches_graph_kernel():
    rng = np.random.default_rng(0)
    for case in range(40):
        groups = int(rng.choice([1, 1, 2, 3]))
        ic, oc = groups * int(rng.integers(1, 5)), groups * int(rng.integers(1, 6))
        n = int(rng.integers(1, 3))
        ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl = window_case(rng)
        x, w = rand(rng, n, ih, iw, ic), rand(rng, oc, kh, kw, ic // groups)
        bias = None if case % 4 == 0 else rand(rng, oc)
        act = case % 4
        ref, ours = both(f32_conv.conv_f32, K.conv_f32, [x, w, bias], n * oh * ow * oc,
                         n, ih, iw, ic, oh, ow, oc, kh, kw, groups, sh, sw, dh, dw, pt, pl, act)
        close(ref, ours)


def test_conv_pointwise_and_wide_channels():
    rng = np.random.default_rng(1)
    for ic, oc, kh, kw, pad in [(64, 64, 1, 1, 0), (1, 64, 10, 4, 1), (16, 32, 3, 3, 1),
                                (40, 24, 3, 3, 0)]:
        ih, iw = 12, 9
        oh, ow = ih + 2 * pad - kh + 1, iw + 2 * pad - kw + 1
        x, w, bias = rand(rng, 1, ih, iw, ic), rand(rng, oc, kh, kw, ic), rand(rng, oc)
        ref, ours = both(f32_conv.conv_f32, K.conv_f32, [x, w, bias], oh * ow * oc,
                         1, ih, iw, ic, oh, ow, oc, kh, kw, 1, 1, 1, 1, 1, pad, pad, 1)
        close(ref, ours)


def test_depthwise_matches_graph_kernel():
    rng = np.random.default_rng(2)
    for case in range(30):
        ic, mult, n = int(rng.integers(1, 9)), int(rng.choice([1, 1, 2, 3])), 1 + case % 2
        ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl = window_case(rng)
        oc = ic * mult
        x, w = rand(rng, n, ih, iw, ic), rand(rng, 1, kh, kw, oc)
        bias = None if case % 3 == 0 else rand(rng, oc)
        ref, ours = both(f32_depthwise_conv.depthwise_conv_f32, K.depthwise_conv_f32,
                         [x, w, bias], n * oh * ow * oc, n, ih, iw, ic, oh, ow, mult, kh, kw,
                         sh, sw, dh, dw, pt, pl, case % 4)
        close(ref, ours)


def test_fully_connected_matches_graph_kernel():
    rng = np.random.default_rng(3)
    for batches, fin, fout, act in [(1, 64, 12, 0), (3, 7, 5, 1), (2, 300, 33, 3), (1, 1, 1, 2)]:
        x, w = rand(rng, batches, fin), rand(rng, fout, fin)
        for bias in (None, rand(rng, fout)):
            ref, ours = both(f32_fully_connected.fully_connected_f32, K.fully_connected_f32,
                             [x, w, bias], batches * fout, batches, fin, fout, act)
            close(ref, ours)


@pytest.mark.parametrize("op", ["add_f32", "mul_f32"])
def test_binary_with_broadcast(op):
    rng = np.random.default_rng(4)
    for size, b_size, act in [(60, 60, 0), (60, 12, 1), (60, 1, 3), (24, 4, 2)]:
        a, b = rand(rng, size) * 4, rand(rng, b_size) * 4
        ref, ours = both(getattr(f32_elementwise, op), getattr(K, op), [a, b], size, size,
                         b_size, act)
        close(ref, ours)


@pytest.mark.parametrize("op", ["clamp_f32", "logistic_f32", "tanh_f32"])
def test_unary(op):
    rng = np.random.default_rng(5)
    x = rand(rng, 101) * 8
    extra = (3,) if op == "clamp_f32" else ()
    ref, ours = both(getattr(f32_elementwise, op), getattr(K, op), [x], 101, 101, *extra)
    close(ref, ours)


@pytest.mark.parametrize("op", ["avg_pool_f32", "max_pool_f32"])
def test_pools_match_graph_kernels(op):
    rng = np.random.default_rng(6)
    for case in range(20):
        c, n = int(rng.integers(1, 9)), 1 + case % 2
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        sh, sw = (int(v) for v in rng.integers(1, 3, size=2))
        ih, iw = int(rng.integers(kh, 10)), int(rng.integers(kw, 10))
        oh, pt = geometry(rng, ih, kh, sh, 1)
        ow, pl = geometry(rng, iw, kw, sw, 1)
        x = rand(rng, n, ih, iw, c)
        ref, ours = both(getattr(f32_pool, op), getattr(K, op), [x], n * oh * ow * c,
                         n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl, case % 4)
        close(ref, ours)


def test_mean_and_softmax():
    rng = np.random.default_rng(7)
    for outer, reduce, inner in [(1, 125, 64), (3, 4, 1), (2, 5, 7)]:
        x = rand(rng, outer, reduce, inner)
        close(*both(f32_mean.mean_f32, K.mean_f32, [x], outer * inner, outer, reduce, inner))
    for rows, depth, beta in [(1, 12, 1.0), (4, 10, 0.5), (2, 1, 2.0)]:
        x = rand(rng, rows, depth) * 5
        close(*both(f32_softmax.softmax_f32, K.softmax_f32, [x], rows * depth, rows, depth,
                    beta))


def test_bad_arguments_raise_errors_naming_the_kernel():
    x, w = np.zeros(16, np.float32), np.zeros(9, np.float32)
    out = np.zeros(16, np.float32)
    with pytest.raises(FlexError, match="conv2d"):  # act code 7 does not exist
        K.conv_f32(x, w, None, out, 1, 4, 4, 1, 4, 4, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 7)
    with pytest.raises(ValueError, match="buffer holds"):
        K.depthwise_conv_f32(x, w, None, out, 1, 5, 5, 1, 5, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0)
    with pytest.raises(FlexError, match="add"):  # b_size does not divide size
        K.add_f32(x, x, out, 16, 5, 0)


def overlapped(x, out_count, delta_bytes):
    """(input view, output view) in one buffer, the output starting `delta_bytes` below the
    input (above it when negative), as the .bst arena planner may place them."""
    d = delta_bytes // 4
    buf = np.full(max(d, 0) + x.size + max(-d, 0) + out_count, np.nan, np.float32)
    xi = buf[max(d, 0):max(d, 0) + x.size]
    xi[:] = x.ravel()
    return xi, buf[max(-d, 0):max(-d, 0) + out_count]


def in_place_case(kind, rng):
    """(op, x, run(x, out)) of a windowed / fully connected op whose output is larger per
    unit than its input, so that the planner overlaps them."""
    if kind == "fully_connected":
        fin, fout, batches = 5, 9, 4
        w, bias = rand(rng, fout, fin), rand(rng, fout)
        op = GraphOp(kind, [0], [1], {"w": w})
        shapes = ((batches, fin), (batches, fout))
        return op, shapes, lambda x, y: K.fully_connected_f32(x, w, bias, y, batches, fin,
                                                              fout, 1)
    ih, iw, ic, oc, k = 7, 6, 2, 4, 3
    params = {"stride_h": 1, "stride_w": 1, "pad_top": 1, "pad_left": 1}
    shapes = ((1, ih, iw, ic), (1, ih, iw, ic if "pool" in kind else oc))
    geo = (1, 1, 1, 1, 1, 1, 0)
    if kind == "conv2d":
        w, bias = rand(rng, oc, k, k, ic), rand(rng, oc)
        return GraphOp(kind, [0], [1], params=params), shapes, lambda x, y: K.conv_f32(
            x, w, bias, y, 1, ih, iw, ic, ih, iw, oc, k, k, 1, *geo)
    if kind == "depthwise_conv2d":
        w = rand(rng, 1, k, k, oc)
        return GraphOp(kind, [0], [1], params=params), shapes, lambda x, y: \
            K.depthwise_conv_f32(x, w, None, y, 1, ih, iw, ic, ih, iw, oc // ic, k, k, *geo)
    return GraphOp(kind, [0], [1], params=params), shapes, lambda x, y: K.max_pool_f32(
        x, y, 1, ih, iw, ic, ih, iw, k, k, 1, 1, 1, 1, 0)


@pytest.mark.parametrize("kind", ["conv2d", "depthwise_conv2d", "max_pool2d",
                                  "fully_connected"])
def test_output_overlapping_its_input_as_the_arena_plans(kind):
    rng = np.random.default_rng(8)
    op, (xs, ys), run = in_place_case(kind, rng)
    delta = overlap_delta(op, 0, [GraphTensor("x", xs, "float32"),
                                  GraphTensor("y", ys, "float32")])
    x = rand(rng, *xs)
    want = np.full(int(np.prod(ys)), np.nan, np.float32)
    run(x, want)
    xi, yo = overlapped(x, want.size, delta)
    assert np.shares_memory(xi, yo)
    run(xi, yo)
    assert np.array_equal(yo, want)


def test_emulated_cortex_m0plus_build_matches_graph_kernels():
    """The microcontroller build: small stack scratch, so im2col runs in many blocks."""
    m0 = GraphKernels(EmulatedLib("cortex-m0plus"))
    rng = np.random.default_rng(9)
    ih, iw, ic, oc = 6, 5, 8, 6
    x, bias = rand(rng, 1, ih, iw, ic), rand(rng, oc)
    for k, groups in [(3, 1), (1, 1), (3, 2)]:
        w = rand(rng, oc, k, k, ic // groups)
        pad = k // 2
        args = (1, ih, iw, ic, ih, iw, oc, k, k, groups, 1, 1, 1, 1, pad, pad, 3)
        close(*both(f32_conv.conv_f32, m0.conv_f32, [x, w, bias], ih * iw * oc, *args))
    w = rand(rng, 1, 3, 3, ic * 2)
    close(*both(f32_depthwise_conv.depthwise_conv_f32, m0.depthwise_conv_f32,
                [x, w, None], ih * iw * ic * 2, 1, ih, iw, ic, ih, iw, 2, 3, 3, 1, 1, 1, 1,
                1, 1, 1))

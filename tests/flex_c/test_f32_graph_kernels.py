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
from burn.host.flex.binding import FlexError, host
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
    """The microcontroller build: small stack scratch, so a convolution packs its filter in
    several blocks of taps, reads bands of a few padded rows, or (a band too wide for the
    scratch) runs one GEMM per tap."""
    m0 = GraphKernels(EmulatedLib("cortex-m0plus"))
    rng = np.random.default_rng(9)
    ic, oc = 8, 6
    for ih, iw in [(6, 5), (4, 12)]:
        x, bias = rand(rng, 1, ih, iw, ic), rand(rng, oc)
        for k, groups in [(3, 1), (1, 1), (3, 2)]:
            w = rand(rng, oc, k, k, ic // groups)
            pad = k // 2
            args = (1, ih, iw, ic, ih, iw, oc, k, k, groups, 1, 1, 1, 1, pad, pad, 3)
            close(*both(f32_conv.conv_f32, m0.conv_f32, [x, w, bias], ih * iw * oc, *args))
    ih, iw = 6, 5
    x, w = rand(rng, 1, ih, iw, ic), rand(rng, 1, 3, 3, ic * 2)
    close(*both(f32_depthwise_conv.depthwise_conv_f32, m0.depthwise_conv_f32,
                [x, w, None], ih * iw * ic * 2, 1, ih, iw, ic, ih, iw, 2, 3, 3, 1, 1, 1, 1,
                1, 1, 1))


def test_emulated_fully_connected_is_one_dot_product_per_output():
    """The microcontroller build's fully connected layer: TFLM's sums, output by output,
    also with the output over its input (through a row buffer)."""
    m0 = GraphKernels(EmulatedLib("cortex-m0plus"))
    rng = np.random.default_rng(4)
    for batches, fin, fout, act, with_bias in [(1, 16, 16, 1, True), (3, 40, 10, 0, False),
                                               (2, 7, 300, 3, True)]:
        x, w = rand(rng, batches, fin), rand(rng, fout, fin)
        bias = rand(rng, fout) if with_bias else None
        close(*both(f32_fully_connected.fully_connected_f32, m0.fully_connected_f32,
                    [x, w, bias], batches * fout, batches, fin, fout, act))
    x, w, bias = rand(rng, 4, 12), rand(rng, 12, 12), rand(rng, 12)
    want = np.maximum(x @ w.T + bias, 0).astype(np.float32).ravel()
    buf = x.ravel().copy()  # the output over the input, row by row
    m0.fully_connected_f32(buf, w, bias, buf, 4, 12, 12, 1)
    close(want, buf)


ACTS = {0: (-np.inf, np.inf), 1: (0.0, np.inf), 2: (-1.0, 1.0), 3: (0.0, 6.0)}


def np_conv(x, w, bias, n, ih, iw, ic, oh, ow, oc, kh, kw, groups, sh, sw, dh, dw, pt, pl,
            act):
    """NHWC convolution with OHWI filters in float64 numpy, the geometry and activation
    codes of burn.graph.f32_conv (a reference fast enough for large shapes)."""
    x = np.asarray(x, np.float64).reshape(n, ih, iw, ic)
    w = np.asarray(w, np.float64).reshape(oc, kh, kw, ic // groups)
    hp = max(pt + ih, (oh - 1) * sh + (kh - 1) * dh + 1)
    wp = max(pl + iw, (ow - 1) * sw + (kw - 1) * dw + 1)
    xp = np.zeros((n, hp, wp, ic))
    xp[:, pt:pt + ih, pl:pl + iw] = x
    y = np.zeros((n, oh, ow, oc))
    gi, go = ic // groups, oc // groups
    for ky in range(kh):
        for kx in range(kw):
            cols = xp[:, ky * dh:ky * dh + (oh - 1) * sh + 1:sh,
                      kx * dw:kx * dw + (ow - 1) * sw + 1:sw]
            for g in range(groups):
                y[..., g * go:(g + 1) * go] += cols[..., g * gi:(g + 1) * gi] @ \
                    w[g * go:(g + 1) * go, ky, kx].T
    if bias is not None:
        y += np.asarray(bias, np.float64)
    return np.clip(y, *ACTS[act]).reshape(-1)


def conv_case(rng, n, ih, iw, ic, oc, kh, kw, groups=1, sh=1, sw=1, dh=1, dw=1, pt=0, pl=0,
              pb=0, pr=0, act=1, bias=True):
    """(inputs, geometry args) of a convolution with the given padding."""
    oh = (ih + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (iw + pl + pr - (kw - 1) * dw - 1) // sw + 1
    x, w = rand(rng, n, ih, iw, ic), rand(rng, oc, kh, kw, ic // groups)
    b = rand(rng, oc) if bias else None
    return [x, w, b], (n, ih, iw, ic, oh, ow, oc, kh, kw, groups, sh, sw, dh, dw, pt, pl, act)


def check_conv(inputs, args):
    out = np.full(args[0] * args[4] * args[5] * args[6], np.nan, np.float32)
    K.conv_f32(*inputs, out, *args)
    close(np_conv(*inputs, *args), out)


GATHER_SHAPES = [
    dict(n=2, ih=13, iw=11, ic=64, oc=72, kh=1, kw=1, act=0),  # pointwise, a 16-column tail
    dict(n=1, ih=17, iw=15, ic=24, oc=20, kh=3, kw=3, sh=2, sw=2),  # windows inside the image
    dict(n=1, ih=40, iw=60, ic=32, oc=16, kh=3, kw=3, sh=2, sw=2, pt=1, pl=1, pb=1, pr=1,
         act=3),  # many bands of padded rows
    dict(n=1, ih=9, iw=9, ic=40, oc=200, kh=3, kw=3, sh=2, sw=2, pt=1, pl=1, pb=1, pr=1,
         bias=False),  # two blocks of taps, two blocks of output channels
    dict(n=2, ih=12, iw=11, ic=8, oc=6, kh=3, kw=3, groups=2, dh=2, dw=2, pt=2, pl=2, pb=2,
         pr=2, act=2),  # groups and dilation: one run per tap
    dict(n=1, ih=5, iw=12, ic=600, oc=5, kh=3, kw=3, pt=1, pl=1, pb=1, pr=1),  # band too big
    dict(n=1, ih=49, iw=10, ic=1, oc=64, kh=10, kw=4, sh=2, sw=2, pt=5, pl=1, pb=4, pr=1),
    dict(n=1, ih=9, iw=8, ic=3, oc=17, kh=5, kw=5, pt=2, pl=2, pb=2, pr=2, act=0),
]


@pytest.mark.parametrize("shape", GATHER_SHAPES)
def test_conv_gather_paths_match_numpy(shape):
    rng = np.random.default_rng(10)
    check_conv(*conv_case(rng, **shape))


WINOGRAD_SHAPES = [
    dict(n=2, ih=7, iw=9, ic=8, oc=8, kh=3, kw=3, pt=1, pl=1, pb=1, pr=1),  # odd output width
    dict(n=1, ih=6, iw=10, ic=16, oc=24, kh=1, kw=3, pl=1, pr=1, act=0),
    dict(n=1, ih=11, iw=12, ic=24, oc=40, kh=5, kw=3, sh=2, pt=2, pl=1, pb=2, pr=0),
    dict(n=1, ih=9, iw=8, ic=16, oc=16, kh=3, kw=3, dh=2, pt=2, pl=1, pb=2, pr=1, act=3),
    dict(n=1, ih=8, iw=9, ic=8, oc=16, kh=3, kw=3, act=2, bias=False),  # no padding
    dict(n=1, ih=12, iw=70, ic=32, oc=48, kh=3, kw=3, pt=1, pl=1, pb=1, pr=1),  # many bands
    dict(n=1, ih=6, iw=7, ic=64, oc=48, kh=3, kw=3, pt=1, pl=1, pb=1, pr=1),  # 2 channel blocks
]


@pytest.mark.parametrize("shape", WINOGRAD_SHAPES)
def test_conv_winograd_rows_match_numpy(shape):
    """Three filter columns, column stride 1, channels in multiples of 8: Winograd F(2, 3)."""
    rng = np.random.default_rng(11)
    check_conv(*conv_case(rng, **shape))


@pytest.mark.skipif(host().lib.flex_f32_vector_width(0) != 16,
                    reason="needs an x86-64 CPU with AVX-512 (the 16-float path)")
@pytest.mark.parametrize("shape", GATHER_SHAPES + WINOGRAD_SHAPES + [
    dict(n=1, ih=5, iw=7, ic=16, oc=44, kh=1, kw=1),  # 44 columns: one 3-panel tile
    dict(n=1, ih=3, iw=5, ic=8, oc=33, kh=3, kw=3, pt=1, pl=1, pb=1, pr=1, act=3),
    dict(n=1, ih=25, iw=5, ic=64, oc=64, kh=1, kw=1),  # KWS's pointwise: 4-panel tiles
    dict(n=1, ih=7, iw=3, ic=24, oc=24, kh=1, kw=1, act=2),  # a 2-panel tile, 8 rows
])
def test_avx512_path_gives_the_bits_of_the_avx2_path(shape):
    """On an AVX-512 host the GEMM tiles run 16 floats wide; each output still sums its taps
    in the same order, so capping the width at 8 must not change a bit."""
    lib = host().lib
    inputs, args = conv_case(np.random.default_rng(12), **shape)
    outs = []
    try:
        for width in (8, 16):
            lib.flex_f32_vector_width(width)
            outs.append(np.full(args[0] * args[4] * args[5] * args[6], np.nan, np.float32))
            K.conv_f32(*inputs, outs[-1], *args)
    finally:
        lib.flex_f32_vector_width(16)
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


DW3_WIDTH_CASES = [  # (ih, iw, channels, pad_left, bias, act): 16-channel blocks, then 8
    (25, 5, 64, 1, True, 1),    # KWS's depthwise
    (6, 9, 24, 0, False, 3),    # one 16-channel block and one of 8, rows of 7
    (5, 11, 40, 2, True, 0),    # two blocks of 16, one of 8, a tile of 8 and one of 3
    (4, 3, 13, 1, True, 2),     # 8 channels and 5 one at a time
    (7, 6, 128, 1, False, 1),   # eight blocks of 16
]


@pytest.mark.skipif(host().lib.flex_f32_vector_width(0) != 16,
                    reason="needs an x86-64 CPU with AVX-512 (the 16-float path)")
@pytest.mark.parametrize("case", DW3_WIDTH_CASES)
def test_depthwise_3x3_avx512_gives_the_bits_of_avx2(case):
    """The 3x3 depthwise row tiles run 16 channels wide on AVX-512 hosts; each output adds
    its taps in the same order, so capping the width at 8 changes no bit, in place (each
    tile through a buffer) as out of place."""
    ih, iw, c, pl, with_bias, act = case
    rng = np.random.default_rng(ih * iw + c)
    ow = iw + 2 * pl - 2
    x, w = rand(rng, 1, ih, iw, c), rand(rng, 1, 3, 3, c)
    bias = rand(rng, c) if with_bias else None
    x[0, ih // 2, iw // 2, c // 2] = np.nan
    params = {"stride_h": 1, "stride_w": 1, "pad_top": 1, "pad_left": pl}
    delta = overlap_delta(GraphOp("depthwise_conv2d", [0], [1], params=params), 0,
                          [GraphTensor("x", (1, ih, iw, c), "float32"),
                           GraphTensor("y", (1, ih, ow, c), "float32")])
    lib, outs = host().lib, []
    try:
        for width in (8, 16):
            lib.flex_f32_vector_width(width)
            for in_place in (False, True):
                y = np.full(ih * ow * c, np.nan, np.float32)
                xi, yo = overlapped(x, y.size, delta) if in_place else (x.ravel(), y)
                K.depthwise_conv_f32(xi, w, bias, yo, 1, ih, iw, c, ih, ow, 1, 3, 3, 1, 1, 1,
                                     1, 1, pl, act)
                outs.append(np.array(yo, np.float32))
    finally:
        lib.flex_f32_vector_width(16)
    ref, _ = both(f32_depthwise_conv.depthwise_conv_f32, K.depthwise_conv_f32,
                  [x, w, bias], ih * ow * c, 1, ih, iw, c, ih, ow, 1, 3, 3, 1, 1, 1, 1, 1,
                  pl, act)
    np.testing.assert_allclose(outs[0], ref, rtol=1e-5, atol=1e-5 * np.nanmax(np.abs(ref)))
    for got in outs[1:]:
        np.testing.assert_array_equal(got.view(np.uint32), outs[0].view(np.uint32))


@pytest.mark.parametrize("case", [
    (25, 5, 64, 64, 1, 1, 1, 0),   # KWS's pointwise: every channel in one tile of rows
    (9, 7, 40, 48, 1, 1, 1, 0),    # 3 panels
    (8, 9, 12, 20, 3, 2, 2, 1),    # strided 3x3 (no Winograd), padded: bands of rows
    (6, 8, 16, 16, 2, 2, 1, 1),    # 2x2 windows
])
def test_conv_in_place_without_scratch_at_each_width(case):
    """A convolution whose GEMM holds every output channel of a tile at once (at most 64,
    one block of at most 256 taps, AVX-512) writes over its input as the arena plans it
    without the stack scratch, each tile of pixels after it read all of its inputs; at
    width 8 it takes the scratch. The same bits either way, and as out of place."""
    ih, iw, ic, oc, k, s, _, pad = case
    rng = np.random.default_rng(sum(case))
    oh, ow = (ih + 2 * pad - k) // s + 1, (iw + 2 * pad - k) // s + 1
    x, w, bias = rand(rng, 1, ih, iw, ic), rand(rng, oc, k, k, ic), rand(rng, oc)
    params = {"stride_h": s, "stride_w": s, "pad_top": pad, "pad_left": pad}
    delta = overlap_delta(GraphOp("conv2d", [0], [1], params=params), 0,
                          [GraphTensor("x", (1, ih, iw, ic), "float32"),
                           GraphTensor("y", (1, oh, ow, oc), "float32")])
    args = (1, ih, iw, ic, oh, ow, oc, k, k, 1, s, s, 1, 1, pad, pad, 1)
    lib, outs = host().lib, []
    try:
        for width in (8, 16):
            lib.flex_f32_vector_width(width)
            want = np.full(oh * ow * oc, np.nan, np.float32)
            K.conv_f32(x, w, bias, want, *args)
            for extra in (0, 12):  # as planned, and 12 bytes further below
                xi, yo = overlapped(x, want.size, delta + extra)
                assert np.shares_memory(xi, yo)
                K.conv_f32(xi, w, bias, yo, *args)
                np.testing.assert_array_equal(np.array(yo).view(np.uint32),
                                              want.view(np.uint32))
            outs.append(want)
    finally:
        lib.flex_f32_vector_width(16)
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))
    close(np_conv(x, w, bias, *args), outs[1])


def test_conv_nan_reaches_the_outputs_whose_window_holds_it():
    """Exactly those on the gathered GEMM paths; on the Winograd path also the other outputs
    of the same tiles (four columns), never any further."""
    rng = np.random.default_rng(12)
    for kw, sw in [(2, 1), (3, 2), (3, 1)]:
        inputs, args = conv_case(rng, 1, 6, 9, 8, 8, 3, kw, sw=sw, pt=1, pl=1, pb=1, pr=1,
                                 act=int(rng.integers(0, 4)))
        inputs[0][0, 2, 4, 3] = np.nan
        want = np_conv(*inputs, *args).reshape(args[4], args[5], 8)
        out = np.full(want.size, np.nan, np.float32)
        K.conv_f32(*inputs, out, *args)
        out = out.reshape(want.shape)
        reach, got = np.isnan(want).any(axis=2), np.isnan(out).any(axis=2)
        first, last = -(-(6 - kw) // sw), 5 // sw  # windows of columns first..last hold it
        assert reach[1:4, first:last + 1].all() and reach.sum() == 3 * (last - first + 1)
        if kw == 3 and sw == 1:  # tiles of output columns 0-3 and 4-7 read input column 4
            assert got[reach].all() and not got[:, 8:].any() and not got[[0, 4, 5]].any()
        else:
            assert got.tolist() == reach.tolist()
        close(want[~got], out[~got])


def test_depthwise_channel_blocks_and_pixel_pairs():
    rng = np.random.default_rng(13)
    for ic, mult, kh, kw, s, d, ih, iw in [(64, 1, 3, 3, 1, 1, 6, 5), (107, 1, 3, 3, 1, 1, 5, 9),
                                            (40, 1, 3, 2, 2, 1, 7, 8), (16, 1, 3, 3, 1, 2, 8, 9),
                                            (8, 1, 5, 5, 1, 1, 5, 6), (24, 3, 3, 3, 2, 1, 6, 7)]:
        oh, pt = geometry(rng, ih, kh, s, d)
        ow, pl = geometry(rng, iw, kw, s, d)
        x, w = rand(rng, 1, ih, iw, ic), rand(rng, 1, kh, kw, ic * mult)
        bias = rand(rng, ic * mult) if ic % 2 else None
        ref, ours = both(f32_depthwise_conv.depthwise_conv_f32, K.depthwise_conv_f32,
                         [x, w, bias], oh * ow * ic * mult, 1, ih, iw, ic, oh, ow, mult, kh,
                         kw, s, s, d, d, pt, pl, ic % 4)
        close(ref, ours)


def test_depthwise_3x3_row_tiles():
    """A 3x3 depthwise convolution with column stride 1 (and at most 128 channels) runs in
    tiles of up to 8 pixels along a row: rows of 1 to 18 pixels (whole tiles and every
    remainder), windows cut by either edge with up to 2 columns of padding, row stride and
    dilation 2, channel counts with a remainder past the last multiple of 8, and 129
    channels, which take the pixel-by-pixel path."""
    rng = np.random.default_rng(16)
    for case, iw in enumerate(range(1, 19)):
        ic = [8, 13, 24, 128, 129, 3][case % 6]
        sh, dh = 1 + case % 2, 1 + case // 2 % 2
        ih = int(rng.integers(2 * dh + 1, 7))
        oh, pt = geometry(rng, ih, 3, sh, dh)
        pl, pr = (int(v) for v in rng.integers(0, 3, size=2))
        if iw + pl + pr < 3:
            pl, pr = 1, 1
        ow = iw + pl + pr - 2
        x, w = rand(rng, 1, ih, iw, ic), rand(rng, 1, 3, 3, ic)
        bias = None if case % 3 == 0 else rand(rng, ic)
        ref, ours = both(f32_depthwise_conv.depthwise_conv_f32, K.depthwise_conv_f32,
                         [x, w, bias], oh * ow * ic, 1, ih, iw, ic, oh, ow, 1, 3, 3, sh, 1,
                         dh, 1, pt, pl, case % 4)
        close(ref, ours)


def test_fully_connected_with_blocks_of_features():
    rng = np.random.default_rng(14)
    batches, fin, fout = 7, 3000, 200
    x, w, bias = rand(rng, batches, fin), rand(rng, fout, fin), rand(rng, fout)
    out = np.full(batches * fout, np.nan, np.float32)
    K.fully_connected_f32(x, w, bias, out, batches, fin, fout, 3)
    want = np.clip(x.astype(np.float64) @ w.T.astype(np.float64) + bias, 0.0, 6.0)
    close(want.reshape(-1), out)


@pytest.mark.parametrize("ih,iw", [(30, 37), (3, 1100)])
@pytest.mark.parametrize("kind,kw,sw", [("conv2d", 3, 1), ("conv2d", 3, 2), ("conv2d", 2, 1),
                                        ("depthwise_conv2d", 3, 1)])
def test_in_place_over_several_spans(kind, kw, sw, ih, iw):
    """Large enough that the output is computed in several spans of the stack scratch (whole
    rows, or pieces of a row too long for it); the same bits as computed out of place."""
    rng = np.random.default_rng(15)
    ic, oc = 16, 16 * sw
    ow = (iw + 2 - kw) // sw + 1
    shapes = ((1, ih, iw, ic), (1, ih, ow, oc))
    params = {"stride_h": 1, "stride_w": sw, "pad_top": 1, "pad_left": 1}
    geo = (1, sw, 1, 1, 1, 1, 1)
    if kind == "conv2d":
        w, bias = rand(rng, oc, 3, kw, ic), rand(rng, oc)

        def run(x, y):
            K.conv_f32(x, w, bias, y, 1, ih, iw, ic, ih, ow, oc, 3, kw, 1, *geo)
    else:
        w = rand(rng, 1, 3, kw, oc)

        def run(x, y):
            K.depthwise_conv_f32(x, w, None, y, 1, ih, iw, ic, ih, ow, 1, 3, kw, *geo)
    delta = overlap_delta(GraphOp(kind, [0], [1], params=params), 0,
                          [GraphTensor("x", shapes[0], "float32"),
                           GraphTensor("y", shapes[1], "float32")])
    x = rand(rng, *shapes[0])
    want = np.full(int(np.prod(shapes[1])), np.nan, np.float32)
    run(x, want)
    xi, yo = overlapped(x, want.size, delta)
    assert np.shares_memory(xi, yo) and want.size * 4 > 16384 * 4
    run(xi, yo)
    assert np.array_equal(yo, want)

"""The one-kernel convolution windows of burn.host.cuda.windows give the bits of the numpy
versions in burn.host.backends.numpy_conv (strided inputs, stride, dilation, uneven
padding, broadcast contributions), and the cupy backend's convolutions follow numpy_conv.
The GPU tests need CuPy and a GPU and are skipped otherwise; the image-by-image input
gradient is also checked on numpy."""

import numpy as np
import pytest

from burn.host.backends import numpy_conv

GEOMETRIES = [  # kernel, stride, padding (top, bottom, left, right), dilation
    ((3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
    ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),
    ((1, 1), (2, 2), (0, 0, 0, 0), (1, 1)),
    ((2, 3), (2, 1), (0, 1, 2, 0), (2, 1)),
    ((3, 3), (3, 3), (1, 2, 0, 1), (1, 1)),
]


@pytest.fixture(scope="module")
def cupy():
    try:
        from burn.host.backends import cupy_backend  # noqa: F401
    except ImportError as e:
        pytest.skip("cupy: %s (the GPU tests need CuPy and a CUDA GPU)" % e)
    import cupy

    return cupy


def _out_hw(h, w, kernel, stride, padding, dilation):
    return tuple((size + lo + hi - d * (k - 1) - 1) // s + 1 for size, lo, hi, k, s, d in
                 ((h, padding[0], padding[1], kernel[0], stride[0], dilation[0]),
                  (w, padding[2], padding[3], kernel[1], stride[1], dilation[1])))


@pytest.mark.parametrize("wide", (False, True))
@pytest.mark.parametrize("kernel, stride, padding, dilation", GEOMETRIES)
def test_im2col_and_scatter_equal_numpy(cupy, monkeypatch, kernel, stride, padding, dilation,
                                        wide):
    """Both index widths: 32-bit as these sizes get, 64-bit as arrays past 2**31 would."""
    from burn.host.cuda import windows

    if wide:
        monkeypatch.setattr(windows, "WIDE_FROM", 0)

    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 9, 8)).astype(np.float32).transpose(1, 0, 2, 3)
    out_hw = _out_hw(9, 8, kernel, stride, padding, dilation)
    want = numpy_conv.im2col(np, x, kernel, stride, padding, dilation, out_hw)
    got = windows.im2col(cupy, cupy.asarray(x), kernel, stride, padding, dilation, out_hw)
    assert got.shape == want.shape and np.array_equal(got.get(), want)
    got = windows.im2col(cupy, cupy.asarray(x), kernel, stride, padding, dilation, out_hw,
                         by_image=True)
    assert np.array_equal(got.get(), want.transpose(3, 0, 1, 2, 4, 5))

    blocks = rng.standard_normal((3, *kernel, 2, *out_hw)).astype(np.float32)
    want = numpy_conv._scatter_windows(np, blocks, (3, 2, 9, 8), kernel, stride, padding,
                                       dilation, out_hw)
    got = windows.scatter_windows(cupy, cupy.asarray(blocks), (3, 2, 9, 8), kernel, stride,
                                  padding, dilation, out_hw)
    assert got.get().tobytes() == np.ascontiguousarray(want).tobytes()

    share = rng.standard_normal((3, 2, *out_hw)).astype(np.float32)
    wide = (3, *kernel, 2, *out_hw)
    want = numpy_conv._scatter_windows(np, np.broadcast_to(share[:, None, None], wide),
                                       (3, 2, 9, 8), kernel, stride, padding, dilation, out_hw)
    got = windows.scatter_windows(cupy, cupy.broadcast_to(cupy.asarray(share)[:, None, None],
                                                          wide),
                                  (3, 2, 9, 8), kernel, stride, padding, dilation, out_hw)
    assert got.get().tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("in_place", (True, False))
@pytest.mark.parametrize("kernel, stride, padding, dilation", GEOMETRIES)
@pytest.mark.parametrize("n, c, o", [(4, 3, 5), (3, 11, 70), (2, 40, 24)])
def test_convolutions_by_image_follow_numpy(cupy, monkeypatch, kernel, stride, padding,
                                            dilation, n, c, o, in_place):
    """The cupy backend's one-group convolution, weight gradient and input gradient against
    numpy_conv on the CPU, within float32 rounding: burn.host.cuda.conv's kernels, which
    read the windows in place (one tile of channels, two, several steps of 16 taps), and
    the products per image over by-image columns; the input also as a strided view."""
    from burn.host.backends.cupy_backend import _XP
    from burn.host.cuda import conv

    monkeypatch.setattr(conv, "IN_PLACE", in_place)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((n, c, 9, 8)).astype(np.float32)
    w = rng.standard_normal((o, c, *kernel)).astype(np.float32)
    out_hw = _out_hw(9, 8, kernel, stride, padding, dilation)
    g = rng.standard_normal((n, o, *out_hw)).astype(np.float32)
    want = numpy_conv.conv2d(np, x, w, 1, stride, padding, dilation, out_hw)
    want_w = numpy_conv.conv2d_grad_weight(np, g, x, w.shape, 1, stride, padding, dilation)
    wider = cupy.zeros((n, c, 9, 10), np.float32)
    wider[:, :, :, 1:9] = cupy.asarray(x)
    for xs in (cupy.asarray(x), wider[:, :, :, 1:9]):
        got = numpy_conv.conv2d(_XP, xs, cupy.asarray(w), 1, stride, padding, dilation,
                                out_hw)
        assert got.shape == want.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-4)
        got = numpy_conv.conv2d_grad_weight(_XP, cupy.asarray(g), xs, w.shape, 1, stride,
                                            padding, dilation)
        np.testing.assert_allclose(got.get(), want_w, rtol=1e-5, atol=1e-4)
    want = numpy_conv.conv2d_grad_input(np, g, w, x.shape, 1, stride, padding, dilation)
    got = numpy_conv.conv2d_grad_input(_XP, cupy.asarray(g), cupy.asarray(w), x.shape, 1,
                                       stride, padding, dilation)
    np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("kernel, stride, padding, dilation",
                         GEOMETRIES + [((3, 3), (1, 1), (3, 3, 3, 3), (1, 1))])
def test_grad_input_by_image_equals_the_batch_product(kernel, stride, padding, dilation):
    """numpy_conv's image-by-image input gradient (the cupy backend's for one group, which
    moves no channels) against the product over the whole batch, on numpy: no GPU needed.
    The last geometry pads past the kernel, which the stride-1 shortcut does not take."""
    rng = np.random.default_rng(3)
    n, c, o, h, w = 3, 4, 6, 9, 8
    out_hw = _out_hw(h, w, kernel, stride, padding, dilation)
    g = rng.standard_normal((n, o, *out_hw))
    wt = rng.standard_normal((o, c, *kernel))
    want = numpy_conv.conv2d_grad_input(np, g, wt, (n, c, h, w), 1, stride, padding, dilation)
    got = numpy_conv.grad_input_by_image(np, g, wt, (n, c, h, w), stride, padding, dilation)
    assert got.shape == (n, c, h, w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

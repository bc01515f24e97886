"""The flex backend agrees with the numpy backend on every float32 op it takes over, forward
and through the autodiff backward rules."""

import numpy as np
import pytest

import burn
import burn.host  # (registers the flex device)
from burn import dtype as dt
from burn.host.backends.flex_backend import BACKEND as FLEX
from burn.host.backends.numpy_backend import BACKEND as NUMPY

F = dt.float32


def _rand(rng, shape):
    return rng.standard_normal(shape).astype(np.float32).reshape(-1)


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


def test_flex_backend_matches_numpy_backend():
    rng = np.random.default_rng(0)
    x = np.abs(_rand(rng, (2, 3, 7, 6))) + 0.1
    for op in ("exp", "log", "tanh", "sigmoid", "relu", "sqrt", "neg", "erf"):
        close(FLEX.unary(op, x, x.size, F), NUMPY.unary(op, x, x.size, F))
    a, b = _rand(rng, (2, 3, 4)), _rand(rng, (3, 1))
    for op in ("add", "sub", "mul", "div", "maximum", "minimum"):
        close(FLEX.binary(op, a, (2, 3, 4), b, (3, 1), (2, 3, 4), F),
              NUMPY.binary(op, a, (2, 3, 4), b, (3, 1), (2, 3, 4), F))
    close(FLEX.binary("mul", a, (2, 3, 4), 2.5, (), (2, 3, 4), F), a * 2.5)
    for op in ("sum", "max", "min"):
        close(FLEX.reduce(op, a, (2, 3, 4), 1, F), NUMPY.reduce(op, a, (2, 3, 4), 1, F))
    m1, m2 = _rand(rng, (1, 5, 7)), _rand(rng, (3, 7, 4))
    close(FLEX.matmul(m1, (1, 5, 7), m2, (3, 7, 4), (3, 5, 4), F),
          NUMPY.matmul(m1, (1, 5, 7), m2, (3, 7, 4), (3, 5, 4), F))
    w, bias = _rand(rng, (4, 3, 3, 2)), _rand(rng, (4,))
    args = (w, (4, 3, 3, 2), bias, (2, 1), (1, 0, 1, 1), (1, 2), 1, (2, 4, 3, 6), F)
    close(FLEX.conv2d(x, (2, 3, 7, 6), *args), NUMPY.conv2d(x, (2, 3, 7, 6), *args))
    g = _rand(rng, (2, 4, 3, 6))
    grad = ((2, 1), (1, 0, 1, 1), (1, 2), 1)
    close(FLEX.conv2d_grad_input(g, (2, 4, 3, 6), w, (4, 3, 3, 2), (2, 3, 7, 6), *grad),
          NUMPY.conv2d_grad_input(g, (2, 4, 3, 6), w, (4, 3, 3, 2), (2, 3, 7, 6), *grad))
    close(FLEX.conv2d_grad_weight(g, (2, 4, 3, 6), x, (2, 3, 7, 6), (4, 3, 3, 2), *grad),
          NUMPY.conv2d_grad_weight(g, (2, 4, 3, 6), x, (2, 3, 7, 6), (4, 3, 3, 2), *grad))
    for op in ("max", "avg"):
        pargs = (op, x, (2, 3, 7, 6), (3, 2), (2, 2), (1, 1, 0, 0), (1, 1), True, False,
                 (2, 3, 4, 3), F)
        close(FLEX.pool2d(*pargs), NUMPY.pool2d(*pargs))
    gp = _rand(rng, (2, 3, 4, 3))
    pool = (x, (2, 3, 7, 6), (3, 2), (2, 2), (1, 1, 0, 0), (1, 1), (2, 3, 4, 3))
    close(FLEX.max_pool_grad(gp, None, *pool), NUMPY.max_pool_grad(gp, None, *pool))


def test_autodiff_over_flex_gives_numpys_gradients():
    import burn.host.backends.flex_backend  # noqa: F401  (registers "flex")
    from burn.host.autodiff import autodiff_device
    from burn.host.convert import to_numpy, to_tensor
    from burn.ops.conv import conv2d
    from burn.ops.pool import max_pool2d

    rng = np.random.default_rng(1)
    data = {k: rng.standard_normal(s).astype(np.float32) for k, s in
            [("x", (2, 3, 8, 8)), ("w", (4, 3, 3, 3)), ("b", (4,)), ("fc", (64, 5))]}
    grads = {}
    for inner in ("numpy", "flex"):
        dev = autodiff_device(inner)
        t = {k: to_tensor(v, dev) for k, v in data.items()}
        for v in t.values():
            v.requires_grad = True
        y = max_pool2d(conv2d(t["x"], t["w"], t["b"], padding=1).relu(), 2)
        (y.reshape((2, 64)).matmul(t["fc"]).tanh().sum()).backward()
        grads[inner] = {k: to_numpy(v.grad) for k, v in t.items()}
    assert dev.backend.name == "autodiff<flex>"
    for k in data:
        close(grads["flex"][k], grads["numpy"][k])


def test_avg_pool_gradient_runs_in_flex_c_for_both_divisor_rules():
    from burn.host.backends.window import pool_divisors

    rng = np.random.default_rng(2)
    x_shape, out_shape = (2, 3, 7, 6), (2, 3, 4, 4)
    window = ((3, 2), (2, 2), (1, 1, 1, 1), (1, 1))
    g = _rand(rng, out_shape)
    for include in (True, False):
        divisors = pool_divisors(x_shape, *window, out_shape, include)
        close(FLEX.avg_pool_grad(g, divisors, x_shape, *window, out_shape),
              NUMPY.avg_pool_grad(g, divisors, x_shape, *window, out_shape))
    odd = [d + 1.0 for d in divisors]  # divisors of neither rule: the numpy fallback
    close(FLEX.avg_pool_grad(g, odd, x_shape, *window, out_shape),
          NUMPY.avg_pool_grad(g, odd, x_shape, *window, out_shape))


def test_batch_norm_override_matches_the_composite():
    import burn
    from burn.host.convert import to_numpy, to_tensor

    rng = np.random.default_rng(3)
    data = {k: rng.standard_normal(s).astype(np.float32) + 3.0 for k, s in
            [("x", (4, 3, 5, 2)), ("mean", (3,)), ("w", (3,)), ("b", (3,))]}
    data["var"] = np.abs(data["mean"]) + 0.5
    for training in (False, True):
        out = {}
        for dev in ("numpy", "flex"):
            t = {k: to_tensor(v, dev) for k, v in data.items()}
            y = burn.batch_norm(t["x"], t["mean"], t["var"], t["w"], t["b"], training, 0.3,
                                1e-3)
            out[dev] = [to_numpy(v) for v in (y, t["mean"], t["var"])]
        assert training or np.array_equal(out["flex"][1], data["mean"])
        for ours, theirs in zip(out["flex"], out["numpy"]):
            close(ours, theirs)
    assert not np.allclose(out["flex"][1], data["mean"])  # training moved the statistics


def test_stride_one_input_gradient_as_a_convolution_matches_numpy():
    rng = np.random.default_rng(4)
    # (x shape, w shape, padding, dilation, groups): dilated, asymmetric and grouped; two
    # large images; then the direct kernel's cases: a padding beyond the kernel's reach,
    # 32 small images
    cases = [((1, 4, 9, 7), (6, 2, 3, 2), (2, 0, 1, 1), (2, 1), 2),
             ((2, 3, 12, 12), (5, 3, 3, 3), (1, 1, 1, 1), (1, 1), 1),
             ((1, 2, 5, 5), (3, 2, 2, 2), (2, 2, 0, 0), (1, 1), 1),
             ((32, 16, 4, 4), (32, 16, 3, 3), (1, 1, 1, 1), (1, 1), 1)]
    for xs, ws, pad, dil, groups in cases:
        oh = xs[2] + pad[0] + pad[1] - dil[0] * (ws[2] - 1)
        ow = xs[3] + pad[2] + pad[3] - dil[1] * (ws[3] - 1)
        gs = (xs[0], ws[0], oh, ow)
        g, w = _rand(rng, gs), _rand(rng, ws)
        args = (g, gs, w, ws, xs, (1, 1), pad, dil, groups)
        close(FLEX.conv2d_grad_input(*args), NUMPY.conv2d_grad_input(*args))


@pytest.mark.parametrize("shape, dim", [((0, 5), 1), ((3, 0), 1), ((2, 0, 4), 2)])
def test_softmax_of_an_empty_tensor_is_empty(shape, dim):
    x = burn.zeros(shape, device="flex")
    for y in (x.softmax(dim), x.log_softmax(dim)):
        assert y.shape == shape and y.device == x.device

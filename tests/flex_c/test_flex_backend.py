"""The flex backend agrees with the numpy backend on every float32 op it takes over, forward
and through the autodiff backward rules."""

import numpy as np

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

"""The public tensor API (pure backend) against torch on seeded random shapes: elementwise
ops with broadcasting, reductions, matmul, activations, softmax, conv2d, pooling and
normalisation. CPython only; each loop is small so the file runs in seconds."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import burn

RNG_SEED = 20240611


def rand_shape(rng, ndim, lo=1, hi=4):
    return tuple(int(s) for s in rng.integers(lo, hi + 1, size=ndim))


def to_burn(a):
    return burn.tensor(a.tolist(), dtype=burn.float32 if a.dtype.kind == "f" else burn.int32)


def to_torch(t):
    return torch.tensor(np.array(t.tolist(), dtype=np.float32 if t.dtype.is_float
                                 else np.int64))


def check(got, expected, tol=1e-5):
    exp = expected.detach().numpy() if isinstance(expected, torch.Tensor) else expected
    g = np.array(got.tolist(), dtype=np.float64)
    assert g.shape == np.shape(exp), (g.shape, np.shape(exp))
    np.testing.assert_allclose(g, exp, rtol=tol, atol=tol)


def broadcast_pair(rng):
    """Two shapes that broadcast: a random shape and a copy with some dims set to 1 or
    dropped from the front."""
    shape = rand_shape(rng, int(rng.integers(0, 4)))
    other = [1 if rng.random() < 0.4 else s for s in shape]
    other = other[int(rng.integers(0, len(other) + 1)):] if other else other
    return (shape, tuple(other)) if rng.random() < 0.5 else (tuple(other), shape)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "pow",
                                "eq", "lt", "ge"])
def test_binary_float_ops(op):
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(12):
        sa, sb = broadcast_pair(rng)
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        if op == "div":
            b = np.where(np.abs(b) < 0.1, 0.5, b).astype(np.float32)
        if op == "pow":
            a = np.abs(a) + 0.1
        got = getattr(to_burn(a), op)(to_burn(b))
        exp = getattr(torch, op)(torch.from_numpy(np.asarray(a)), torch.from_numpy(np.asarray(b)))
        check(got, exp.float() if exp.dtype == torch.bool else exp, 1e-5)


def test_integer_floordiv_mod_and_scalars():
    rng = np.random.default_rng(RNG_SEED + 1)
    for _ in range(10):
        sa, sb = broadcast_pair(rng)
        a = rng.integers(-50, 50, size=sa)
        b = rng.integers(1, 9, size=sb) * rng.choice([-1, 1], size=sb)
        ta, tb = torch.from_numpy(np.asarray(a)), torch.from_numpy(np.asarray(b))
        check(to_burn(a) // to_burn(b), torch.floor_divide(ta, tb))
        check(to_burn(a) % to_burn(b), torch.remainder(ta, tb))
        check(3 - to_burn(a), 3 - ta)
        check(to_burn(a) * 2.5, ta * 2.5)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh",
                                "sigmoid", "relu", "floor", "ceil", "round", "sign", "abs",
                                "neg", "reciprocal", "erf"])
def test_unary_ops(op):
    rng = np.random.default_rng(RNG_SEED + 2)
    shape = rand_shape(rng, 3)
    a = (rng.standard_normal(shape) * 3).astype(np.float32)
    if op in ("log", "sqrt", "rsqrt"):
        a = np.abs(a) + 0.05
    if op == "reciprocal":
        a = np.where(np.abs(a) < 0.1, 0.5, a).astype(np.float32)
    check(getattr(to_burn(a), op)(), getattr(torch, op)(torch.from_numpy(a)), 2e-5)


def test_reductions_with_dims_and_keepdim():
    rng = np.random.default_rng(RNG_SEED + 3)
    for _ in range(12):
        shape = rand_shape(rng, int(rng.integers(1, 5)), 2, 4)
        a = rng.standard_normal(shape).astype(np.float32)
        t, x = to_burn(a), torch.from_numpy(a)
        nd = len(shape)
        dims = tuple(sorted(set(int(d) for d in rng.integers(-nd, nd, size=2) % nd)))
        keep = bool(rng.integers(0, 2))
        check(t.sum(dims, keep), x.sum(dims, keep), 1e-4)
        check(t.mean(dims, keep), x.mean(dims, keep), 1e-5)
        check(t.var(dims, keep), x.var(dims, keepdim=keep), 1e-4)
        check(t.std(dims, keep, unbiased=False),
              x.std(dims, keepdim=keep, unbiased=False), 1e-4)
        d = dims[0]
        values, indices = t.max(d, keep)
        ev, ei = x.max(d, keep)
        check(values, ev)
        check(indices, ei)
        check(t.argmin(d), x.argmin(d))
        check(t.prod(d), x.prod(d), 1e-4)
        check(t.amax(dims), x.amax(dims))


def test_matmul_broadcasting():
    rng = np.random.default_rng(RNG_SEED + 4)
    cases = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
             ((5, 2, 3), (3, 4)), ((3, 4), (2, 4, 2)), ((2, 1, 2, 3), (4, 3, 2)),
             ((1, 2, 3), (3, 3, 1))]
    for sa, sb in cases:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        check(to_burn(a) @ to_burn(b), torch.from_numpy(a) @ torch.from_numpy(b), 1e-5)
    ai = rng.integers(-5, 5, size=(2, 3, 4))
    bi = rng.integers(-5, 5, size=(4, 2))
    check(burn.matmul(to_burn(ai), to_burn(bi)), torch.from_numpy(ai) @ torch.from_numpy(bi))


def test_activations_and_softmax():
    rng = np.random.default_rng(RNG_SEED + 5)
    for _ in range(5):
        shape = rand_shape(rng, 3, 1, 5)
        a = (rng.standard_normal(shape) * 4).astype(np.float32)
        t, x = to_burn(a), torch.from_numpy(a)
        dim = int(rng.integers(-3, 3))
        check(burn.relu6(t), F.relu6(x))
        check(burn.leaky_relu(t, 0.2), F.leaky_relu(x, 0.2))
        check(burn.gelu(t), F.gelu(x), 1e-5)
        check(burn.gelu(t, approximate="tanh"), F.gelu(x, approximate="tanh"), 1e-5)
        check(burn.silu(t), F.silu(x), 1e-5)
        check(burn.softmax(t, dim), F.softmax(x, dim), 1e-6)
        check(burn.log_softmax(t, dim), F.log_softmax(x, dim), 1e-5)
    big = np.array([[1000.0, 1001.0, -1000.0]], dtype=np.float32)
    check(burn.softmax(to_burn(big), 1), F.softmax(torch.from_numpy(big), 1), 1e-6)
    check(burn.log_softmax(to_burn(big), 1), F.log_softmax(torch.from_numpy(big), 1), 1e-4)


CONV_CASES = [
    # (n, c, h, w, o, k, stride, padding, dilation, groups)
    (1, 1, 5, 5, 1, (3, 3), 1, 0, 1, 1),
    (2, 3, 6, 5, 4, (3, 2), (2, 1), (1, 0), 1, 1),
    (1, 2, 7, 7, 2, (3, 3), 1, "same", 2, 1),
    (1, 2, 6, 6, 3, (2, 4), 1, "same", 1, 1),
    (1, 4, 6, 6, 4, (3, 3), 2, 1, 1, 4),       # depthwise
    (1, 4, 5, 6, 6, (3, 3), 1, "valid", (1, 2), 2),
    (2, 6, 4, 4, 4, (1, 1), 1, 0, 1, 2),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d(case):
    n, c, h, w, o, k, stride, padding, dilation, groups = case
    rng = np.random.default_rng(RNG_SEED + 6)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // groups) + k).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    got = burn.conv2d(to_burn(x), to_burn(wt), to_burn(b), stride, padding, dilation, groups)
    exp = F.conv2d(torch.from_numpy(x), torch.from_numpy(wt), torch.from_numpy(b), stride,
                   padding, dilation, groups)
    check(got, exp, 1e-4)


POOL_CASES = [
    # (h, w, kernel, stride, padding, dilation, ceil_mode, count_include_pad)
    (6, 6, 2, None, 0, 1, False, True),
    (7, 5, 3, 2, 1, 1, False, True),
    (7, 5, 3, 2, 1, 1, True, True),
    (7, 5, 3, 2, 1, 1, True, False),
    (8, 7, (3, 2), (2, 1), (1, 0), 1, False, False),
    (9, 9, 3, 2, 1, 2, True, True),
    (5, 5, 2, 2, 1, 1, True, True),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_pools(case):
    h, w, k, s, p, d, ceil, cip = case
    rng = np.random.default_rng(RNG_SEED + 7)
    x = rng.standard_normal((2, 3, h, w)).astype(np.float32)
    t, tx = to_burn(x), torch.from_numpy(x)
    check(burn.max_pool2d(t, k, s, p, d, ceil), F.max_pool2d(tx, k, s, p, d, ceil))
    if d == 1:
        check(burn.avg_pool2d(t, k, s, p, ceil, cip),
              F.avg_pool2d(tx, k, s, p, ceil, cip), 1e-5)


@pytest.mark.parametrize("size", [1, 2, 3, (2, 4), (5, 3), (None, 2)])
def test_adaptive_avg_pool(size):
    rng = np.random.default_rng(RNG_SEED + 8)
    x = rng.standard_normal((2, 2, 7, 6)).astype(np.float32)
    check(burn.adaptive_avg_pool2d(to_burn(x), size),
          F.adaptive_avg_pool2d(torch.from_numpy(x), size), 1e-5)


def test_layer_norm_and_batch_norm():
    rng = np.random.default_rng(RNG_SEED + 9)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    t, tx = to_burn(x), torch.from_numpy(x)
    for shape in ((5,), (4, 5)):
        w = rng.standard_normal(shape).astype(np.float32)
        b = rng.standard_normal(shape).astype(np.float32)
        check(burn.layer_norm(t, shape, to_burn(w), to_burn(b)),
              F.layer_norm(tx, shape, torch.from_numpy(w), torch.from_numpy(b)), 1e-4)
    x4 = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    rm = rng.standard_normal(3).astype(np.float32)
    rv = (rng.random(3) + 0.5).astype(np.float32)
    w = rng.standard_normal(3).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    check(burn.batch_norm(to_burn(x4), to_burn(rm), to_burn(rv), to_burn(w), to_burn(b)),
          F.batch_norm(torch.from_numpy(x4), torch.from_numpy(rm), torch.from_numpy(rv),
                       torch.from_numpy(w), torch.from_numpy(b)), 1e-4)
    brm, brv = to_burn(rm), to_burn(rv)
    trm, trv = torch.from_numpy(rm.copy()), torch.from_numpy(rv.copy())
    got = burn.batch_norm(to_burn(x4), brm, brv, to_burn(w), to_burn(b), True, 0.2)
    exp = F.batch_norm(torch.from_numpy(x4), trm, trv, torch.from_numpy(w),
                       torch.from_numpy(b), True, 0.2)
    check(got, exp, 1e-4)
    check(brm, trm, 1e-5)
    check(brv, trv, 1e-5)


def test_linear_embedding_pad_cat():
    rng = np.random.default_rng(RNG_SEED + 10)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    check(burn.linear(to_burn(x), to_burn(w), to_burn(b)),
          F.linear(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)), 1e-5)
    idx = rng.integers(0, 5, size=(3, 2))
    check(burn.embedding(to_burn(idx), to_burn(w)),
          F.embedding(torch.from_numpy(idx), torch.from_numpy(w)))
    for pads in ((1, 2), (0, 1, 2, 0), (1, 1, 0, 2, 1, 0)):
        check(burn.pad(to_burn(x), pads, 1.5), F.pad(torch.from_numpy(x), pads, value=1.5))
    check(burn.cat([to_burn(x), to_burn(x)], 1), torch.cat([torch.from_numpy(x)] * 2, 1))
    check(burn.stack([to_burn(x), to_burn(x)], -1), torch.stack([torch.from_numpy(x)] * 2, -1))

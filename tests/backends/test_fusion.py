"""Fusion(backend): pending elementwise chains, and results bit for bit those of the
unfused backend, on numpy here and on cupy where a GPU is (skipped otherwise, with the
reason). The conformance suite (test_conformance.py) runs every primitive over
fusion<numpy>, fusion<cupy>, and autodiff over both."""

import itertools

import numpy as np
import pytest

import burn
from burn import nn
from burn.dtype import bool_, float32
from burn.host.autodiff import autodiff_device
from burn.host.backends.fusion import MAX_CHAIN, fusion_device
from burn.host.convert import to_numpy, to_tensor
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import SGD

INNERS = ("numpy", "cupy")


def inner_or_skip(name):
    """The name `name`, after checking that its backend exists here."""
    if name == "cupy":
        try:
            from burn.host.backends import cupy_backend  # noqa: F401
        except ImportError as e:
            pytest.skip("cupy: %s" % e)
    return name


def test_a_chain_waits_until_something_reads_it():
    f = fusion_device("numpy").backend
    x = f.from_flat([1.0, -2.0, 3.0, -4.0], float32)
    y = f.binary("mul", f.unary("relu", x, 4, float32), (4,), 2.0, (), (4,), float32)
    y = f.unary("exp", f.unary("neg", y, 4, float32), 4, float32)
    assert y.call is not None and y.ops == 4
    total = f.reduce("sum", y, (4,), 0, float32)  # a reduction materialises its input
    assert y.call is None and total.call is None
    want = np.exp(-2.0 * np.maximum([1.0, -2.0, 3.0, -4.0], 0)).astype(np.float32)
    assert f.to_flat(y, 4, float32) == pytest.approx(want.tolist())
    assert f.to_flat(total, 1, float32) == pytest.approx([float(want.sum())], rel=1e-6)


def test_a_long_chain_is_cut():
    f = fusion_device("numpy").backend
    x = f.from_flat([0.5] * 3, float32)
    for _ in range(MAX_CHAIN + 5):
        x = f.binary("add", x, (3,), 1.0, (), (3,), float32)
    assert x.ops <= MAX_CHAIN
    assert f.to_flat(x, 3, float32) == [0.5 + MAX_CHAIN + 5] * 3


def _random_chain(backend, rng):
    """A seeded random chain of fusable calls with broadcasting, on `backend`; returns the
    handle of its end, its shape, and its dtype."""
    shapes = ((2, 3, 4), (3, 1), (1, 4), (4,))
    made = [(backend.from_flat(rng.standard_normal(int(np.prod(s))).tolist(), float32), s)
            for s in shapes]
    h, shape = made[0]
    for _ in range(12):
        kind = rng.integers(5)
        other, other_shape = made[rng.integers(len(made))]
        if kind == 0:
            op = ("exp", "tanh", "sigmoid", "relu", "abs", "neg", "sin")[rng.integers(7)]
            h = backend.unary(op, h, int(np.prod(shape)), float32)
        elif kind == 1:
            op = ("add", "sub", "mul", "div", "maximum", "minimum")[rng.integers(6)]
            h = backend.binary(op, h, shape, other, other_shape, shape, float32)
        elif kind == 2:
            h = backend.binary("mul", h, shape, float(rng.standard_normal()), (), shape,
                               float32)
        elif kind == 3:
            mask = backend.binary("gt", h, shape, other, other_shape, shape, float32)
            h = backend.where(mask, shape, h, shape, other, other_shape, shape, float32)
        else:
            n = int(np.prod(shape))
            mask = backend.cast(backend.binary("lt", h, shape, 0.25, (), shape, float32), n,
                                bool_, float32)
            h = backend.clamp(backend.binary("add", h, shape, mask, shape, shape, float32), n,
                              -1.5, 2.0, float32)
    return h, shape


@pytest.mark.parametrize("inner", INNERS)
def test_random_chains_are_bit_for_bit_unfused(inner):
    inner = inner_or_skip(inner)
    plain, fused = burn.device(inner).backend, fusion_device(inner).backend
    for seed in range(20):
        a, shape = _random_chain(plain, np.random.default_rng(seed))
        b, _ = _random_chain(fused, np.random.default_rng(seed))
        n = int(np.prod(shape))
        want = np.frombuffer(plain.to_bytes(a, n, float32), np.float32)
        got = np.frombuffer(fused.to_bytes(b, n, float32), np.float32)
        assert np.array_equal(got, want, equal_nan=True), seed


def _losses_and_weights(backend, steps=3):
    dev = autodiff_device(backend)
    burn.seed(3)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 5),
                          nn.Sigmoid(), nn.Linear(5, 3)).to(dev)
    opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = to_tensor(rng.standard_normal((6, 1, 8, 8)).astype(np.float32), dev)
        y = to_tensor(rng.integers(0, 3, 6).astype(np.int32), dev)
        loss = cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [to_numpy(p) for p in model.parameters()]


@pytest.mark.parametrize("inner", INNERS)
def test_training_through_fusion_is_bit_for_bit(inner):
    inner = inner_or_skip(inner)
    plain_losses, plain_weights = _losses_and_weights(inner)
    fused_losses, fused_weights = _losses_and_weights("fusion<%s>" % inner)
    assert fused_losses == plain_losses
    for a, b in zip(fused_weights, plain_weights):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("inner", INNERS)
def test_gradients_through_fusion_match_finite_differences(inner):
    inner = inner_or_skip(inner)
    dev = autodiff_device("fusion<%s>" % inner)
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((3, 4))
    w0 = rng.standard_normal((1, 4))

    def f(x, w):
        y = (x * w).sigmoid() * x.tanh() + (x - 0.3).relu().clamp(max=1.0)
        return burn.where(y > 0.2, y * y, -y).sum()

    x = to_tensor(x0.astype(np.float32), dev).requires_grad_()
    w = to_tensor(w0.astype(np.float32), dev).requires_grad_()
    f(x, w).backward()
    got = to_numpy(x.grad)
    eps = 1e-3
    num = np.zeros_like(x0)
    for i, j in itertools.product(range(3), range(4)):
        vals = []
        for d in (eps, -eps):
            xd = x0.copy()
            xd[i, j] += d
            vals.append(f(to_tensor(xd, "numpy"), to_tensor(w0, "numpy")).item())
        num[i, j] = (vals[0] - vals[1]) / (2 * eps)
    assert np.allclose(got, num, rtol=2e-2, atol=2e-2)
    assert to_numpy(w.grad).shape == (1, 4)

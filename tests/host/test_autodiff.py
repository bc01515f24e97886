"""Autodiff over the pure, numpy and flex backends, against PyTorch autograd and finite
differences."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import burn
from burn.host.autodiff import autodiff_device, no_grad
from burn.host.convert import to_numpy, to_tensor
from burn.host.train.losses import cross_entropy
from burn.ops.conv_transpose import conv_transpose2d

BACKENDS = ["numpy", "pure", "flex"]


def _pair(rng, shape, dev, positive=False):
    a = rng.standard_normal(shape).astype(np.float32)
    if positive:
        a = np.abs(a) + 0.5
    t = to_tensor(a, dev)
    t.requires_grad = True
    return t, torch.tensor(a, dtype=torch.float64, requires_grad=True)


def _check(b_out, t_out, pairs, atol=1e-4):
    np.testing.assert_allclose(to_numpy(b_out), t_out.detach().numpy(), rtol=1e-4, atol=atol)
    weights = np.random.default_rng(1).standard_normal(t_out.shape).astype(np.float32)
    (b_out * to_tensor(weights, b_out.device)).sum().backward()
    (t_out * torch.tensor(weights, dtype=torch.float64)).sum().backward()
    for b, t in pairs:
        assert b.grad is not None
        np.testing.assert_allclose(to_numpy(b.grad), t.grad.numpy(), rtol=1e-3, atol=atol)


UNARY = [
    ("exp", lambda x: x.exp(), torch.exp, False),
    ("log", lambda x: x.log(), torch.log, True),
    ("sqrt", lambda x: x.sqrt(), torch.sqrt, True),
    ("rsqrt", lambda x: x.rsqrt(), torch.rsqrt, True),
    ("sin", lambda x: x.sin(), torch.sin, False),
    ("cos", lambda x: x.cos(), torch.cos, False),
    ("tanh", lambda x: x.tanh(), torch.tanh, False),
    ("sigmoid", lambda x: x.sigmoid(), torch.sigmoid, False),
    ("relu", lambda x: x.relu(), torch.relu, False),
    ("abs", lambda x: x.abs(), torch.abs, False),
    ("neg", lambda x: -x, torch.neg, False),
    ("reciprocal", lambda x: x.reciprocal(), torch.reciprocal, True),
    ("gelu", lambda x: x.gelu(), F.gelu, False),
    ("gelu_tanh", lambda x: x.gelu("tanh"), lambda x: F.gelu(x, approximate="tanh"), False),
    ("silu", lambda x: x.silu(), F.silu, False),
    ("softmax", lambda x: x.softmax(-1), lambda x: x.softmax(-1), False),
    ("log_softmax", lambda x: x.log_softmax(1), lambda x: x.log_softmax(1), False),
    ("clamp", lambda x: x.clamp(-0.5, 0.7), lambda x: x.clamp(-0.5, 0.7), False),
    ("relu6", lambda x: (x * 4).relu6(), lambda x: F.relu6(x * 4), False),
    ("leaky", lambda x: x.leaky_relu(0.1), lambda x: F.leaky_relu(x, 0.1), False),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", UNARY, ids=[c[0] for c in UNARY])
def test_unary_ops(backend, case):
    _, fb, ft, positive = case
    dev = autodiff_device(backend)
    x, tx = _pair(np.random.default_rng(0), (3, 5), dev, positive)
    _check(fb(x), ft(tx), [(x, tx)])


BINARY = [
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b),
    ("pow", lambda a, b: a ** b),
    ("maximum", lambda a, b: burn.maximum(a, b) if isinstance(a, burn.Tensor)
     else torch.maximum(a, b)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", BINARY, ids=[c[0] for c in BINARY])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((4, 1, 3), (2, 1)), ((3,), (2, 3))])
def test_binary_ops_with_broadcasting(backend, case, shapes):
    _, f = case
    dev = autodiff_device(backend)
    rng = np.random.default_rng(2)
    a, ta = _pair(rng, shapes[0], dev, positive=True)
    b, tb = _pair(rng, shapes[1], dev, positive=True)
    _check(f(a, b), f(ta, tb), [(a, ta), (b, tb)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_layout_and_indexing(backend):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(3)
    x, tx = _pair(rng, (2, 3, 4), dev)
    cases = [
        (x.sum(1), tx.sum(1)),
        (x.mean((0, 2), keepdim=True), tx.mean((0, 2), keepdim=True)),
        (x.amax(2), tx.amax(2)),
        (x.var(1), tx.var(1)),
        (x.permute(2, 0, 1), tx.permute(2, 0, 1)),
        (x.reshape(6, 4).T, tx.reshape(6, 4).T),
        (x[1, ::-2, 1:3], tx[1].flip(0)[::2, 1:3]),
        (x.expand(3, 2, 3, 4), tx.expand(3, 2, 3, 4)),
        (burn.cat([x, x * 2], 1), torch.cat([tx, tx * 2], 1)),
        (burn.stack([x, x], 0), torch.stack([tx, tx], 0)),
        (burn.pad(x, (1, 2, 0, 1)), F.pad(tx, (1, 2, 0, 1))),
        (x[burn.tensor([1, 0, 1])], tx[[1, 0, 1]]),
        (burn.where(x > 0, x, x * 3), torch.where(tx > 0, tx, tx * 3)),
    ]
    for b_out, t_out in cases:
        x.grad = None
        tx.grad = None
        _check(b_out, t_out, [(x, tx)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_assignment_and_masks(backend):
    """x[key] = value on a tensor computed from x and from v: the gradient reaches x where
    the assignment left it and v where it was assigned, as in PyTorch."""
    dev = autodiff_device(backend)
    rng = np.random.default_rng(4)
    x, tx = _pair(rng, (3, 4), dev)
    v, tv = _pair(rng, (4,), dev)
    y, ty = x * 2, tx * 2
    y[1] = v * 3
    ty[1] = tv * 3
    y[y > 1.0] = 0.5
    ty[ty > 1.0] = 0.5
    _check(y, ty, [(x, tx), (v, tv)])
    x.grad = None
    tx.grad = None
    _check(x[x < 0] * 2, tx[tx < 0] * 2, [(x, tx)])
    idx = [[2, 0, 1, 1], [0, 2, 2, 1]]
    for b_out, t_out in ((x.gather(0, burn.tensor(idx)), tx.gather(0, torch.tensor(idx))),
                         (x.scatter(1, burn.tensor([[3], [0], [1]]), v[:3, None]),
                          tx.scatter(1, torch.tensor([[3], [0], [1]]), tv[:3, None])),
                         (x.masked_fill(x > 0, 1.5), tx.masked_fill(tx > 0, 1.5))):
        x.grad = v.grad = tx.grad = tv.grad = None
        _check(b_out, t_out, [(x, tx)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_batched_broadcast(backend):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(4)
    a, ta = _pair(rng, (3, 2, 4), dev)
    b, tb = _pair(rng, (4, 5), dev)
    _check(a @ b, ta @ tb, [(a, ta), (b, tb)])
    v, tv = _pair(rng, (4,), dev)
    _check(b.T @ v, tb.T @ tv, [(v, tv)])


CONV = [
    dict(stride=1, padding=0, dilation=1, groups=1),
    dict(stride=2, padding=1, dilation=1, groups=1),
    dict(stride=1, padding="same", dilation=2, groups=2),
    dict(stride=(2, 1), padding=(1, 0), dilation=1, groups=4),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("opts", CONV, ids=[str(i) for i in range(len(CONV))])
def test_conv2d(backend, opts):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(5)
    x, tx = _pair(rng, (2, 4, 7, 6), dev)
    w, tw = _pair(rng, (8, 4 // opts["groups"], 3, 3), dev)
    b, tb = _pair(rng, (8,), dev)
    _check(burn.conv2d(x, w, b, **opts), F.conv2d(tx, tw, tb, **opts),
           [(x, tx), (w, tw), (b, tb)], atol=1e-3)


CONV_T = [
    dict(stride=1, padding=0, output_padding=0, dilation=1, groups=1),
    dict(stride=2, padding=1, output_padding=1, dilation=1, groups=1),
    dict(stride=(3, 2), padding=(2, 0), output_padding=(0, 1), dilation=(1, 2), groups=2),
    dict(stride=2, padding=0, output_padding=0, dilation=1, groups=4),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("opts", CONV_T, ids=[str(i) for i in range(len(CONV_T))])
def test_conv_transpose2d(backend, opts):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(7)
    x, tx = _pair(rng, (2, 4, 5, 4), dev)
    w, tw = _pair(rng, (4, 8 // opts["groups"], 3, 2), dev)
    b, tb = _pair(rng, (8,), dev)
    _check(conv_transpose2d(x, w, b, **opts), F.conv_transpose2d(tx, tw, tb, **opts),
           [(x, tx), (w, tw), (b, tb)], atol=1e-3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pooling(backend):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(6)
    x, tx = _pair(rng, (2, 3, 7, 7), dev)
    cases = [
        (burn.max_pool2d(x, 2), F.max_pool2d(tx, 2)),
        (burn.max_pool2d(x, 3, 2, 1, ceil_mode=True), F.max_pool2d(tx, 3, 2, 1, ceil_mode=True)),
        (burn.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
         F.avg_pool2d(tx, 3, 2, 1, count_include_pad=False)),
        (burn.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool2d(tx, 1)),
    ]
    for b_out, t_out in cases:
        x.grad = None
        tx.grad = None
        _check(b_out, t_out, [(x, tx)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_norms_and_embedding(backend):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(7)
    x, tx = _pair(rng, (4, 6), dev)
    w, tw = _pair(rng, (6,), dev)
    b, tb = _pair(rng, (6,), dev)
    _check(burn.layer_norm(x, (6,), w, b), F.layer_norm(tx, (6,), tw, tb),
           [(x, tx), (w, tw), (b, tb)])
    emb, temb = _pair(rng, (5, 3), dev)
    idx = [4, 0, 4, 2]
    _check(burn.embedding(burn.tensor(idx).to(dev), emb),
           F.embedding(torch.tensor(idx), temb), [(emb, temb)])


def _random_graph(rng, xs):
    """A random composition of differentiable ops; the same choices for both libraries."""
    a, b = xs
    steps = rng.integers(0, 6, size=6)
    h = a
    for s in steps:
        if s == 0:
            h = h * b
        elif s == 1:
            h = h.tanh() + a
        elif s == 2:
            h = (h.exp() + 1).log()
        elif s == 3:
            h = h.softmax(-1) * 3
        elif s == 4:
            h = h - b.sigmoid()
        else:
            h = h * h + 0.5
    return h.sum(0)


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_match_torch(seed):
    dev = autodiff_device("numpy")
    rng = np.random.default_rng(100 + seed)
    a, ta = _pair(rng, (3, 4), dev)
    b, tb = _pair(rng, (3, 4), dev)
    out = _random_graph(np.random.default_rng(seed), (a, b))
    tout = _random_graph(np.random.default_rng(seed), (ta, tb))
    _check(out, tout, [(a, ta), (b, tb)], atol=1e-3)


def test_finite_differences():
    dev = autodiff_device("numpy")
    rng = np.random.default_rng(8)
    base = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w = to_tensor(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), dev)

    def f(xa):
        x = to_tensor(xa, dev)
        y = burn.max_pool2d(burn.conv2d(x, w, padding=1).tanh(), 2)
        return y, float((y * y).sum().item())

    x = to_tensor(base, dev)
    x.requires_grad = True
    y = burn.max_pool2d(burn.conv2d(x, w, padding=1).tanh(), 2)
    (y * y).sum().backward()
    g = to_numpy(x.grad)
    eps = 1e-2
    for flat in rng.choice(base.size, size=12, replace=False):
        idx = np.unravel_index(flat, base.shape)
        hi, lo = base.copy(), base.copy()
        hi[idx] += eps
        lo[idx] -= eps
        numeric = (f(hi)[1] - f(lo)[1]) / (2 * eps)
        assert abs(numeric - g[idx]) < 5e-2 * max(1.0, abs(numeric)), (idx, numeric, g[idx])


def test_accumulation_no_grad_and_errors():
    dev = autodiff_device("numpy")
    x = burn.tensor([1.0, 2.0, 3.0]).to(dev)
    x.requires_grad = True
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert to_numpy(x.grad).tolist() == [5.0, 7.0, 9.0]
    x.grad = None
    with no_grad():
        y = (x * 2).sum()
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()
    with pytest.raises(RuntimeError, match="one element"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="records no gradients"):
        burn.tensor([1.0]).sum().backward()
    z = (x * 2).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="already used"):
        z.backward()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3, 5, 2), (6, 3)])
def test_batch_norm_as_one_node(backend, training, shape):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(9)
    x, tx = _pair(rng, shape, dev)
    w, tw = _pair(rng, (3,), dev)
    b, tb = _pair(rng, (3,), dev)
    stats = rng.random((2, 3)).astype(np.float32) + 0.5
    rm, rv = to_tensor(stats[0], dev), to_tensor(stats[1], dev)
    trm, trv = torch.tensor(stats[0], dtype=torch.float64), torch.tensor(stats[1],
                                                                         dtype=torch.float64)
    out = burn.batch_norm(x, rm, rv, w, b, training, 0.2, 1e-5)
    tout = F.batch_norm(tx, trm, trv, tw, tb, training, 0.2, 1e-5)
    _check(out, tout, [(x, tx), (w, tw), (b, tb)])
    np.testing.assert_allclose(to_numpy(rm), trm.numpy(), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(rv), trv.numpy(), rtol=1e-5)
    assert not rm.requires_grad


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_as_one_node(backend, reduction, smoothing):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(10)
    x, tx = _pair(rng, (7, 5), dev)
    target = rng.integers(0, 5, 7)
    out = cross_entropy(x * 3, burn.tensor(target.tolist()).to(dev), smoothing, reduction)
    tout = F.cross_entropy(tx * 3, torch.tensor(target), reduction=reduction,
                           label_smoothing=smoothing)
    assert out.shape == tuple(tout.shape)
    _check(out, tout, [(x, tx)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 5), (5,)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_as_one_node(backend, shape, with_bias):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(11)
    x, tx = _pair(rng, shape, dev)
    w, tw = _pair(rng, (4, 5), dev)
    b, tb = _pair(rng, (4,), dev) if with_bias else (None, None)
    pairs = [(x, tx), (w, tw)] + ([(b, tb)] if with_bias else [])
    _check(burn.linear(x, w, b), F.linear(tx, tw, tb), pairs)
    frozen = rng.standard_normal(shape).astype(np.float32)  # an input that wants no gradient
    w.grad = None
    tw.grad = None
    _check(burn.linear(to_tensor(frozen, dev), w, b),
           F.linear(torch.tensor(frozen, dtype=torch.float64), tw, tb), [(w, tw)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_node_ops_on_empty_batches(backend):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(12)
    w, _tw = _pair(rng, (3, 5), dev)
    x, _tx = _pair(rng, (0, 5), dev)
    y = burn.linear(x, w)
    assert y.shape == (0, 3)
    assert y.log_softmax(1).shape == (0, 3)
    g, _tg = _pair(rng, (2,), dev)
    stats = to_tensor(np.ones(2, np.float32), dev)
    e, _te = _pair(rng, (0, 2, 3, 3), dev)
    out = burn.batch_norm(e, stats, stats, g, None, False)
    assert out.shape == (0, 2, 3, 3)
    (out.sum() + (g * g).sum()).backward()
    assert to_numpy(e.grad).shape == (0, 2, 3, 3)
    np.testing.assert_allclose(to_numpy(g.grad), 2 * to_numpy(g))  # nothing from the batch
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        burn.batch_norm(_pair(rng, (1, 2, 1, 1), dev)[0], stats, stats, g, None, True)

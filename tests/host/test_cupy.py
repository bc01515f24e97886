"""The cupy backend on a CUDA GPU: results equal the numpy backend's, and Autodiff trains
on it. Skipped (with the reason) where CuPy or a GPU is absent."""

import numpy as np
import pytest

import burn
import burn.host  # teaches burn.device the host backends
from burn.host.convert import to_numpy, to_tensor

try:
    from burn.host.backends import cupy_backend  # noqa: F401
except ImportError as e:
    pytest.skip("cupy backend unavailable: " + str(e), allow_module_level=True)


def _both(a):
    return to_tensor(a, "numpy"), to_tensor(a, "cuda:0")


def test_ops_match_numpy():
    rng = np.random.default_rng(0)
    x, gx = _both(rng.standard_normal((2, 3, 9, 9)).astype(np.float32))
    w, gw = _both(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    cases = [
        lambda x, w: burn.conv2d(x, w, stride=2, padding=1),
        lambda x, w: burn.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        lambda x, w: burn.avg_pool2d(x, 2, count_include_pad=False),
        lambda x, w: (x.exp() * 2 - x.sigmoid()).sum((1, 3)),
        lambda x, w: x.reshape(6, 81) @ x.reshape(81, 6),
        lambda x, w: x.softmax(1).amax(2),
        lambda x, w: burn.gelu(x[:, 1:, ::-2]),
    ]
    for f in cases:
        np.testing.assert_allclose(to_numpy(f(gx, gw)), to_numpy(f(x, w)), rtol=1e-4,
                                   atol=1e-4)
    ints = rng.integers(-128, 128, (5, 7)).astype(np.int8)
    a, ga = _both(ints)
    assert to_numpy((ga * 3 + 100).sum(1)).tolist() == to_numpy((a * 3 + 100).sum(1)).tolist()
    assert gx.to("pure").tolist() == x.tolist()


def test_autodiff_training_step_matches_numpy():
    from burn import nn
    from burn.host.autodiff import autodiff_device
    from burn.host.train.losses import cross_entropy

    grads = []
    for inner in ("numpy", "cuda:0"):
        dev = autodiff_device(inner)
        burn.seed(0)
        model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Linear(64, 10)).to(dev)
        x = to_tensor(np.random.default_rng(1).random((8, 1, 8, 8), np.float32), dev)
        y = burn.tensor([0, 1, 2, 3, 4, 5, 6, 7]).to(dev)
        cross_entropy(model(x), y).backward()
        grads.append([to_numpy(p.grad) for p in model.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)

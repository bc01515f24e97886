"""The one-kernel batch norm (burn.host.cuda.batch_norm) and cross-entropy
(burn.host.cuda.cross_entropy) against the unfused path, the generic nodes of
burn.host.autodiff.helpers.Inner over CuPy arrays, forward and backward, within the
float32 tolerance their docstrings state. Needs CuPy and a CUDA GPU; skipped otherwise."""

import numpy as np
import pytest

RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(scope="module")
def gpu():
    """(cupy, generic Inner over a plain CuPy numpy backend, the cupy backend)."""
    try:
        from burn.host.backends import cupy_backend
    except ImportError as e:
        pytest.skip("cupy: %s (these tests need a CUDA GPU)" % e)
    import cupy

    from burn.host.autodiff.helpers import Inner
    from burn.host.backends.numpy_backend import NumpyBackend

    plain = NumpyBackend(xp=cupy_backend._XP, name="cupy-unfused")
    return cupy, Inner(plain), cupy_backend.BACKEND


def _close(got, want, rtol=RTOL, atol=ATOL):
    got, want = got.get().reshape(-1), want.get().reshape(-1)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# [n, c, ...]: rest above the block's 1024 threads and not a multiple, rest dividing it,
# rest not dividing it, rest 1 (BatchNorm1d); rest a multiple of 4 (float4 steps) above the
# cluster's threads and below one block's; channels of one, two, four and eight blocks of
# 256 threads, and of 1024 threads where one block or eight are too few
SHAPES = [(3, 4, 37, 29), (5, 3, 16, 16), (6, 2, 10), (7, 6), (9, 5, 48, 40), (3, 2, 12),
          (64, 2, 64, 64)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("batch", (True, False))
@pytest.mark.parametrize("weighted", (True, False))
@pytest.mark.parametrize("cluster", (1, None))
@pytest.mark.parametrize("layout", ("aligned", "offset", "wide"))
def test_batch_norm_kernels_match_the_unfused_path(gpu, monkeypatch, shape, batch, weighted,
                                                   cluster, layout):
    """One block per channel, and the GPU's own choice (a cluster of 8 from sm_90); arrays
    as allocated (float4 steps where a plane divides by 4), starting one float into an
    allocation (one float a step), and indexed in 64 bits."""
    from burn.host.cuda import batch_norm

    monkeypatch.setattr(batch_norm, "CLUSTER", cluster)
    if layout == "wide":
        monkeypatch.setattr(batch_norm, "WIDE_FROM", 1)
    cupy, generic, backend = gpu
    rng = np.random.default_rng(8)
    c = shape[1]

    def placed(a):
        if layout != "offset":
            return cupy.asarray(a)
        room = cupy.empty(a.size + 1, np.float32)
        room[1:] = cupy.asarray(a)
        return room[1:]

    x = placed(rng.standard_normal(int(np.prod(shape))).astype(np.float32) * 3 + 1)
    g = placed(rng.standard_normal(x.size).astype(np.float32))
    w, b = (cupy.asarray(rng.standard_normal(c).astype(np.float32)) for _ in range(2))
    w, b = (w, b) if weighted else (None, None)
    stats = (None, None) if batch else (cupy.asarray(rng.random(c).astype(np.float32)),
                                        cupy.asarray(rng.random(c).astype(np.float32) + 0.5))
    want = generic.batch_norm_forward(x, shape, *stats, w, b, 1e-5)
    got = backend.batch_norm_forward(x, shape, *stats, w, b, 1e-5)
    for a, e in zip(got[:3], want[:3]):
        _close(a, e)
    for a, e in zip(backend.batch_norm_backward(g, got[3], w, True),
                    generic.batch_norm_backward(g, want[3], w, True)):
        _close(a, e, 1e-4, 1e-5)
    gx, _gw, gb = backend.batch_norm_backward(g, got[3], w, False)
    assert gx is None
    _close(gb, g.reshape(shape[0], c, -1).sum(axis=(0, 2)), 1e-4, 1e-5)


def test_batch_norm_output_is_the_same_bits_for_the_same_statistics(gpu):
    """Normalising with given statistics runs the unfused path's expressions exactly."""
    cupy, generic, backend = gpu
    rng = np.random.default_rng(2)
    shape = (4, 3, 9, 7)
    x = cupy.asarray(rng.standard_normal(int(np.prod(shape))).astype(np.float32))
    mean, var, w, b = (cupy.asarray(rng.random(3).astype(np.float32) + 0.1) for _ in range(4))
    want = generic.batch_norm_forward(x, shape, mean, var, w, b, 1e-5)[0]
    got = backend.batch_norm_forward(x, shape, mean, var, w, b, 1e-5)[0]
    assert got.get().tobytes() == want.get().tobytes()


def test_batch_norm_of_an_empty_batch_in_evaluation(gpu):
    """No rows: an empty output and zero parameter gradients, as the unfused path gives."""
    cupy, _generic, backend = gpu
    shape = (0, 3, 4, 4)
    x = cupy.zeros(0, np.float32)
    mean, var, w, b = (cupy.ones(3, np.float32) for _ in range(4))
    y, _mean, _var, saved = backend.batch_norm_forward(x, shape, mean, var, w, b, 1e-5)
    assert y.size == 0
    gx, gw, gb = backend.batch_norm_backward(x, saved, w, True)
    assert gx.size == 0 and not gw.any() and not gb.any()


@pytest.mark.parametrize("n, c", [(1, 1), (37, 10), (300, 70)])
@pytest.mark.parametrize("smoothing", (0.0, 0.1))
@pytest.mark.parametrize("reduction", ("mean", "sum", "none"))
def test_cross_entropy_kernels_match_the_unfused_path(gpu, n, c, smoothing, reduction):
    cupy, generic, backend = gpu
    rng = np.random.default_rng(n + c)
    logits = cupy.asarray(rng.standard_normal(n * c).astype(np.float32) * 4)
    target = rng.integers(0, c, n).astype(np.int32)
    target[::7] = c  # out of range: weighs nothing
    target = cupy.asarray(target)
    size = n if reduction == "none" else 1
    g = cupy.asarray(rng.standard_normal(size).astype(np.float32))
    want, want_saved = generic.cross_entropy_forward(logits, target, n, c, smoothing,
                                                     reduction)
    got, saved = backend.cross_entropy_forward(logits, target, n, c, smoothing, reduction)
    _close(got, want)
    _close(backend.cross_entropy_backward(g, saved),
           generic.cross_entropy_backward(g, want_saved))


def test_training_losses_on_cuda_follow_numpy(gpu):
    """A few steps of a model with batch norm and cross-entropy: the losses on the GPU
    follow the numpy backend's."""
    import burn
    from burn import nn
    from burn.host.autodiff import autodiff_device
    from burn.host.convert import to_tensor
    from burn.host.train.losses import cross_entropy
    from burn.host.train.optim import SGD

    rng = np.random.default_rng(4)
    x = rng.standard_normal((16, 2, 6, 6)).astype(np.float32)
    y = rng.integers(0, 5, 16).astype(np.int32)
    runs = []
    for name in ("numpy", "cuda"):
        dev = autodiff_device(name)
        burn.seed(3)
        model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                              nn.Linear(64, 5)).to(dev)
        opt = SGD(model.parameters(), lr=0.1)
        losses = []
        for _ in range(4):
            loss = cross_entropy(model(to_tensor(x, dev)), to_tensor(y, dev),
                                 label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs.append(losses)
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-4)
    assert runs[0][-1] < runs[0][0]

"""Whole-step CUDA graphs (burn.host.cuda.graph, Learner(capture=True)) and the GPU Adam:
a captured training run gives the losses and weights of an uncaptured one. Needs CuPy and
a GPU; skipped otherwise, with the reason."""

import numpy as np
import pytest

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.convert import to_numpy, to_tensor
from burn.host.cuda.graph import training_step
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam as HostAdam


@pytest.fixture(scope="module")
def cuda():
    try:
        from burn.host.backends import cupy_backend  # noqa: F401
    except ImportError as e:
        pytest.skip("cupy: %s" % e)
    from burn.host import cuda as _cuda
    from burn.host.cuda import graph, optim  # noqa: F401

    return _cuda


@pytest.fixture
def same_products(cuda):
    """float32 products through the recording-safe cuBLAS handle also outside recordings,
    so that captured and direct steps run the same kernels."""
    from burn.host.cuda import cublas

    cublas.ALWAYS[0] = True
    yield
    cublas.ALWAYS[0] = False


def _model(dev):
    burn.seed(7)
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10)).to(dev)


def _batches(sizes):
    rng = np.random.default_rng(1)
    return [(rng.standard_normal((n, 1, 8, 8)).astype(np.float32),
             rng.integers(0, 10, n).astype(np.int32)) for n in sizes]


def _train(backend, optimizer, capture, sizes):
    dev = autodiff_device(backend)
    model = _model(dev)
    opt = optimizer(model.parameters(), lr=1e-2)

    step = training_step(model, opt, cross_entropy, capture)
    losses = [step(to_tensor(x, dev), to_tensor(y, dev)).item() for x, y in _batches(sizes)]
    state = [to_numpy(t) for t in list(model.parameters()) + list(model.buffers())]
    return losses, state


# Shapes change twice (32 -> 7 -> 32): each is run, recorded, replayed; 7 re-records.
SIZES = (32, 32, 32, 32, 7, 7, 7, 32, 32)


@pytest.mark.parametrize("backend", ("cupy", "fusion<cupy>"))
def test_captured_steps_equal_uncaptured(same_products, backend):
    from burn.host.cuda.optim import Adam

    want = _train(backend, Adam, False, SIZES)
    got = _train(backend, Adam, True, SIZES)
    assert got[0] == want[0]
    for a, b in zip(got[1], want[1]):
        assert np.array_equal(a, b)


def test_gpu_adam_matches_host_adam(cuda):
    from burn.host.cuda.optim import Adam

    want = _train("cupy", HostAdam, False, SIZES[:4])
    got = _train("cupy", Adam, False, SIZES[:4])
    assert np.allclose(got[0], want[0], rtol=1e-5)
    for a, b in zip(got[1], want[1]):
        assert np.allclose(a, b, rtol=1e-4, atol=1e-6)


def test_gpu_adam_state_dict_is_host_data(cuda):
    from burn.host.cuda.optim import Adam

    model = _model(autodiff_device("cupy"))
    opt = Adam(model.parameters(), lr=1e-2)
    x, y = _batches([4])[0]
    cross_entropy(model(to_tensor(x, "autodiff<cupy>")), to_tensor(y, "autodiff<cupy>")) \
        .backward()
    opt.step()
    state = opt.state_dict()
    assert state["steps"] == 1
    assert all(isinstance(s["m"], np.ndarray) and s["t"] == 1 for s in state["state"].values())
    again = Adam(model.parameters(), lr=1e-2)
    again.load_state_dict(state)
    assert np.array_equal(again.state_dict()["state"][0]["v"], state["state"][0]["v"])


def test_learner_capture_gives_the_uncaptured_losses(same_products):
    from burn.host.cuda.optim import Adam
    from burn.host.data import ArrayDataset, DataLoader
    from burn.host.train.learner import Learner

    rng = np.random.default_rng(2)
    data = ArrayDataset(rng.standard_normal((70, 1, 8, 8)).astype(np.float32),
                        rng.integers(0, 10, 70).astype(np.int32))
    histories = []
    for capture in (False, True):
        dev = autodiff_device("cupy")
        model = _model(dev)
        learner = Learner(model, Adam(model.parameters(), lr=1e-2), dashboard="plain",
                          capture=capture)
        loader = DataLoader(data, 16, shuffle=False, device=dev)
        histories.append([r["train_loss"] for r in learner.fit(loader, epochs=3).history])
    assert histories[1] == histories[0]


def test_learner_refuses_capture_with_a_host_optimizer():
    from burn.host.train.learner import Learner

    model = _model("autodiff<numpy>")
    with pytest.raises(ValueError, match="capture=True needs an optimizer that runs on"):
        Learner(model, HostAdam(model.parameters(), lr=1e-3), capture=True)


def test_cublas_products_match_cupy(cuda):
    import cupy

    from burn.host.backends.cupy_backend import _XP
    from burn.host.cuda import cublas

    rng = np.random.default_rng(4)
    for (ba, bb, m, k, n), flip_a, flip_b in [((1, 1, 5, 7, 3), False, False),
                                              ((4, 1, 6, 3, 9), True, False),
                                              ((1, 3, 2, 8, 1), False, True),
                                              ((2, 2, 1, 1, 1), True, True),
                                              ((2, 2, 3, 0, 4), False, False)]:
        a = rng.standard_normal((ba, k, m) if flip_a else (ba, m, k)).astype(np.float32)
        b = rng.standard_normal((bb, n, k) if flip_b else (bb, k, n)).astype(np.float32)
        a, b = cupy.asarray(a), cupy.asarray(b)
        a = a.transpose(0, 2, 1) if flip_a else a  # transposed views take the T operation
        b = b.transpose(0, 2, 1) if flip_b else b
        with cublas.direct_blas():
            got = _XP.matmul(a, b).get()
        want = np.matmul(a.get(), b.get())
        assert got.shape == want.shape
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("decoupled, weight_decay", [(False, 0.0), (False, 0.1), (True, 0.01)])
def test_multi_tensor_adam_equals_one_kernel_per_parameter(cuda, decoupled, weight_decay):
    import cupy

    from burn.host.cuda import optim

    rng = np.random.default_rng(5)
    sizes = [1, 7, 300, 2, 4096] * 9  # more parameters than one launch holds
    params = [burn.tensor(rng.standard_normal(n).astype(np.float32).tolist(), device="cupy")
              for n in sizes]
    grads = [rng.standard_normal(n).astype(np.float32) for n in sizes]
    reference = cupy.ElementwiseKernel(
        "float32 g, float64 lr, float64 b1, float64 b2, float64 eps, float64 wd, "
        "bool decoupled, raw int32 t", "float32 p, float32 m, float32 v", optim._BODY,
        "burn_adam_reference", options=("--fmad=false",))
    want = [(cupy.asarray(to_numpy(p)), cupy.zeros(n, np.float32), cupy.zeros(n, np.float32))
            for p, n in zip(params, sizes)]
    cls = optim.AdamW if decoupled else optim.Adam
    opt = cls(params, lr=1e-2, weight_decay=weight_decay)
    counter = cupy.zeros(1, np.int32)
    for _ in range(3):
        for p, g in zip(params, grads):
            p.grad = to_tensor(g, "cupy")
        opt.step()
        counter += 1
        for (value, m, v), g in zip(want, grads):
            reference(cupy.asarray(g), 1e-2, 0.9, 0.999, 1e-8, weight_decay, decoupled,
                      counter, value, m, v)
    for p, (value, _, _) in zip(params, want):
        assert to_numpy(p).tobytes() == value.get().tobytes()

"""burn.nn against torch.nn: the same state_dict in both, the same input, the same output.

Each case builds a torch module and the burn module with the same arguments, checks that
their state_dict keys agree, loads torch's values into burn (through `.tolist()`) and
compares the outputs on a random input.
"""

import numpy as np
import pytest
import torch

import burn
from burn import nn

TOL = 2e-5


def to_burn(t):
    return burn.tensor(t.tolist(), dtype=burn.int32 if not t.is_floating_point() else None)


def to_numpy(t):
    return np.array(t.tolist(), dtype=np.float64)


def load_from_torch(b_mod, t_mod):
    assert sorted(b_mod.state_dict()) == sorted(t_mod.state_dict())
    b_mod.load_state_dict({k: v.tolist() for k, v in t_mod.state_dict().items()})


def compare(b_mod, t_mod, x, tol=TOL):
    load_from_torch(b_mod, t_mod)
    with torch.no_grad():
        want = t_mod(x)
    got = b_mod(to_burn(x))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=tol, atol=tol)


def randomize_bn(t_bn, gen):
    """Non-trivial affine parameters and running statistics for a torch BatchNorm2d."""
    n = t_bn.num_features
    with torch.no_grad():
        if t_bn.weight is not None:
            t_bn.weight.copy_(torch.rand(n, generator=gen) + 0.5)
        if t_bn.bias is not None:
            t_bn.bias.copy_(torch.randn(n, generator=gen))
        if t_bn.track_running_stats:
            t_bn.running_mean.copy_(torch.randn(n, generator=gen))
            t_bn.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
            t_bn.num_batches_tracked.fill_(5)


LAYERS = {
    "linear": (lambda m: m.Linear(5, 3), (4, 5)),
    "linear-nobias-3d": (lambda m: m.Linear(5, 3, bias=False), (2, 4, 5)),
    "conv": (lambda m: m.Conv2d(3, 4, 3), (2, 3, 7, 6)),
    "conv-stride-pad": (lambda m: m.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2)),
                        (1, 3, 7, 6)),
    "conv-same-even": (lambda m: m.Conv2d(2, 3, 4, padding="same"), (1, 2, 6, 5)),
    "conv-dilation": (lambda m: m.Conv2d(2, 2, 3, dilation=2, padding=1), (1, 2, 7, 7)),
    "conv-groups": (lambda m: m.Conv2d(4, 6, 3, groups=2, bias=False), (1, 4, 5, 5)),
    "conv-depthwise": (lambda m: m.Conv2d(3, 3, 3, groups=3, padding=1), (2, 3, 4, 4)),
    "layernorm": (lambda m: m.LayerNorm(6), (3, 6)),
    "layernorm-2d": (lambda m: m.LayerNorm((2, 3), eps=1e-3), (4, 2, 3)),
    "relu": (lambda m: m.ReLU(), (3, 4)),
    "relu6": (lambda m: m.ReLU6(), (3, 4)),
    "leaky_relu": (lambda m: m.LeakyReLU(0.2), (3, 4)),
    "sigmoid": (lambda m: m.Sigmoid(), (3, 4)),
    "tanh": (lambda m: m.Tanh(), (3, 4)),
    "silu": (lambda m: m.SiLU(), (3, 4)),
    "gelu": (lambda m: m.GELU(), (3, 4)),
    "gelu-tanh": (lambda m: m.GELU(approximate="tanh"), (3, 4)),
    "softmax": (lambda m: m.Softmax(dim=1), (3, 4, 2)),
    "softmax-last": (lambda m: m.Softmax(dim=-1), (3, 4)),
    "maxpool": (lambda m: m.MaxPool2d(2), (1, 2, 5, 6)),
    "maxpool-pad-dil-ceil": (lambda m: m.MaxPool2d(3, 2, padding=1, dilation=2,
                                                   ceil_mode=True), (1, 2, 9, 8)),
    "avgpool": (lambda m: m.AvgPool2d(3, 2), (1, 2, 7, 7)),
    "avgpool-pad": (lambda m: m.AvgPool2d(3, 2, padding=1), (1, 2, 6, 7)),
    "avgpool-pad-excl-ceil": (lambda m: m.AvgPool2d(3, 2, padding=1, ceil_mode=True,
                                                    count_include_pad=False), (1, 2, 6, 6)),
    "adaptive-avgpool-1": (lambda m: m.AdaptiveAvgPool2d(1), (2, 3, 5, 4)),
    "adaptive-avgpool-uneven": (lambda m: m.AdaptiveAvgPool2d((3, 2)), (1, 2, 5, 7)),
    "flatten": (lambda m: m.Flatten(), (2, 3, 2, 2)),
    "flatten-range": (lambda m: m.Flatten(0, 1), (2, 3, 2)),
    "dropout-eval": (lambda m: m.Dropout(0.3), (4, 5)),
    "identity": (lambda m: m.Identity(), (2, 2)),
}


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_matches_torch(name):
    make, shape = LAYERS[name]
    torch.manual_seed(0)
    t_mod = make(torch.nn).eval()
    b_mod = make(nn).eval()
    if name != "dropout-eval":      # torch also prints its `inplace` flag, which burn lacks
        assert repr(b_mod) == repr(t_mod)
    compare(b_mod, t_mod, torch.randn(shape) * 2)


def test_embedding_matches_torch():
    torch.manual_seed(1)
    t_mod = torch.nn.Embedding(7, 4, padding_idx=2)
    b_mod = nn.Embedding(7, 4, padding_idx=2)
    assert repr(b_mod) == repr(t_mod)
    compare(b_mod, t_mod, torch.tensor([[0, 2, 6], [5, 5, 1]]))


@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, True)])
def test_batchnorm_eval_matches_torch(affine, bias):
    gen = torch.Generator().manual_seed(2)
    t_mod = torch.nn.BatchNorm2d(3, eps=1e-3, affine=affine, bias=bias).eval()
    randomize_bn(t_mod, gen)
    b_mod = nn.BatchNorm2d(3, eps=1e-3, affine=affine, bias=bias).eval()
    assert repr(b_mod) == repr(t_mod)
    compare(b_mod, t_mod, torch.randn(2, 3, 4, 5, generator=gen))


@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
def test_batchnorm_train_running_stats_match_torch(momentum):
    gen = torch.Generator().manual_seed(3)
    t_mod = torch.nn.BatchNorm2d(4, momentum=momentum)
    randomize_bn(t_mod, gen)
    b_mod = nn.BatchNorm2d(4, momentum=momentum)
    load_from_torch(b_mod, t_mod)
    for _ in range(3):
        x = torch.randn(3, 4, 2, 3, generator=gen) * 3 + 1
        with torch.no_grad():
            want = t_mod(x)
        got = b_mod(to_burn(x))
        np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=TOL, atol=TOL)
    for key, value in t_mod.state_dict().items():
        np.testing.assert_allclose(np.array(b_mod.state_dict()[key].tolist()),
                                   np.array(value.tolist()), rtol=TOL, atol=TOL,
                                   err_msg=key)


def test_batchnorm_without_running_stats_matches_torch():
    t_mod = torch.nn.BatchNorm2d(2, track_running_stats=False).eval()
    b_mod = nn.BatchNorm2d(2, track_running_stats=False).eval()
    assert repr(b_mod) == repr(t_mod)
    compare(b_mod, t_mod, torch.randn(3, 2, 2, 2))


def make_cnn(m):
    return m.Sequential(
        m.Conv2d(1, 4, 3, padding=1), m.BatchNorm2d(4), m.ReLU(), m.MaxPool2d(2),
        m.Conv2d(4, 6, 3, stride=2, bias=False),
        m.ReLU6(), m.Flatten(), m.Linear(6, 5), m.Softmax(dim=1),
    )


def test_small_cnn_matches_torch_in_eval():
    torch.manual_seed(4)
    gen = torch.Generator().manual_seed(5)
    t_mod = make_cnn(torch.nn)
    randomize_bn(t_mod[1], gen)
    t_mod.eval()
    b_mod = make_cnn(nn).eval()
    compare(b_mod, t_mod, torch.randn(3, 1, 8, 8, generator=gen))


def test_small_cnn_matches_torch_in_train_mode():
    torch.manual_seed(6)
    t_mod = make_cnn(torch.nn).train()
    b_mod = make_cnn(nn).train()
    compare(b_mod, t_mod, torch.randn(4, 1, 8, 8))
    np.testing.assert_allclose(np.array(b_mod[1].running_var.tolist()),
                               np.array(t_mod[1].running_var.tolist()), rtol=TOL, atol=TOL)


def test_torch_tensors_load_directly_and_burn_state_loads_into_torch():
    torch.manual_seed(7)
    t_mod = make_cnn(torch.nn).eval()
    b_mod = make_cnn(nn).eval()
    b_mod.load_state_dict(t_mod.state_dict())       # torch tensors have .tolist()
    back = make_cnn(torch.nn).eval()
    back.load_state_dict({k: torch.tensor(v.tolist()) for k, v in b_mod.state_dict().items()})
    x = torch.randn(2, 1, 8, 8)
    with torch.no_grad():
        np.testing.assert_allclose(back(x).numpy(), t_mod(x).numpy(), rtol=1e-6, atol=1e-7)


def test_cnn_repr_matches_torch():
    assert repr(make_cnn(nn)) == repr(make_cnn(torch.nn))


def test_default_init_has_torch_spread():
    """Same distribution as torch's default init (values differ: different generators)."""
    burn.seed(8)
    b = np.array(nn.Conv2d(8, 16, 3).weight.tolist()).ravel()
    t = torch.nn.Conv2d(8, 16, 3).weight.detach().numpy().ravel()
    bound = 1 / np.sqrt(8 * 9)
    assert np.abs(b).max() <= bound and np.abs(t).max() <= bound
    assert abs(b.std() - t.std()) < 0.1 * t.std()

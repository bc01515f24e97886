"""burn.nn modules trained under Autodiff: parameter gradients of a small CNN against torch,
and BatchNorm2d statistics that carry no autodiff history from one step to the next."""

import numpy as np
import pytest
import torch

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.convert import to_numpy, to_tensor


def make_cnn(m):
    return m.Sequential(
        m.Conv2d(1, 3, 3, padding=1), m.BatchNorm2d(3), m.ReLU(), m.MaxPool2d(2),
        m.Flatten(), m.Linear(12, 4),
    )


@pytest.mark.parametrize("inner", ["numpy", "pure", "flex"])
def test_cnn_parameter_gradients_match_torch(inner):
    torch.manual_seed(0)
    t_mod = make_cnn(torch.nn).train()
    b_mod = make_cnn(nn).train()
    b_mod.load_state_dict(t_mod.state_dict())
    b_mod.to(autodiff_device(inner))
    x = np.random.default_rng(0).standard_normal((3, 1, 4, 4)).astype(np.float32)
    t_loss = (t_mod(torch.tensor(x)) ** 2).mean()
    t_loss.backward()
    b_loss = (b_mod(to_tensor(x, b_mod[0].weight.device)) ** 2).mean()
    b_loss.backward()
    assert abs(b_loss.item() - t_loss.item()) < 1e-5
    t_params = dict(t_mod.named_parameters())
    for name, p in b_mod.named_parameters():
        assert p.grad is not None, name
        np.testing.assert_allclose(to_numpy(p.grad), t_params[name].grad.numpy(),
                                   rtol=1e-3, atol=1e-5, err_msg=name)


def test_batchnorm_statistics_are_detached_after_each_step():
    dev = autodiff_device("numpy")
    m = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2)).to(dev)
    for _ in range(2):
        loss = (m(burn.randn((4, 1, 4, 4)).to(dev)) ** 2).mean()
        loss.backward()
        for buf in (m[1].running_mean, m[1].running_var):
            assert buf.handle.parents == () and not buf.handle.requires_grad
        assert m[1].num_batches_tracked.item() >= 1

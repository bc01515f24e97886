"""burn.nn's 1-D layers and Hardsigmoid against PyTorch: values and gradients (of the input
and the weights) on the numpy, pure and flex backends under Autodiff, BatchNorm1d in
training mode (batch statistics, running statistics) included."""

import numpy as np
import pytest
import torch

from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.convert import to_numpy, to_tensor

BACKENDS = ["numpy", "pure", "flex"]
LAYERS = [  # (burn layer, torch layer), the same arguments
    (lambda: nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2),
     lambda: torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2)),
    (lambda: nn.Conv1d(4, 3, 4, padding="same", dilation=2),
     lambda: torch.nn.Conv1d(4, 3, 4, padding="same", dilation=2)),
    (lambda: nn.MaxPool1d(3, 2, 1, ceil_mode=True),
     lambda: torch.nn.MaxPool1d(3, 2, 1, ceil_mode=True)),
    (lambda: nn.AvgPool1d(3, 2, 1, count_include_pad=False),
     lambda: torch.nn.AvgPool1d(3, 2, 1, count_include_pad=False)),
    (lambda: nn.AdaptiveAvgPool1d(1), lambda: torch.nn.AdaptiveAvgPool1d(1)),
    (lambda: nn.AdaptiveAvgPool1d(3), lambda: torch.nn.AdaptiveAvgPool1d(3)),
    (lambda: nn.BatchNorm1d(4), lambda: torch.nn.BatchNorm1d(4)),
    (lambda: nn.Hardsigmoid(), lambda: torch.nn.Hardsigmoid()),
]


def _same_weights(ours, theirs, rng):
    for p in theirs.parameters():
        p.data = torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=torch.float64)
    ours.load_state_dict({k: to_tensor(v.numpy().astype(np.float32))
                          for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("backend", BACKENDS)
def test_1d_layers_match_torch_values_and_gradients(backend):
    dev = autodiff_device(backend)
    rng = np.random.default_rng(0)
    for k, (make_ours, make_theirs) in enumerate(LAYERS):
        ours, theirs = make_ours(), make_theirs().double()
        assert sorted(ours.state_dict()) == sorted(theirs.state_dict()), k
        _same_weights(ours, theirs, rng)
        ours.to(dev)
        x = (rng.standard_normal((2, 4, 9)) * 3).astype(np.float32)
        bx = to_tensor(x, dev)
        bx.requires_grad = True
        tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        b_out, t_out = ours(bx), theirs(tx)
        np.testing.assert_allclose(to_numpy(b_out), t_out.detach().numpy(), rtol=1e-4,
                                   atol=1e-4, err_msg=str(k))
        weights = rng.standard_normal(tuple(t_out.shape))
        (b_out * to_tensor(weights.astype(np.float32), dev)).sum().backward()
        (t_out * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(to_numpy(bx.grad), tx.grad.numpy(), rtol=1e-3, atol=1e-3,
                                   err_msg=str(k))
        for name, p in theirs.named_parameters():
            np.testing.assert_allclose(to_numpy(getattr(ours, name).grad), p.grad.numpy(),
                                       rtol=1e-3, atol=1e-3, err_msg="%d %s" % (k, name))
        for name, buf in theirs.named_buffers():  # BatchNorm1d's running statistics
            np.testing.assert_allclose(to_numpy(getattr(ours, name)), buf.numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg="%d %s" % (k, name))

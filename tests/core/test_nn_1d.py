"""burn.nn's 1-D layers (Conv1d, MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, BatchNorm1d) and
Hardsigmoid: shapes, values worked out by hand, errors and repr, and how burn.nn finds
them (on CPython and MicroPython; tests/host/test_nn_1d_vs_torch.py compares values and
gradients with PyTorch)."""

from nn_util import close, raises

import burn
from burn import nn


def test_conv1d_shapes_and_keys():
    x = burn.zeros((2, 3, 10))
    assert nn.Conv1d(3, 4, 3)(x).shape == (2, 4, 8)
    assert nn.Conv1d(3, 4, 3, stride=2, padding=1)(x).shape == (2, 4, 5)
    assert nn.Conv1d(3, 4, 4, padding="same")(x).shape == (2, 4, 10)
    assert nn.Conv1d(3, 4, 3, dilation=3)(x).shape == (2, 4, 4)
    g = nn.Conv1d(4, 6, (3,), groups=2, bias=False)
    assert g.weight.shape == (6, 2, 3) and g.bias is None
    assert g(burn.zeros((4, 7))).shape == (6, 5)  # unbatched [C, L]
    assert sorted(nn.Conv1d(3, 4, 3).state_dict()) == ["bias", "weight"]


def test_conv1d_values():
    m = nn.Conv1d(1, 2, 3, padding=1)
    m.load_state_dict({"weight": [[[0.0, 1.0, 0.0]], [[1.0, 1.0, 1.0]]], "bias": [0.5, 0.0]})
    y = m(burn.tensor([[[1.0, 2.0, 3.0, 4.0]]])).tolist()[0]
    assert y == [[1.5, 2.5, 3.5, 4.5], [3.0, 6.0, 9.0, 7.0]]


def test_1d_pools():
    x = burn.tensor([[[1.0, 5.0, 2.0, 4.0, 3.0, 0.0, 6.0]]])
    assert nn.MaxPool1d(2)(x).tolist() == [[[5.0, 4.0, 3.0]]]
    assert nn.MaxPool1d(3, 2, 1, ceil_mode=True)(x).tolist() == [[[5.0, 5.0, 4.0, 6.0]]]
    assert close(nn.AvgPool1d(2)(x), [[[3.0, 3.0, 1.5]]])
    assert close(nn.AvgPool1d(3, 1, 1, count_include_pad=False)(x),
                 [[[3.0, 8.0 / 3, 11.0 / 3, 3.0, 7.0 / 3, 3.0, 3.0]]])
    assert close(nn.AdaptiveAvgPool1d(1)(x), [[[3.0]]])
    assert nn.AdaptiveAvgPool1d(2)(x).shape == (1, 1, 2)
    assert nn.MaxPool1d(2)(burn.zeros((3, 8))).shape == (3, 4)


def test_batchnorm1d_on_sequences_and_features():
    m = nn.BatchNorm1d(2, momentum=1.0)
    x = burn.tensor([[[1.0, 3.0], [0.0, 0.0]], [[5.0, 7.0], [2.0, 2.0]]])  # [N=2, C=2, L=2]
    y = m(x)
    assert y.shape == (2, 2, 2)
    assert close(m.running_mean, [4.0, 1.0])
    assert close(m.running_var, [20.0 / 3, 4.0 / 3])  # unbiased, over N * L values
    assert close(y[:, 1], [[-1.0, -1.0], [1.0, 1.0]], 1e-4)
    m.eval()
    assert close(m(burn.tensor([[4.0, 1.0]])), [[0.0, 0.0]])  # [N, C]
    assert sorted(m.state_dict()) == ["bias", "num_batches_tracked", "running_mean",
                                      "running_var", "weight"]
    assert "(N, 2, L)" in raises(ValueError, m, burn.zeros((1, 3, 4)))
    raises(ValueError, m, burn.zeros((1, 2, 2, 2)))


def test_hardsigmoid():
    x = burn.tensor([-4.0, -3.0, -1.5, 0.0, 1.5, 3.0, 4.0])
    assert close(nn.Hardsigmoid()(x), [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0])
    assert close(nn.Hardsigmoid(alpha=0.2, beta=0.6)(x), [0.0, 0.0, 0.3, 0.6, 0.9, 1.0, 1.0])
    assert repr(nn.Hardsigmoid()) == "Hardsigmoid()"


def test_errors_repr_and_lookup():
    assert "groups" in raises(ValueError, nn.Conv1d, 3, 4, 3, groups=2)
    assert "1-tuple" in raises(ValueError, nn.Conv1d, 1, 1, (3, 3))
    raises(ValueError, nn.Conv1d, 1, 1, 3, stride=2, padding="same")
    raises(ValueError, nn.MaxPool1d, 2, return_indices=True)
    assert "3-D" in raises(ValueError, nn.Conv1d(1, 1, 3), burn.zeros((1, 1, 4, 4)))
    assert repr(nn.Conv1d(2, 4, 3, stride=2, bias=False)) == \
        "Conv1d(2, 4, kernel_size=(3,), stride=(2,), bias=False)"
    assert repr(nn.AdaptiveAvgPool1d(1)) == "AdaptiveAvgPool1d(output_size=1)"
    assert nn.Linear.__name__ == "Linear" and hasattr(nn.init, "zeros_")
    assert "no attribute 'Conv4d'" in raises(AttributeError, getattr, nn, "Conv4d")

"""burn.nn BatchNorm2d and LayerNorm. Expected values are computed with plain Python loops."""

import math

from nn_util import close, flat, raises

import burn
from burn import nn


def _channel_stats(x, c):
    """(mean, biased var, count) of channel c of a nested NCHW list."""
    vals = []
    for sample in x:
        vals.extend(flat(sample[c]))
    mean = sum(vals) / len(vals)
    return mean, sum((v - mean) ** 2 for v in vals) / len(vals), len(vals)


BN_X = [[[[1.0, 2.0]], [[0.0, -4.0]]], [[[3.0, 6.0]], [[2.0, 2.0]]]]


def test_batchnorm_train_normalises_and_updates_running_stats():
    bn = nn.BatchNorm2d(2)
    y = bn(burn.tensor(BN_X)).tolist()
    for c in range(2):
        mean, var, n = _channel_stats(BN_X, c)
        want = [(v - mean) / math.sqrt(var + 1e-5) for s in BN_X for v in flat(s[c])]
        got = [v for s in y for v in flat(s[c])]
        assert close(got, want, 1e-5)
        assert close(bn.running_mean.tolist()[c], 0.1 * mean)
        assert close(bn.running_var.tolist()[c], 0.9 + 0.1 * var * n / (n - 1))
    assert bn.num_batches_tracked.item() == 1
    bn(burn.tensor(BN_X))
    assert bn.num_batches_tracked.item() == 2


def test_batchnorm_cumulative_average_when_momentum_is_none():
    bn = nn.BatchNorm2d(2, momentum=None)
    second = [[[[v + 10.0 for v in row] for row in ch] for ch in s] for s in BN_X]
    bn(burn.tensor(BN_X))
    bn(burn.tensor(second))
    m0 = _channel_stats(BN_X, 0)[0]
    assert close(bn.running_mean.tolist()[0], (m0 + m0 + 10.0) / 2)


def test_batchnorm_eval_uses_running_stats():
    bn = nn.BatchNorm2d(2).eval()
    bn.load_state_dict({"weight": [2.0, 1.0], "bias": [0.0, 1.0], "running_mean": [1.0, 2.0],
                        "running_var": [4.0, 9.0], "num_batches_tracked": 3})
    y = bn(burn.tensor(BN_X)).tolist()
    s0 = 2.0 / math.sqrt(4.0 + 1e-5)
    s1 = 1.0 / math.sqrt(9.0 + 1e-5)
    assert close(y[0][0][0], [(1.0 - 1.0) * s0, (2.0 - 1.0) * s0])
    assert close(y[1][1][0], [(2.0 - 2.0) * s1 + 1.0, (2.0 - 2.0) * s1 + 1.0])
    assert bn.num_batches_tracked.item() == 3
    assert bn.running_mean.tolist() == [1.0, 2.0]


def test_batchnorm_options():
    plain = nn.BatchNorm2d(3, affine=False, track_running_stats=False).eval()
    assert list(plain.parameters()) == [] and plain.state_dict() == {}
    burn.seed(4)
    y = plain(burn.randn((2, 3, 2, 2)) * 3.0 + 1.0)
    assert close(y.mean(dim=(0, 2, 3)), [0.0, 0.0, 0.0], 1e-5)
    assert close(y.var(dim=(0, 2, 3), unbiased=False), [1.0, 1.0, 1.0], 1e-3)
    assert repr(nn.BatchNorm2d(4)) == "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, " \
        "bias=True, track_running_stats=True)"
    assert sorted(nn.BatchNorm2d(2, bias=False).state_dict()) == \
        ["num_batches_tracked", "running_mean", "running_var", "weight"]


def test_batchnorm_errors():
    bn = nn.BatchNorm2d(2)
    msg = raises(ValueError, bn, burn.zeros((1, 3, 2, 2)))
    assert msg.startswith("BatchNorm2d:") and "(1, 3, 2, 2)" in msg
    raises(ValueError, bn, burn.zeros((2, 2)))
    assert "more than 1 value" in raises(ValueError, bn, burn.zeros((1, 2, 1, 1)))
    bn.eval()
    assert bn(burn.zeros((1, 2, 1, 1))).shape == (1, 2, 1, 1)


def test_layernorm_values_and_shapes():
    ln = nn.LayerNorm(4)
    y = ln(burn.tensor([[1.0, 2.0, 3.0, 4.0]])).tolist()[0]
    sd = math.sqrt(1.25 + 1e-5)
    assert close(y, [-1.5 / sd, -0.5 / sd, 0.5 / sd, 1.5 / sd])
    ln.load_state_dict({"weight": [2.0, 2.0, 2.0, 2.0], "bias": [1.0, 1.0, 1.0, 1.0]})
    assert close(ln(burn.tensor([[1.0, 2.0, 3.0, 4.0]])).tolist()[0],
                 [2 * v + 1 for v in y])
    assert nn.LayerNorm((3, 4))(burn.randn((2, 3, 4))).shape == (2, 3, 4)
    bare = nn.LayerNorm(4, elementwise_affine=False)
    assert list(bare.parameters()) == []
    assert sorted(nn.LayerNorm(4, bias=False).state_dict()) == ["weight"]
    assert repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"

"""burn.nn layers with parameters: Linear, Conv2d, BatchNorm2d, LayerNorm, Embedding,
Dropout. Expected values are worked out by hand or with plain Python loops."""

import math

from nn_util import close, flat, raises

import burn
from burn import nn


def test_linear_shapes():
    m = nn.Linear(3, 4)
    assert m.weight.shape == (4, 3) and m.bias.shape == (4,)
    assert m(burn.zeros((5, 3))).shape == (5, 4)
    assert m(burn.zeros((2, 5, 3))).shape == (2, 5, 4)
    assert m(burn.zeros((3,))).shape == (4,)
    assert nn.Linear(3, 4, bias=False).bias is None
    assert repr(nn.Linear(3, 4, bias=False)) == \
        "Linear(in_features=3, out_features=4, bias=False)"


def test_linear_values():
    m = nn.Linear(2, 2, bias=False)
    m.load_state_dict({"weight": [[1.0, -1.0], [0.5, 2.0]]})
    assert m(burn.tensor([[2.0, 3.0], [1.0, 0.0]])).tolist() == [[-1.0, 7.0], [1.0, 0.5]]


def test_linear_default_init_bounds():
    burn.seed(0)
    m = nn.Linear(16, 8)
    bound = 1.0 / math.sqrt(16)
    w = flat(m.weight.tolist())
    b = flat(m.bias.tolist())
    assert max(abs(v) for v in w + b) <= bound
    assert max(w) > 0.8 * bound and min(w) < -0.8 * bound
    burn.seed(0)
    assert nn.Linear(16, 8).weight.tolist() == m.weight.tolist()


def test_conv2d_shapes():
    x = burn.zeros((1, 2, 5, 5))
    assert nn.Conv2d(2, 4, 3)(x).shape == (1, 4, 3, 3)
    assert nn.Conv2d(2, 4, 3, padding=1)(x).shape == (1, 4, 5, 5)
    assert nn.Conv2d(2, 4, 3, stride=2, padding=1)(x).shape == (1, 4, 3, 3)
    assert nn.Conv2d(2, 4, 4, padding="same")(x).shape == (1, 4, 5, 5)
    assert nn.Conv2d(2, 4, (1, 3), padding="valid")(x).shape == (1, 4, 5, 3)
    assert nn.Conv2d(2, 4, 3, dilation=2)(x).shape == (1, 4, 1, 1)
    g = nn.Conv2d(2, 4, 3, groups=2, bias=False)
    assert g.weight.shape == (4, 1, 3, 3) and g.bias is None
    assert g(x).shape == (1, 4, 3, 3)


def test_conv2d_values():
    m = nn.Conv2d(1, 2, 3, padding=1)
    centre = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    ones = [[1.0, 1.0, 1.0]] * 3
    m.load_state_dict({"weight": [[centre], [ones]], "bias": [0.5, 0.0]})
    img = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    y = m(burn.tensor([[img]])).tolist()[0]
    assert y[0] == [[v + 0.5 for v in row] for row in img]
    # each output is the sum of the 3x3 neighbourhood inside the image
    assert y[1][1][1] == 45.0 and y[1][0][0] == 1.0 + 2.0 + 4.0 + 5.0


def test_conv2d_depthwise_values():
    m = nn.Conv2d(2, 2, 1, groups=2, bias=False)
    m.load_state_dict({"weight": [[[[2.0]]], [[[-1.0]]]]})
    y = m(burn.tensor([[[[1.0, 2.0]], [[3.0, 4.0]]]]))
    assert y.tolist() == [[[[2.0, 4.0]], [[-3.0, -4.0]]]]


def test_conv2d_errors_and_repr():
    msg = raises(ValueError, nn.Conv2d, 3, 4, 3, groups=2)
    assert msg.startswith("Conv2d:") and "groups" in msg
    assert "stride" in raises(ValueError, nn.Conv2d, 1, 1, 3, stride=2, padding="same")
    raises(ValueError, nn.Conv2d, 1, 1, 3, padding="full")
    raises(ValueError, nn.Conv2d, 1, 1, 3, padding_mode="reflect")
    assert repr(nn.Conv2d(2, 4, 3, stride=2, groups=2, bias=False, dilation=2)) == \
        "Conv2d(2, 4, kernel_size=(3, 3), stride=(2, 2), dilation=(2, 2), groups=2, " \
        "bias=False)"
    assert repr(nn.Conv2d(1, 1, 3, padding="same")) == \
        "Conv2d(1, 1, kernel_size=(3, 3), stride=(1, 1), padding=same)"


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


def test_embedding_lookup():
    e = nn.Embedding(3, 2)
    assert e.weight.shape == (3, 2)
    e.load_state_dict({"weight": [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]})
    y = e(burn.tensor([[0, 2], [1, 0]]))
    assert y.shape == (2, 2, 2)
    assert y.tolist() == [[[0.0, 1.0], [4.0, 5.0]], [[2.0, 3.0], [0.0, 1.0]]]


def test_embedding_padding_idx_row_is_zero():
    burn.seed(3)
    e = nn.Embedding(4, 3, padding_idx=-1)
    assert e.padding_idx == 3
    rows = e.weight.tolist()
    assert rows[3] == [0.0, 0.0, 0.0] and any(v != 0.0 for v in rows[0])
    assert repr(e) == "Embedding(4, 3, padding_idx=3)"
    raises(ValueError, nn.Embedding, 4, 3, padding_idx=4)


def test_dropout_train_and_eval():
    d = nn.Dropout(0.5)
    x = burn.ones((200,))
    burn.seed(5)
    y = d(x).tolist()
    assert set(y) <= {0.0, 2.0}
    assert 50 < y.count(0.0) < 150
    burn.seed(5)
    assert d(x).tolist() == y
    d.eval()
    assert d(x).tolist() == x.tolist()
    assert nn.Dropout(0.0)(x).tolist() == x.tolist()
    raises(ValueError, nn.Dropout, 1.5)
    assert repr(d) == "Dropout(p=0.5)"

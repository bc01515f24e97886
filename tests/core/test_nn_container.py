"""burn.nn parameter-free layers (activations, pooling, Flatten) and Sequential. Expected
values are worked out by hand or with the math module."""

import math

from nn_util import close, raises

import burn
from burn import nn

XS = [-3.0, -0.5, 0.0, 0.5, 7.0]


def test_relu_family():
    x = burn.tensor(XS)
    assert nn.ReLU()(x).tolist() == [0.0, 0.0, 0.0, 0.5, 7.0]
    assert nn.ReLU6()(x).tolist() == [0.0, 0.0, 0.0, 0.5, 6.0]
    assert close(nn.LeakyReLU(0.1)(x), [-0.3, -0.05, 0.0, 0.5, 7.0])
    assert repr(nn.LeakyReLU(0.1)) == "LeakyReLU(negative_slope=0.1)"


def test_smooth_activations():
    x = burn.tensor(XS)
    assert close(nn.Sigmoid()(x), [1.0 / (1.0 + math.exp(-v)) for v in XS])
    assert close(nn.Tanh()(x), [math.tanh(v) for v in XS])
    assert close(nn.SiLU()(x), [v / (1.0 + math.exp(-v)) for v in XS])
    erf_gelu = [0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in XS]
    assert close(nn.GELU()(x), erf_gelu)
    c = math.sqrt(2.0 / math.pi)
    tanh_gelu = [0.5 * v * (1.0 + math.tanh(c * (v + 0.044715 * v ** 3))) for v in XS]
    assert close(nn.GELU("tanh")(x), tanh_gelu)
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    raises(ValueError, nn.GELU, "erf")


def test_softmax_dims():
    rows = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    x = burn.tensor(rows)
    e = [math.exp(v) for v in rows[0]]
    want = [[v / sum(e) for v in e], [1.0 / 3] * 3]
    assert close(nn.Softmax(dim=1)(x), want)
    assert close(nn.Softmax(dim=-1)(x), want)
    assert close(nn.Softmax()(x), want)           # legacy default: dim 1 for 2-D input
    cols = nn.Softmax(dim=0)(x).tolist()
    assert close([cols[0][2]], [math.exp(3.0) / (math.exp(3.0) + 1.0)])
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"


def test_identity_returns_input():
    x = burn.tensor([1.0, 2.0])
    assert nn.Identity()(x) is x


GRID = [[float(4 * r + c) for c in range(4)] for r in range(4)]


def test_max_and_avg_pool_values():
    x = burn.tensor([[GRID]])
    assert nn.MaxPool2d(2)(x).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert nn.AvgPool2d(2)(x).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert nn.MaxPool2d(3, stride=1)(x).tolist() == [[[[10.0, 11.0], [14.0, 15.0]]]]
    assert nn.MaxPool2d(3, stride=2, padding=1)(x).shape == (1, 1, 2, 2)
    assert nn.MaxPool2d(3, stride=2, ceil_mode=True)(x).shape == (1, 1, 2, 2)
    # the bottom-right window holds one real element (15) and three padded zeros
    exclude = nn.AvgPool2d(2, stride=2, padding=1, count_include_pad=False)(x)
    include = nn.AvgPool2d(2, stride=2, padding=1)(x)
    assert exclude.shape == (1, 1, 3, 3)
    assert exclude.tolist()[0][0][2][2] == 15.0 and include.tolist()[0][0][2][2] == 3.75


def test_adaptive_avg_pool():
    x = burn.tensor([[GRID, [[1.0] * 4] * 4]])
    assert nn.AdaptiveAvgPool2d(1)(x).tolist() == [[[[7.5]], [[1.0]]]]
    assert nn.AdaptiveAvgPool2d((2, 2))(x).tolist()[0][0] == [[2.5, 4.5], [10.5, 12.5]]
    assert nn.AdaptiveAvgPool2d((1, 4))(x).shape == (1, 2, 1, 4)
    assert repr(nn.AdaptiveAvgPool2d((1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))"


def test_pool_repr():
    assert repr(nn.MaxPool2d(2)) == \
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(3, 1, 1)) == "AvgPool2d(kernel_size=3, stride=1, padding=1)"


def test_flatten():
    x = burn.zeros((2, 3, 4, 5))
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0)(x).shape == (120,)
    assert nn.Flatten(1, 2)(x).shape == (2, 12, 5)
    assert nn.Flatten(-2)(x).shape == (2, 3, 20)
    assert nn.Flatten()(burn.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist() == \
        [[1.0, 2.0], [3.0, 4.0]]


def test_sequential_container():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    s = nn.Sequential(a, b)
    assert len(s) == 2 and s[0] is a and s[-1] is b
    assert s.append(c) is s and len(s) == 3 and s[2] is c
    assert list(s) == [a, b, c]
    tail = s[1:]
    assert isinstance(tail, nn.Sequential) and list(tail) == [b, c]
    assert [n for n, _ in tail.named_children()] == ["1", "2"]
    assert list(s[::-1]) == [c, b, a]
    s[1] = nn.Tanh()
    assert isinstance(s[1], nn.Tanh) and len(s) == 3
    msg = raises(IndexError, s.__getitem__, 3)
    assert msg.startswith("Sequential:") and "3" in msg
    raises(IndexError, s.__getitem__, -4)
    raises(TypeError, s.__getitem__, "0")
    assert nn.Sequential()(burn.tensor([1.0])).tolist() == [1.0]


def test_sequential_forward_chains():
    s = nn.Sequential(nn.Linear(2, 2, bias=False), nn.ReLU())
    s.load_state_dict({"0.weight": [[1.0, 0.0], [0.0, -1.0]]})
    assert s(burn.tensor([[2.0, 3.0]])).tolist() == [[2.0, 0.0]]


def test_functional_reexports_burn_ops():
    from burn.nn import functional as F

    assert F.relu is burn.relu and F.softmax is burn.softmax
    assert nn.functional is F
    assert F.relu(burn.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
    assert "conv3d" in raises(AttributeError, getattr, F, "conv3d")
